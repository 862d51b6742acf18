/**
 * @module node/vcs/in-process
 * What a snapshot writes from Node rather than through git (docs/time-travel.md "When a snapshot
 * is taken"): the private index seeded from the user's, edited files added to it
 * (node/vcs/index-edit.ts), and the tree, commit and ref written from it (node/vcs/objects.ts).
 * Each says where git's own commands must do the work instead (undefined or false).
 */
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { addEdited } from "./index-edit.js";
import { indexTree, type ObjectStore, writeCommit, writeRef } from "./objects.js";
import type { Workspace } from "./workspace.js";

/**
 * Creates the private index from the user's: its stat data makes the first snapshot of a large
 * tree hash only the files that differ. The user's index itself is only read.
 */
export function seedIndex(ws: Pick<Workspace, "indexFile" | "gitDir">): void {
  if (existsSync(ws.indexFile)) return;
  mkdirSync(dirname(ws.indexFile), { recursive: true });
  const userIndex = join(ws.gitDir, "index");
  if (existsSync(userIndex)) copyFileSync(userIndex, ws.indexFile);
}

/**
 * The tree after the `changed` paths (relative to the workspace) were added to the private index
 * by Node (node/vcs/index-edit.ts: edited tracked files only); undefined where git's `add` must
 * do it.
 */
export function editedInProcess(ws: Workspace, store: ObjectStore, changed: string[]): string | undefined {
  try {
    return addEdited(store, { top: ws.top, indexFile: ws.indexFile, commonDir: store.commonDir }, changed.map((rel) => `${ws.prefix}${rel}`));
  } catch {
    return undefined;
  }
}

/**
 * The tree, commit and ref of a snapshot written in process from the private index; undefined
 * where git's commands must write them (node/vcs/objects.ts `Unsupported`, or anything else
 * that went wrong there: git then says what).
 */
export function commitInProcess(ws: Workspace, store: ObjectStore, ref: string | undefined, message: string, known?: string): [string, string] | undefined {
  try {
    const tree = known ?? indexTree(store, ws.indexFile);
    const commit = ws.last?.tree === tree ? ws.last.commit : writeCommit(store, tree, message);
    if (ref !== undefined) writeRef(store, ref, commit);
    return [tree, commit];
  } catch {
    return undefined;
  }
}

/** Points `ref` at `commit` in process; false where git's `update-ref` must (node/vcs/objects.ts `Unsupported`). */
export function refInProcess(store: ObjectStore, ref: string, commit: string): boolean {
  try {
    writeRef(store, ref, commit);
    return true;
  } catch {
    return false;
  }
}
