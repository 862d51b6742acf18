/**
 * @module core/time-travel/diff
 * What a task attempt, or a whole run, changed in its workspace, from the recorded snapshots
 * (docs/time-travel.md "Diffs"), and how one file changed in an attempt. The Gateway's
 * `getNodeDiff`, `getRunDiff` and `getFileDiff` and `flow snapshots --diff` read these.
 */
import type { FlowDb } from "../engine/index.js";
import { type FlowDbLike, flowDbOf } from "./adapter.js";
import { FlowError } from "../errors.js";
import type { VcsFileChange, VcsPort } from "./port.js";
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
  const { vcs, dir } = await workspaceOf(db, runId);
  return { runId, from, to, files: await vcs.diff(dir, from, to ?? undefined) };
}

/** The host's VCS port and the workspace the run recorded; VCS_FAILED without either. */
async function workspaceOf(db: FlowDb, runId: string): Promise<{ vcs: VcsPort; dir: string }> {
  const { vcs } = db.binding.env;
  const [row] = await db.store.query<{ workspace_dir: string | null }>(`SELECT workspace_dir FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
  if (!vcs || !row?.workspace_dir) throw new FlowError("VCS_FAILED", `Run ${runId} has no workspace snapshots to diff (no repository, or no VCS port on this host).`, { runId });
  return { vcs, dir: row.workspace_dir };
}

/**
 * The files a task attempt changed: its start snapshot to its end snapshot (attempt omitted:
 * the latest attempt that has both). Throws VCS_FAILED when there are no snapshots.
 * @example
 * const { files } = await attemptDiff(new FlowDb(api.db), { runId, nodeId: "review" });
 */
export async function attemptDiff(adapter: FlowDbLike, opts: AttemptRef): Promise<WorkspaceDiff> {
  const db = flowDbOf(adapter);
  const { start, end } = await attemptSnapshots(db, opts);
  return diffIn(db, opts.runId, start, end);
}

/** A task attempt of a run (`iteration` 0 and the latest attempt with both snapshots unless given). */
type AttemptRef = { runId: string; nodeId: string; iteration?: number; attempt?: number };

/** The most a `FileDiff`'s patch holds; the rest is cut at a line's end (`truncated`). */
export const MAX_PATCH_CHARS = 256_000;

/**
 * How one file changed in a task attempt: the unified diff of `path` from the attempt's start
 * snapshot to its end snapshot.
 * @example
 * const d: FileDiff = { runId: "r1", from: "3f2a...", to: "9bc0...", path: "doc.md", patch: "diff --git a/doc.md b/doc.md\n...", truncated: false };
 */
export interface FileDiff {
  runId: string;
  from: string;
  to: string;
  /** As `WorkspaceDiff.files` names it. */
  path: string;
  /** Git's unified diff (3 lines of context); "" when the file did not change in the attempt. */
  patch: string;
  /** The patch was longer than MAX_PATCH_CHARS and is cut there. */
  truncated: boolean;
}

/**
 * How a task attempt changed one file (`attemptDiff` names the files). Throws VCS_FAILED when
 * there are no snapshots, NOT_AVAILABLE where the host's VCS port cannot show a file's changes.
 * @example
 * const { patch } = await attemptFileDiff(new FlowDb(api.db), { runId, nodeId: "review", path: "doc.md" });
 */
export async function attemptFileDiff(adapter: FlowDbLike, opts: AttemptRef & { path: string }): Promise<FileDiff> {
  const [diff] = await attemptFileDiffs(adapter, { ...opts, paths: [opts.path] });
  return diff!;
}

/**
 * `attemptFileDiff` of several files of one attempt, in the order given: the attempt and its
 * workspace are looked up once (`flow snapshots --diff --patch` shows every file it changed).
 * @example
 * const diffs = await attemptFileDiffs(new FlowDb(api.db), { runId, nodeId: "review", paths: files.map((f) => f.path) });
 */
export async function attemptFileDiffs(adapter: FlowDbLike, opts: AttemptRef & { paths: readonly string[] }): Promise<FileDiff[]> {
  if (opts.paths.length === 0) return [];
  const db = flowDbOf(adapter);
  const { start, end } = await attemptSnapshots(db, opts);
  const { vcs, dir } = await workspaceOf(db, opts.runId);
  const { patch: patchOf } = vcs;
  if (!patchOf) throw new FlowError("NOT_AVAILABLE", `This host cannot show how a file changed (its VCS port has no patch); it lists the files a task changed (attemptDiff).`, { runId: opts.runId });
  return Promise.all(
    opts.paths.map(async (path) => {
      const full = await patchOf.call(vcs, dir, start, end, path);
      const truncated = full.length > MAX_PATCH_CHARS;
      const patch = truncated ? full.slice(0, full.lastIndexOf("\n", MAX_PATCH_CHARS) + 1) : full;
      return { runId: opts.runId, from: start, to: end, path, patch, truncated };
    }),
  );
}

/** The start and end snapshots of an attempt; VCS_FAILED when it has not both. */
async function attemptSnapshots(db: FlowDb, opts: AttemptRef): Promise<{ start: string; end: string }> {
  const all = await pointersOf(db, opts.runId, " AND node_id = ? AND iteration = ?", [opts.nodeId, opts.iteration ?? 0]);
  const pick = all.filter((p) => p.start && p.end && (opts.attempt === undefined || p.attempt === opts.attempt)).pop();
  if (!pick) {
    throw new FlowError("VCS_FAILED", `Run ${opts.runId} has no snapshots of ${opts.nodeId} (iteration ${opts.iteration ?? 0}${opts.attempt ? `, attempt ${opts.attempt}` : ""}) to diff.`, { runId: opts.runId, nodeId: opts.nodeId });
  }
  return { start: pick.start!, end: pick.end! };
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
