/**
 * @module node/vcs
 * The VCS port on the real file system: git, and watching a workspace for changes.
 */
import type { VcsPort } from "../../core/time-travel/index.js";
import { createGitVcs, type GitVcsOptions } from "./git.js";

export { createGitVcs, type GitVcsOptions };

let shared: VcsPort | undefined;

/**
 * The process's git port, shared by its Node envs (every `createFlow`): one git shell, and a
 * workspace's first snapshot taken once for all the flows that run there (docs/time-travel.md).
 * @example
 * processVcs().prepare?.(process.cwd()); // the first snapshot starts now, before any run asks
 */
export function processVcs(): VcsPort {
  return (shared ??= createGitVcs());
}
