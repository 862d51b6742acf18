/**
 * @module core/time-travel/history
 * What time travel leaves behind on a run: its rewinds and reverts (one intent row each), the
 * attention mark a forced crossing of side effects sets, and its snapshots (per-run GC).
 */
import { attemptRef, parseAttemptRef, runRefPrefix } from "../engine/internal.js";
import { type FlowDbLike, flowDbOf } from "./adapter.js";
import { FlowError } from "../errors.js";
import type { VcsPort } from "./port.js";
import type { CrossedEffect } from "./types.js";
import { TABLES } from "../protocol.js";

/**
 * Why a run needs a human to look at it: a time travel crossed side effects with `force`.
 * @example
 * const a: RunAttention = { reason: "time-travel-forced", intentId: "i1", atMs: Date.now(), effects: [] };
 */
export interface RunAttention {
  reason: "time-travel-forced";
  intentId: string;
  atMs: number;
  /** The blocking effects that were crossed (they may be repeated when the run resumes). */
  effects: CrossedEffect[];
}

/**
 * One rewind or revert of a run.
 * @example
 * for (const t of await listTimeTravels(db, runId)) console.log(t.kind, t.nodeId, t.status);
 */
export interface TimeTravelRecord {
  intentId: string;
  kind: "rewind" | "revert";
  /** `pending` (interrupted; finished by the next time travel or resume), `done` or `failed`. */
  status: "pending" | "done" | "failed";
  nodeId: string;
  iteration: number;
  attempt: number;
  /** The snapshot restored, null for a rows-only rewind. */
  vcsPointer: string | null;
  /** The working tree right before, kept on a ref (so a rewind can itself be undone). */
  beforePointer: string | null;
  forcedEffects: number;
  createdAtMs: number;
  finishedAtMs: number | null;
  error: string | null;
}

/**
 * One snapshot of a run: an attempt edge (`nodeId`, `iteration`, `attempt`, `edge`), or another
 * ref of the run (a time travel's `before`). `ref` is the ref that keeps the commit: an edge
 * whose tree was the previous edge's (nothing was written in between) shares its commit and ref.
 * @example
 * const s: RunSnapshot = { ref: "refs/flow/runs/r1/a/0/1/end", pointer: "3f2a...", runId: "r1", nodeId: "b", iteration: 0, attempt: 1, edge: "start" };
 */
export interface RunSnapshot {
  ref: string;
  pointer: string;
  runId?: string;
  nodeId?: string;
  iteration?: number;
  attempt?: number;
  edge?: "start" | "end";
}

/**
 * The snapshots of a run still kept by its refs in `workspace`: its attempts' edges in the order
 * they ran, then its other refs.
 * @example
 * const snapshots = await listRunSnapshots(new FlowDb(api.db), runId, createGitVcs(), "/work/repo");
 */
export async function listRunSnapshots(adapter: FlowDbLike, runId: string, vcs: VcsPort, workspace: string): Promise<RunSnapshot[]> {
  const refs = await vcs.list(workspace, runRefPrefix(runId));
  const names = new Set(refs.map((r) => r.ref));
  const holder = new Map<string, string>();
  for (const r of refs) if (!holder.has(r.pointer)) holder.set(r.pointer, r.ref);
  const rows = await flowDbOf(adapter).store.query<{ node_id: string; iteration: number; attempt: number; vcs_start_pointer: string | null; vcs_pointer: string | null }>(
    `SELECT node_id, iteration, attempt, vcs_start_pointer, vcs_pointer FROM ${TABLES.attempts} WHERE run_id = ? ORDER BY started_at_ms, attempt`,
    [runId],
  );
  const snapshots: RunSnapshot[] = [];
  for (const row of rows) {
    const [nodeId, iteration, attempt] = [row.node_id, Number(row.iteration), Number(row.attempt)];
    for (const [edge, pointer] of [["start", row.vcs_start_pointer], ["end", row.vcs_pointer]] as const) {
      const own = attemptRef(runId, nodeId, iteration, attempt, edge);
      const ref = names.has(own) ? own : pointer ? holder.get(pointer) : undefined;
      if (pointer && ref) snapshots.push({ ref, pointer, runId, nodeId, iteration, attempt, edge });
    }
  }
  return [...snapshots, ...refs.filter((r) => !parseAttemptRef(r.ref))];
}

/**
 * The attention mark of a run, or null.
 * @example
 * const attention = await getRunAttention(new FlowDb(api.db), runId);
 * if (attention) console.warn(`check ${attention.effects.map((e) => e.toolName).join(", ")}`);
 */
export async function getRunAttention(adapter: FlowDbLike, runId: string): Promise<RunAttention | null> {
  const [row] = await flowDbOf(adapter).store.query<{ attention_json: string | null }>(`SELECT attention_json FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
  return row?.attention_json ? (JSON.parse(row.attention_json) as RunAttention) : null;
}

/**
 * Clears the attention mark once someone has checked the run.
 * @example
 * await clearRunAttention(new FlowDb(api.db), runId);
 */
export async function clearRunAttention(adapter: FlowDbLike, runId: string): Promise<void> {
  await flowDbOf(adapter).store.execute(`UPDATE ${TABLES.runs} SET attention_json = NULL WHERE run_id = ?`, [runId]);
}

/**
 * The rewinds and reverts of a run, oldest first.
 * @example
 * const history = await listTimeTravels(new FlowDb(api.db), runId);
 */
export async function listTimeTravels(adapter: FlowDbLike, runId: string): Promise<TimeTravelRecord[]> {
  const rows = await flowDbOf(adapter).store.query<Record<string, unknown>>(`SELECT * FROM ${TABLES.timeTravel} WHERE run_id = ? ORDER BY created_at_ms, intent_id`, [runId]);
  return rows.map((r) => ({
    intentId: String(r.intent_id),
    kind: r.kind as TimeTravelRecord["kind"],
    status: r.status as TimeTravelRecord["status"],
    nodeId: String(r.node_id),
    iteration: Number(r.iteration),
    attempt: Number(r.attempt),
    vcsPointer: (r.pointer as string | null) ?? null,
    beforePointer: (r.before_pointer as string | null) ?? null,
    forcedEffects: r.crossed_json ? (JSON.parse(String(r.crossed_json)) as { forced: unknown[] }).forced.length : 0,
    createdAtMs: Number(r.created_at_ms),
    finishedAtMs: r.finished_at_ms === null || r.finished_at_ms === undefined ? null : Number(r.finished_at_ms),
    error: r.error_json ? (JSON.parse(String(r.error_json)) as { message: string }).message : null,
  }));
}

/**
 * Deletes the snapshot refs of a run (its attempts' and its time travels' `before` snapshots);
 * returns how many. `git gc` reclaims the objects later; time travel of the run can then reset
 * rows only. Throws VCS_FAILED when the run recorded no workspace or the host has no VCS port.
 * @example
 * const removed = await removeRunSnapshots(new FlowDb(api.db), runId);
 */
export async function removeRunSnapshots(adapter: FlowDbLike, runId: string): Promise<number> {
  const db = flowDbOf(adapter);
  const [row] = await db.store.query<{ workspace_dir: string | null }>(`SELECT workspace_dir FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
  const { vcs } = db.binding.env;
  if (!row?.workspace_dir || !vcs) throw new FlowError("VCS_FAILED", `Run ${runId} has no snapshots to remove (no workspace recorded, or no VCS port on this host).`, { runId });
  return vcs.remove(row.workspace_dir, runRefPrefix(runId));
}
