/**
 * @module node/workspace/worktree
 * `<Worktree>` on Node: a real `git worktree add` of a branch (default `flow/<runId>/<id>`,
 * started from `baseBranch` or HEAD) at `<rootDir>/.flow/worktrees/<runId>/<id>`. Preparing is
 * idempotent: a worktree already registered at that path for that branch is reused, so a run
 * resumed after a crash keeps the work its tasks left there. See docs/workspaces.md.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import type { PreparedWorkspace, WorkspaceSpec } from "../../core/engine/index.js";
import { FlowError, isFlowError } from "../../core/errors.js";
import { git, parseWorktreeList, type WorktreeEntry } from "./git.js";
import { canonical, defaultBranch, runBranchPrefix, runWorkspaceDir, samePath, workspacePath } from "./paths.js";

/**
 * Creates the worktree of `spec` (kind `worktree`), or returns it when it exists already.
 * @example
 * const { path, branch } = await prepareWorktree({ kind: "worktree", runId: "r1", id: "fix", rootDir: "/repo" });
 * // path: /repo/.flow/worktrees/r1/fix, branch: flow/r1/fix (a new branch from HEAD)
 */
export async function prepareWorktree(spec: WorkspaceSpec): Promise<PreparedWorkspace> {
  const rootDir = resolve(spec.rootDir);
  const path = workspacePath(spec);
  const branch = spec.branch ?? defaultBranch(spec.runId, spec.id);
  const details = { runId: spec.runId, id: spec.id, rootDir, path, branch };
  const commonDir = await repositoryOf(rootDir, details);
  await git(["check-ref-format", "--branch", branch], rootDir, `use "${branch}" as the branch of worktree "${spec.id}" (not a valid branch name)`, details);
  // Concurrent `git worktree add`s in one repository race on its admin files: one at a time.
  return oneAtATime(commonDir, () => addOrReuse(spec, rootDir, path, branch, details));
}

async function addOrReuse(spec: WorkspaceSpec, rootDir: string, path: string, branch: string, details: Record<string, unknown>): Promise<PreparedWorkspace> {

  const existing = (await listWorktrees(rootDir, details)).find((e) => samePath(e.path, path));
  if (existing) {
    if (existing.locked?.startsWith("initializing")) {
      // A process died inside `git worktree add`: the checkout may be partial, so redo it.
      await git(["worktree", "remove", "--force", "--force", path], rootDir, `remove the half-created worktree at ${path}`, details);
    } else if (existing.prunable || !existsSync(path)) {
      // Its directory was deleted: forget the registration and create it again.
      await git(["worktree", "prune"], rootDir, "prune stale worktrees", details);
    } else if (existing.branch === branch) {
      return { path, branch };
    } else {
      throw new FlowError(
        "WORKSPACE_FAILED",
        `Worktree "${spec.id}" of run ${spec.runId}: ${path} is already a worktree of ${existing.branch ? `branch ${existing.branch}` : "a detached HEAD"}, not of ${branch}. Remove it (git worktree remove) or give the Worktree another path.`,
        { ...details, existingBranch: existing.branch ?? null },
      );
    }
  } else if (existsSync(path) && readdirSync(path).length > 0) {
    throw new FlowError("WORKSPACE_FAILED", `Worktree "${spec.id}" of run ${spec.runId}: ${path} exists, is not empty and is not a git worktree. Remove it or give the Worktree another path.`, details);
  }

  mkdirSync(dirname(path), { recursive: true });
  const args = (await branchExists(rootDir, branch))
    ? ["worktree", "add", path, branch]
    : ["worktree", "add", "-b", branch, path, spec.baseBranch ?? "HEAD"];
  await git(args, rootDir, `create worktree "${spec.id}" of run ${spec.runId}`, details);
  return { path, branch };
}

/** What `removeRunWorktrees` removed. */
export interface RemovedWorktrees {
  /** Worktree directories removed (and unregistered from git). */
  worktrees: string[];
  /** Branches deleted (only with `deleteBranches`). */
  branches: string[];
}

export interface RemoveWorktreesOptions {
  /** Also delete the run's `flow/<runId>/*` branches (default false: the commits stay reachable). */
  deleteBranches?: boolean;
  /** Remove worktrees with uncommitted changes too (default true); false fails on a dirty one. */
  force?: boolean;
}

/**
 * Removes the worktrees of a run: those under `<rootDir>/.flow/worktrees/<runId>/` and those
 * on a `flow/<runId>/...` branch elsewhere. Never touches the main worktree. Nothing to do
 * (not a repository, no worktrees) is not an error.
 * @example
 * await removeRunWorktrees("/repo", "r1", { deleteBranches: true });
 */
export async function removeRunWorktrees(rootDir: string, runId: string, opts: RemoveWorktreesOptions = {}): Promise<RemovedWorktrees> {
  const root = canonical(rootDir);
  let top: string;
  let commonDir: string;
  try {
    const out = await git(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], root, "find the repository", { runId, rootDir: root });
    [top = "", commonDir = ""] = out.stdout.trim().split("\n");
  } catch (error) {
    if (!isFlowError(error, "WORKSPACE_FAILED")) throw error;
    rmSync(runWorkspaceDir(root, "worktree", runId), { recursive: true, force: true });
    return { worktrees: [], branches: [] };
  }
  return oneAtATime(commonDir, () => removeListed(root, runId, top, opts));
}

async function removeListed(root: string, runId: string, top: string, opts: RemoveWorktreesOptions): Promise<RemovedWorktrees> {
  const dir = runWorkspaceDir(root, "worktree", runId);
  const prefix = runBranchPrefix(runId);
  const details = { runId, rootDir: root };
  const removed: RemovedWorktrees = { worktrees: [], branches: [] };
  const mine = (e: WorktreeEntry) => !samePath(e.path, top) && (isUnder(e.path, dir) || (e.branch?.startsWith(prefix) ?? false));
  for (const entry of (await listWorktrees(root, details)).filter(mine)) {
    if (!entry.prunable && existsSync(entry.path)) {
      const force = opts.force === false ? [] : entry.locked === undefined ? ["--force"] : ["--force", "--force"];
      await git(["worktree", "remove", ...force, entry.path], root, `remove worktree ${entry.path} of run ${runId}`, details);
    }
    removed.worktrees.push(entry.path);
  }
  await git(["worktree", "prune"], root, "prune stale worktrees", details);
  rmSync(dir, { recursive: true, force: true });
  if (opts.deleteBranches) {
    const refs = await git(["for-each-ref", "--format=%(refname:short)", `refs/heads/${prefix}`], root, `list the branches of run ${runId}`, details);
    for (const name of refs.stdout.split("\n").filter(Boolean)) {
      await git(["branch", "-D", name], root, `delete branch ${name} of run ${runId}`, details);
      removed.branches.push(name);
    }
  }
  return removed;
}

/** The repository's common git directory (shared by all its worktrees); throws when there is none. */
async function repositoryOf(rootDir: string, details: Record<string, unknown>): Promise<string> {
  if (!existsSync(rootDir)) throw new FlowError("WORKSPACE_FAILED", `A Worktree needs rootDir ${rootDir} to exist and be inside a git repository; it does not exist.`, details);
  try {
    return (await git(["rev-parse", "--path-format=absolute", "--git-common-dir"], rootDir, "find the git repository", details)).stdout.trim();
  } catch (error) {
    if (!isFlowError(error)) throw error;
    const d = error.details ?? {};
    throw new FlowError(
      "WORKSPACE_FAILED",
      `A Worktree needs rootDir ${rootDir} to be inside a git repository (git init, then commit), or use a Sandbox: \`${String(d.command)}\` failed: ${String(d.stderr)}`,
      { ...details, command: d.command, stderr: d.stderr },
      { cause: error },
    );
  }
}

async function listWorktrees(rootDir: string, details: Record<string, unknown>): Promise<WorktreeEntry[]> {
  return parseWorktreeList((await git(["worktree", "list", "--porcelain"], rootDir, "list worktrees", details)).stdout);
}

async function branchExists(rootDir: string, branch: string): Promise<boolean> {
  try {
    await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], rootDir, "look up a branch");
    return true;
  } catch {
    return false;
  }
}

const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` after every earlier call with the same key has settled (a per-repository lock). */
function oneAtATime<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(key) ?? Promise.resolve()).then(fn);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, tail);
  void tail.then(() => queues.get(key) === tail && queues.delete(key));
  return run;
}

function isUnder(path: string, dir: string): boolean {
  const rel = relative(dir, canonical(path));
  return rel !== "" && !rel.startsWith("..") && !rel.startsWith(sep);
}
