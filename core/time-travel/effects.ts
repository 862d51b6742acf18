/**
 * @module core/time-travel/effects
 * The EffectBoundaryReport of a time travel: the calls of `sideEffect` tools recorded (table
 * `_flow_tool_calls`, written before each call runs) at or after the boundary, sorted into
 * blocking, revertible and warnings (docs/time-travel.md "Side effects").
 */
import type { StorePort } from "../store/index.js";
import type { Compensation, CrossedEffect, EffectBoundaryReport } from "./types.js";
import { TABLES } from "../protocol.js";

/** Built-in file tools whose effect lies in the workspace, so restoring its snapshot undoes it. */
const WORKSPACE_TOOLS = new Set(["write", "edit"]);

export interface BoundaryInput {
  runId: string;
  /** Calls after this time are crossed (time travel: the target's start; revert: its end). */
  sinceMs: number;
  /** Whether a call made exactly at `sinceMs` is crossed too (time travel: yes; revert: no). */
  inclusive: boolean;
  /** Whether the workspace is restored (then `write`/`edit` effects are revertible). */
  restoresFiles: boolean;
  noRevert: boolean;
  compensations: Record<string, Compensation>;
}

/**
 * The side effects crossed by going back to `sinceMs`.
 * @example
 * const report = await effectBoundary(store, { runId, sinceMs, inclusive: true, restoresFiles: true, noRevert: false, compensations: {} });
 */
export async function effectBoundary(store: StorePort, input: BoundaryInput): Promise<EffectBoundaryReport> {
  const rows = await store.query<Record<string, unknown>>(
    `SELECT node_id, iteration, attempt, seq, tool_name, idempotency_key, idempotent, called_at_ms FROM ${TABLES.toolCalls} WHERE run_id = ? AND side_effect = ? AND called_at_ms ${input.inclusive ? ">=" : ">"} ? ORDER BY called_at_ms, node_id, attempt, seq`,
    [input.runId, true, input.sinceMs],
  );
  const report: EffectBoundaryReport = { blocking: [], revertible: [], warnings: [] };
  for (const r of rows) {
    const base = {
      runId: input.runId,
      nodeId: String(r.node_id),
      iteration: Number(r.iteration),
      attempt: Number(r.attempt),
      seq: Number(r.seq),
      toolName: String(r.tool_name),
      idempotencyKey: String(r.idempotency_key),
      idempotent: r.idempotent === true || r.idempotent === 1,
      calledAtMs: Number(r.called_at_ms),
    };
    const revertBy = input.compensations[base.toolName] ? "compensation" : WORKSPACE_TOOLS.has(base.toolName) && input.restoresFiles ? "vcs" : undefined;
    if (revertBy && !input.noRevert) {
      report.revertible.push({ ...base, revertBy, reason: revertBy === "vcs" ? "a file change in the workspace, undone by the restore" : "undone by its compensation" });
    } else if (revertBy) {
      report.blocking.push({ ...base, reason: "revertible, but noRevert skips the revert" });
    } else if (!base.idempotent) {
      report.blocking.push({ ...base, reason: "not idempotent and no compensation is known: running the task again would repeat it" });
    } else {
      report.warnings.push({ ...base, reason: "idempotent: it stays in place, and running the task again repeats it safely" });
    }
  }
  return report;
}

/** Runs the compensations of the revertible effects, newest first. */
export async function compensate(report: EffectBoundaryReport, compensations: Record<string, Compensation>): Promise<void> {
  for (const effect of [...report.revertible].reverse()) {
    if (effect.revertBy === "compensation") await compensations[effect.toolName]!(effect);
  }
}
