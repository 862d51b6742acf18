/**
 * @module node/vcs
 * The VCS port on the real file system: git, and watching a workspace for changes.
 */
import { createGitVcs, type GitVcs } from "./git.js";
import { hasDotGit } from "./workspace.js";

export { createGitVcs, type GitVcs };

let shared: GitVcs | undefined;

/**
 * The process's git port, shared by its Node envs (every `createFlow`): one git shell, and a
 * workspace's first snapshot taken once for all the flows that run there (docs/time-travel.md).
 * @example
 * processVcs().prepare?.(process.cwd()); // the first snapshot starts now, before any run asks
 */
export function processVcs(): GitVcs {
  return (shared ??= createGitVcs());
}

let warmed = false;

/**
 * Starts the process's git shell now (`GitVcs.warm`) when the working directory is inside a git
 * repository, where this process's runs will most likely snapshot; once per process.
 * @example
 * warmProcessVcs(); // at createFlow: the first run's snapshot then forks no grown Node process
 */
export function warmProcessVcs(): void {
  if (warmed) return;
  warmed = true;
  if (process.platform !== "win32" && hasDotGit(process.cwd())) processVcs().warm();
}
