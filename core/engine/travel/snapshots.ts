/**
 * @module core/engine/travel/snapshots
 * What the engine does for time travel on each task attempt: snapshot the run's workspace
 * when the attempt starts and when it succeeds (`vcs_start_pointer`, `vcs_pointer`), through
 * the VCS port the host injects (`RuntimeEnv.vcs`). The workspace is detected once per run;
 * when it is no repository, attempts keep null pointers and one notice per directory is
 * logged; a workspace the repository ignores (the app's store folder) is skipped silently.
 * A snapshot that fails is a warning, once per directory and cause in a process, never a task
 * failure.
 *
 * An edge whose tree is the previous edge's (the port's `unchangedSince`: nothing was written
 * since) records the previous pointer again and costs no VCS work, so a compute task, or a
 * model call without file tools, adds nothing to a run in a repository. Such an edge gets no
 * ref of its own: its commit is kept by the ref of the edge that made it, in the same run.
 * Where the port cannot tell (`whyUnwatched`: a tree too large to watch, no file watches left),
 * every edge reads the whole tree; that is said once per directory and cause, with its fix.
 */
import type { StoreBinding } from "../../binding.js";
import { TABLES } from "../../protocol.js";
import type { VcsPort } from "../../time-travel/index.js";
import { attemptRef } from "./refs.js";

/** Conditions already reported in this process (directory and cause): one notice each. */
const noticed = new Set<string>();

/**
 * Snapshots of one run's attempts. Created by the engine per run session.
 * @example
 * const snaps = attemptSnapshotsFor(binding, runId, rootDir);
 * const start = await snaps?.take("review", 0, 1, "start");
 */
export class AttemptSnapshots {
  private detected: Promise<boolean> | undefined;
  /** Whether the run's directory is a workspace to snapshot, once `detected` has said. */
  private workspace: boolean | undefined;
  /** The pointer of the last edge snapshotted in this run session. */
  private last: string | undefined;
  private lastEdge: "start" | "end" | undefined;

  constructor(
    private readonly binding: StoreBinding,
    private readonly vcs: VcsPort,
    private readonly runId: string,
    private readonly rootDir: string,
  ) {
    // The session's first snapshot overlaps its first render; its first attempt waits for it
    // (the port serializes), so no task code runs before it has read the tree.
    vcs.prepare?.(rootDir);
  }

  /**
   * Snapshots the workspace for an attempt edge; undefined when it is no repository or the
   * snapshot failed. An edge where nothing changed is answered without a promise where the port
   * can tell at once (a start after an end), with one where it waits for the writes made so far:
   * it is on every attempt's path (docs/performance.md).
   */
  take(nodeId: string, iteration: number, attempt: number, edge: "start" | "end"): string | undefined | Promise<string | undefined> {
    if (this.workspace === undefined) return this.detectThenTake(nodeId, iteration, attempt, edge);
    if (!this.workspace) return undefined;
    // Code ran since the last edge (an attempt's end, or a start after a start: a failed attempt
    // before its retry, a parallel sibling): its writes must have been seen first (settle).
    const settle = edge === "end" || this.lastEdge === "start";
    this.lastEdge = edge;
    const last = this.last;
    if (last === undefined) return this.snapshot(nodeId, iteration, attempt, edge);
    const unchanged = this.vcs.unchangedSince?.(this.rootDir, last, { settle }) ?? false;
    if (unchanged === true) return last;
    if (unchanged === false) return this.snapshot(nodeId, iteration, attempt, edge);
    return unchanged.then((same) => (same ? last : this.snapshot(nodeId, iteration, attempt, edge)));
  }

  private async detectThenTake(nodeId: string, iteration: number, attempt: number, edge: "start" | "end"): Promise<string | undefined> {
    this.workspace = await (this.detected ??= this.detect());
    return this.take(nodeId, iteration, attempt, edge);
  }

  private async snapshot(nodeId: string, iteration: number, attempt: number, edge: "start" | "end"): Promise<string | undefined> {
    try {
      this.last = await this.vcs.snapshot(this.rootDir, attemptRef(this.runId, nodeId, iteration, attempt, edge), `flow ${this.runId} ${nodeId}@${iteration} attempt ${attempt} ${edge}`);
      const why = await this.vcs.whyUnwatched?.(this.rootDir);
      if (why) this.noticeOnce(`${this.rootDir}\0unwatched\0${why}`, `Snapshots of ${this.rootDir} read the whole tree at every task attempt, because Flow cannot watch it for changes: ${why}. Or set FLOW_SNAPSHOTS=off if runs there need no time travel.`);
      this.noticeRepositories(await this.vcs.repositoriesIn?.(this.rootDir));
      return this.last;
    } catch (error) {
      this.last = undefined;
      const cause = String(error);
      // Once per directory and cause: the ref and run ids in git's message change per attempt,
      // and so does the command that met it (`update-ref` alone, or inside a snapshot's script).
      const key = `${this.rootDir}\0${cause.replace(/refs\/flow\/\S*|\b[0-9a-f]{7,40}\b|git \S+ failed/g, "")}`;
      this.noticeOnce(
        key,
        `Run ${this.runId}: could not snapshot ${this.rootDir} (first at the ${edge} of "${nodeId}" attempt ${attempt}; further failures here are not repeated); time travel to those attempts will not restore files. Fix the cause below (\`git status\` in that directory shows most), or set FLOW_SNAPSHOTS=off to stop snapshots.`,
        { error: cause },
      );
      return undefined;
    }
  }

  /**
   * Says once per process which repositories inside the workspace (a submodule, a clone an agent
   * made) the snapshots hold only as a commit: one notice for those first seen together.
   */
  private noticeRepositories(repositories: string[] | undefined): void {
    const fresh = (repositories ?? []).filter((path) => !noticed.has(`${this.rootDir}\0repository\0${path}`));
    if (!fresh.length) return;
    for (const path of fresh) noticed.add(`${this.rootDir}\0repository\0${path}`);
    const one = fresh.length === 1;
    this.binding.env.warn(
      `Snapshots of ${this.rootDir} hold ${fresh.join(", ")} only as the commit ${one ? "its" : "each one's"} HEAD is at: ${one ? "it is a git repository" : "they are git repositories"} of ${one ? "its" : "their"} own inside the workspace (a submodule, or a clone), so files changed there are not snapshotted and time travel leaves them as they are. Root a run in ${one ? "it" : "one"} (rootDir, or flow up --root-dir) to snapshot its files.`,
      { repositories: fresh },
    );
  }

  /** Warns once per process for `key` (a directory and a cause). */
  private noticeOnce(key: string, message: string, details?: Record<string, unknown>): void {
    if (noticed.has(key)) return;
    noticed.add(key);
    this.binding.env.warn(message, details);
  }

  private async detect(): Promise<boolean> {
    const top = await this.vcs.detect(this.rootDir).catch(() => null);
    if (top && (await this.vcs.ignores?.(this.rootDir).catch(() => false))) return false;
    if (!top) {
      this.noticeOnce(this.rootDir, `Workspace ${this.rootDir} is not a git repository (or git is not on PATH): task attempts record no vcsPointer, so time travel cannot restore files there. Run \`git init\` in it to enable snapshots.`);
      return false;
    }
    // The run records its workspace, so time travel needs nothing but the run id.
    await this.binding.store.execute(`UPDATE ${TABLES.runs} SET workspace_dir = ? WHERE run_id = ?`, [this.rootDir, this.runId]);
    return true;
  }
}

/**
 * The snapshots of a run, or undefined when the host has no VCS port or snapshots are off
 * (`RuntimeEnv.recordSnapshots === false`).
 * @example
 * const snaps = attemptSnapshotsFor(binding, "r1", process.cwd());
 */
export function attemptSnapshotsFor(binding: StoreBinding, runId: string, rootDir: string): AttemptSnapshots | undefined {
  const { vcs, recordSnapshots, cwd } = binding.env;
  return vcs && recordSnapshots !== false ? new AttemptSnapshots(binding, vcs, runId, absoluteDir(rootDir, cwd)) : undefined;
}

/**
 * `dir` made absolute against the process's working directory (the run records where its files are).
 * @example
 * absoluteDir("./repo", "/home/me"); // "/home/me/repo"
 */
export function absoluteDir(dir: string, cwd: string | undefined): string {
  const absolute = dir.startsWith("/") || dir.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(dir);
  if (absolute || !cwd) return dir;
  const rel = dir.replace(/^\.(?:[\\/]|$)/, "");
  return rel ? `${cwd.replace(/[\\/]+$/, "")}/${rel}` : cwd;
}
