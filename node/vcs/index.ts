/**
 * @module node/vcs
 * The VCS port on the real file system: git, and watching a workspace for changes.
 */
export { createGitVcs } from "./git.js";
