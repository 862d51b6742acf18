/**
 * @module core/time-travel/snapshots
 * What the engine does for time travel on each task attempt: snapshot the run's workspace
 * when the attempt starts and when it succeeds (`vcs_start_pointer`, `vcs_pointer`), through
 * the VCS port the host injects (`RuntimeEnv.vcs`). The workspace is detected once per run;
 * when it is no repository, attempts keep null pointers and one notice per directory is
 * logged. A snapshot that fails is a warning, never a task failure.
 */
import type { StoreBinding } from "../engine/binding.js";
import type { VcsPort } from "./port.js";
import { attemptRef } from "./refs.js";

/** Directories already reported as "not a repository" in this process (one notice each). */
const noticed = new Set<string>();

/**
 * Snapshots of one run's attempts. Created by the engine per run session.
 * @example
 * const snaps = attemptSnapshotsFor(binding, runId, rootDir);
 * const start = await snaps?.take("review", 0, 1, "start");
 */
export class AttemptSnapshots {
  private detected: Promise<boolean> | undefined;

  constructor(
    private readonly binding: StoreBinding,
    private readonly vcs: VcsPort,
    private readonly runId: string,
    private readonly rootDir: string,
  ) {}

  /** Snapshots the workspace for an attempt edge; undefined when it is no repository or the snapshot failed. */
  async take(nodeId: string, iteration: number, attempt: number, edge: "start" | "end"): Promise<string | undefined> {
    if (!(await (this.detected ??= this.detect()))) return undefined;
    try {
      return await this.vcs.snapshot(this.rootDir, attemptRef(this.runId, nodeId, iteration, attempt, edge), `flow ${this.runId} ${nodeId}@${iteration} attempt ${attempt} ${edge}`);
    } catch (error) {
      this.binding.env.warn(`Run ${this.runId}: could not snapshot ${this.rootDir} at the ${edge} of "${nodeId}" attempt ${attempt}; time travel to it will not restore files.`, { error: String(error) });
      return undefined;
    }
  }

  private async detect(): Promise<boolean> {
    const top = await this.vcs.detect(this.rootDir).catch(() => null);
    if (!top) {
      if (!noticed.has(this.rootDir)) {
        noticed.add(this.rootDir);
        this.binding.env.warn(`Workspace ${this.rootDir} is not a git repository (or git is not on PATH): task attempts record no vcsPointer, so time travel cannot restore files there. Run \`git init\` in it to enable snapshots.`);
      }
      return false;
    }
    // The run records its workspace, so time travel needs nothing but the run id.
    await this.binding.store.execute(`UPDATE _flow_runs SET workspace_dir = ? WHERE run_id = ?`, [this.rootDir, this.runId]);
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
