/**
 * @module ui/views/compare/compare-model
 * What the compare view lines up: the tasks of two runs matched by node id and iteration (in
 * the first run's order, then the second's extras), each side's time spent in its attempts,
 * and whether two values (inputs, output rows) differ. Pure, so the view and its tests share it.
 */
import type { GatewayRunRow } from "../../../core/data/index.js";

/** A node of a run row (with its attempts). */
type GatewayRunNode = GatewayRunRow["nodes"][number];

/** One task of either run, with both sides (a side is undefined when that run has no such task). */
export interface ComparedTask {
  /** `<nodeId>#<iteration>`. */
  key: string;
  nodeId: string;
  iteration: number;
  a: GatewayRunNode | undefined;
  b: GatewayRunNode | undefined;
}

/**
 * The tasks of two runs side by side.
 * @example
 * pairTasks(runA.nodes, runB.nodes); // [{ key: "greet#0", a: {...}, b: {...} }, ...]
 */
export function pairTasks(a: readonly GatewayRunNode[], b: readonly GatewayRunNode[]): ComparedTask[] {
  const out = new Map<string, ComparedTask>();
  for (const [side, nodes] of [["a", a], ["b", b]] as const) {
    for (const n of nodes) {
      const key = `${n.nodeId}#${n.iteration}`;
      const row = out.get(key) ?? { key, nodeId: n.nodeId, iteration: n.iteration, a: undefined, b: undefined };
      row[side] = n;
      out.set(key, row);
    }
  }
  return [...out.values()];
}

/**
 * Time a node spent in its attempts (one still running counts up to `now`); null before its first attempt.
 * @example
 * timeSpent(node, Date.now()); // 1204
 */
export function timeSpent(node: GatewayRunNode | undefined, now: number): number | null {
  if (!node || node.attempts.length === 0) return null;
  let total = 0;
  for (const a of node.attempts) total += (a.finishedAtMs ?? (a.state === "in-progress" ? now : a.startedAtMs)) - a.startedAtMs;
  return total;
}

/**
 * True when two JSON values differ (object keys in any order).
 * @example
 * differs({ a: 1, b: 2 }, { b: 2, a: 1 }); // false
 */
export function differs(x: unknown, y: unknown): boolean {
  return canonical(x) !== canonical(y);
}

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value) ? Object.fromEntries(Object.entries(value as Record<string, unknown>).sort(([p], [q]) => (p < q ? -1 : p > q ? 1 : 0))) : value,
  ) ?? "undefined";
}

/** The output row without the columns every row has (`runId`, `nodeId`, `iteration`), which always differ between runs. */
export function outputValue(row: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!row) return null;
  const { runId: _r, run_id: _r2, nodeId: _n, node_id: _n2, iteration: _i, ...rest } = row;
  return rest;
}
