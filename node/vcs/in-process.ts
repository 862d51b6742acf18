/**
 * @module node/vcs/in-process
 * What a snapshot writes from Node rather than through git (docs/time-travel.md "When a snapshot
 * is taken"): edited files added to the private index (node/vcs/index-edit.ts), and the tree,
 * commit and ref written from it (node/vcs/objects.ts).
 * Each says where git's own commands must do the work instead (undefined or false).
 */
import { closeSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { addEdited, indexStamp, keepCacheTree } from "./index-edit.js";
import { gitlinks, type IndexFile, readIndex } from "./index-format.js";
import { type ObjectStore, treeOf, writeCommit, writeRef } from "./objects.js";
import type { Workspace } from "./workspace.js";

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

/** An index file as it was read, with what identifies that version of the file (git replaces the file to change it). */
export interface ReadIndex {
  index: IndexFile;
  stamp: string;
}

/**
 * The index file parsed, read while git may still be working on it: `commitInProcess` uses it
 * only while the file is still the one read (`stamp`). Undefined where it cannot be read or
 * parsed (git's commands decide then).
 */
export function readIndexEarly(indexFile: string): ReadIndex | undefined {
  try {
    const fd = openSync(indexFile, "r");
    try {
      const stamp = indexStamp(fstatSync(fd, { bigint: true }));
      return { index: readIndex(readFileSync(fd)), stamp };
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}


/**
 * The tree, commit and ref of a snapshot written in process from the private index (`known`: its
 * tree id, or the index as read before, used while the file is unchanged); undefined where git's
 * commands must write them (node/vcs/objects.ts `Unsupported`, or anything else that went wrong
 * there: git then says what).
 */
export function commitInProcess(ws: Workspace, store: ObjectStore, ref: string | undefined, message: string, known?: string | ReadIndex): [string, string] | undefined {
  try {
    const tree = typeof known === "string" ? known : treeOfIndex(ws, store, known);
    const commit = ws.last?.tree === tree ? ws.last.commit : writeCommit(store, tree, message);
    if (ref !== undefined) writeRef(store, ref, commit);
    return [tree, commit];
  } catch {
    return undefined;
  }
}

/** Directories hashed by one snapshot from which their trees are written back into the private index (an index of 10,000 entries is about 1 MB to write). */
const KEEP_TREES_FROM = 16;

/**
 * The tree of the private index (`early`: as read while git worked, used while the file is still
 * that one). Where many directories had to be hashed (a first snapshot, or edits across the tree
 * since the cached trees were last written), their trees are written back into the index. The
 * repositories it holds are noted in `ws.repositories`.
 */
function treeOfIndex(ws: Workspace, store: ObjectStore, early: ReadIndex | undefined): string {
  const indexFile = ws.indexFile;
  const stamp = () => indexStamp(statSync(indexFile, { bigint: true }));
  const read = early && stamp() === early.stamp ? early : readIndexEarly(indexFile);
  if (!read) throw new Error(`${indexFile} could not be read`);
  const { tree, hashed } = treeOf(store, read.index);
  if (hashed >= KEEP_TREES_FROM) keepCacheTree(indexFile, read.index, () => stamp() === read.stamp);
  ws.repositories = gitlinks(read.index.entries, ws.prefix);
  return tree;
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
