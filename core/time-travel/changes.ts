/**
 * @module core/time-travel/changes
 * A workspace change (`VcsFileChange`) read as its user reads it: a repository of its own inside
 * the workspace (a clone, a submodule) is recorded by git as a commit ("gitlink", mode 160000),
 * so a change there is its HEAD moving, not a file edited (docs/time-travel.md).
 */
import type { VcsFileChange } from "./port.js";

/** Git's mode of a repository inside the tree (a gitlink). */
export const REPOSITORY_MODE = "160000";

/**
 * Whether the change is of a repository inside the workspace, before or after.
 * @example
 * isRepositoryChange({ path: "deps/lib", status: "modified", oldMode: "160000", newMode: "160000" }); // true
 */
export function isRepositoryChange(change: VcsFileChange): boolean {
  return change.oldMode === REPOSITORY_MODE || change.newMode === REPOSITORY_MODE;
}

/**
 * What to say beside the change's path, where its status alone misleads: a repository's
 * (added, its HEAD moved, removed) or a mode change; undefined for a plain file edit.
 * @example
 * changeNote({ path: "deps/lib", status: "modified", oldMode: "160000", newMode: "160000" }); // "a git repository of its own: its HEAD moved"
 * changeNote({ path: "run.sh", status: "modified", oldMode: "100644", newMode: "100755" }); // "mode 100644 -> 100755"
 */
export function changeNote(change: VcsFileChange): string | undefined {
  const { status, oldMode, newMode } = change;
  if (oldMode !== undefined && newMode !== undefined && oldMode !== newMode) {
    if (newMode === REPOSITORY_MODE) return "now a git repository of its own: snapshots hold its commit, not its files";
    if (oldMode === REPOSITORY_MODE) return "was a git repository of its own";
    return `mode ${oldMode} -> ${newMode}`;
  }
  if (!isRepositoryChange(change)) return undefined;
  if (status === "added") return "a git repository of its own: snapshots hold its commit, not its files";
  if (status === "deleted") return "a git repository of its own, removed";
  return "a git repository of its own: its HEAD moved";
}
