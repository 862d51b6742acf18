/**
 * @module core/time-travel/diff
 * What a task attempt, or a whole run, changed in its workspace, from the recorded snapshots
 * (docs/time-travel.md "Diffs"). The Gateway's `getNodeDiff` and `getRunDiff` and
 * `flow snapshots --diff` read these.
 */
import type { FlowDb } from "../engine/index.js";
import { type FlowDbLike, flowDbOf } from "./adapter.js";
import { FlowError } from "../errors.js";
import type { VcsFileChange } from "./port.js";
import { TABLES } from "../protocol.js";

/**
 * The changes between two snapshots of a run's workspace.
 * @example
 * const d: WorkspaceDiff = { runId: "r1", from: "3f2a...", to: "9bc0...", files: [{ path: "a.txt", status: "modified" }] };
 */
export interface WorkspaceDiff {
  runId: string;
  from: string;
  /** A snapshot, or null for the working tree as it is now. */
  to: string | null;
  files: VcsFileChange[];
}


interface Pointers {
  attempt: number;
  start: string | null;
  end: string | null;
}

async function pointersOf(db: FlowDb, runId: string, where: string, params: unknown[]): Promise<Pointers[]> {
  const rows = await db.store.query<{ attempt: number; vcs_start_pointer: string | null; vcs_pointer: string | null }>(
    `SELECT attempt, vcs_start_pointer, vcs_pointer FROM ${TABLES.attempts} WHERE run_id = ?${where} ORDER BY started_at_ms, attempt`,
    [runId, ...(params as never[])],
  );
  return rows.map((r) => ({ attempt: Number(r.attempt), start: r.vcs_start_pointer ?? null, end: r.vcs_pointer ?? null }));
}

async function diffIn(db: FlowDb, runId: string, from: string, to: string | null): Promise<WorkspaceDiff> {
  const { vcs } = db.binding.env;
  const [row] = await db.store.query<{ workspace_dir: string | null }>(`SELECT workspace_dir FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
  if (!vcs || !row?.workspace_dir) throw new FlowError("VCS_FAILED", `Run ${runId} has no workspace snapshots to diff (no repository, or no VCS port on this host).`, { runId });
  return { runId, from, to, files: await vcs.diff(row.workspace_dir, from, to ?? undefined) };
}

/**
 * The files a task attempt changed: its start snapshot to its end snapshot (attempt omitted:
 * the latest attempt that has both). Throws VCS_FAILED when there are no snapshots.
 * @example
 * const { files } = await attemptDiff(new FlowDb(api.db), { runId, nodeId: "review" });
 */
export async function attemptDiff(adapter: FlowDbLike, opts: { runId: string; nodeId: string; iteration?: number; attempt?: number }): Promise<WorkspaceDiff> {
  const db = flowDbOf(adapter);
  const all = await pointersOf(db, opts.runId, " AND node_id = ? AND iteration = ?", [opts.nodeId, opts.iteration ?? 0]);
  const pick = all.filter((p) => p.start && p.end && (opts.attempt === undefined || p.attempt === opts.attempt)).pop();
  if (!pick) {
    throw new FlowError("VCS_FAILED", `Run ${opts.runId} has no snapshots of ${opts.nodeId} (iteration ${opts.iteration ?? 0}${opts.attempt ? `, attempt ${opts.attempt}` : ""}) to diff.`, { runId: opts.runId, nodeId: opts.nodeId });
  }
  return diffIn(db, opts.runId, pick.start!, pick.end!);
}

/**
 * What a whole run changed: the tree its first attempt started from to its last snapshot, or to
 * the working tree now (`toWorkingTree`).
 * @example
 * const { files } = await runDiff(new FlowDb(api.db), { runId });
 */
export async function runDiff(adapter: FlowDbLike, opts: { runId: string; toWorkingTree?: boolean }): Promise<WorkspaceDiff> {
  const db = flowDbOf(adapter);
  const all = await pointersOf(db, opts.runId, "", []);
  const from = all.find((p) => p.start)?.start;
  const to = opts.toWorkingTree ? null : ([...all].reverse().find((p) => p.end)?.end ?? null);
  if (!from || (!opts.toWorkingTree && !to)) throw new FlowError("VCS_FAILED", `Run ${opts.runId} has no workspace snapshots to diff.`, { runId: opts.runId });
  return diffIn(db, opts.runId, from, to);
}
