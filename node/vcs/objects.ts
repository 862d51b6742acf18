/**
 * @module node/vcs/objects
 * The end of a snapshot without git processes (docs/time-travel.md "When a snapshot is taken"):
 * what `git write-tree`, `git commit-tree` and `git update-ref` do, done in Node over git's
 * stable on-disk formats, once `git add` (or node/vcs/index-edit.ts) has brought Flow's private
 * index up to date. Starting three processes from a Node process cost more than their work (each
 * reads the 10,000-entry index or starts git), so a snapshot of one edited file is now at most
 * one `git add` process.
 *
 * - `treeOf`: the tree of an index (version 2 or 3), as `write-tree` builds it: a directory
 *   whose cache-tree entry (the index's `TREE` extension) is valid keeps that tree id, the
 *   others are hashed from their entries and written as loose objects, and the cache tree is
 *   left valid throughout.
 * - `writeBlob`: a file's content as a loose blob, as `git hash-object -w` writes it.
 * - `writeCommit`: a parentless commit object, as `commit-tree <tree> -m <message>` writes it.
 * - `writeRef`: a loose ref (`<ref>.lock` created exclusively, renamed over the ref).
 *
 * Anything these do not handle the way git would throws `Unsupported` (a SHA-256 or reftable
 * repository, a split, sparse or version-4 index, a conflicted, intent-to-add or skip-worktree
 * entry, an unusual ref name): the caller then runs git's own commands, as before.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { deflateSync } from "node:zlib";
import { type CacheTree, type IndexFile, Unsupported } from "./index-format.js";

/** Where a repository keeps its objects and refs (`git rev-parse --git-path objects --git-common-dir`). */
export interface ObjectStore {
  objectsDir: string;
  commonDir: string;
  /** Object ids known to be in the store (written or verified by this process). */
  known: Set<string>;
}

/**
 * The tree id of a parsed index's entries (its valid cached trees kept), writing the trees the
 * object store lacks, and how many trees it hashed. `index.cacheTree` is then valid throughout
 * (what `git write-tree` leaves in the index): written back into the index file
 * (node/vcs/index-edit.ts `keepCacheTree`), the next snapshot hashes only the directories
 * changed since.
 * @example
 * const { tree } = treeOf(store, readIndex(readFileSync("/repo/.git/flow/index-abc")));
 */
export function treeOf(store: ObjectStore, index: IndexFile): { tree: string; hashed: number } {
  const { entries, cacheTree } = index;
  const { buf, count, pathAt, pathEnd } = entries;
  if (cacheTree?.id !== undefined) return { tree: cacheTree.id, hashed: 0 };
  let i = 0;
  let hashed = 0;
  /** Whether entry `n`'s path starts with the `length` bytes at `from` (a directory, `/`-terminated). */
  const under = (n: number, from: number, length: number) => {
    const at = pathAt[n]!;
    if (pathEnd[n]! - at <= length) return false;
    // From the end: entries of one directory share its beginning, the `/` differs first.
    for (let k = length - 1; k >= 0; k--) if (buf[at + k] !== buf[from + k]) return false;
    return true;
  };
  /** The cached tree of the directory at `buf[from, from + length)` (length 0 at the top), from entry `i` on. */
  const build = (from: number, length: number, cached: CacheTree | undefined): CacheTree & { id: string } => {
    const first = i;
    const parts: Buffer[] = [];
    const children = new Map<string, CacheTree>();
    while (i < count && (length === 0 || under(i, from, length))) {
      const at = pathAt[i]!;
      let slash = at + length;
      while (slash < pathEnd[i]! && buf[slash] !== 0x2f) slash++;
      if (slash === pathEnd[i]!) {
        parts.push(modeBytes(buf.readUInt32BE(at - 38)), buf.subarray(at + length, pathEnd[i]! + 1), buf.subarray(at - 22, at - 2));
        i++;
        continue;
      }
      const name = buf.toString("latin1", at + length, slash);
      const cachedChild = cached?.children.get(name);
      let child: CacheTree & { id: string };
      if (cachedChild?.id === undefined) child = build(at, slash + 1 - at, cachedChild);
      else {
        child = cachedChild as CacheTree & { id: string };
        while (i < count && under(i, at, slash + 1 - at)) i++;
      }
      children.set(name, child);
      parts.push(Buffer.from("40000 "), buf.subarray(at + length, slash), Buffer.of(0), Buffer.from(child.id, "hex"));
    }
    hashed++;
    return { id: writeObject(store, "tree", Buffer.concat(parts)), count: i - first, children };
  };
  const top = build(0, 0, cacheTree);
  index.cacheTree = top;
  return { tree: top.id, hashed };
}

/**
 * Writes a parentless commit of `tree` by `Flow <flow@localhost>` (what `git commit-tree tree -m message` writes); returns its id.
 * @example
 * const commit = writeCommit(store, tree, "flow snapshot");
 */
export function writeCommit(store: ObjectStore, tree: string, message: string, now = new Date()): string {
  const offset = -now.getTimezoneOffset();
  const abs = Math.abs(offset);
  const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
  const who = `Flow <flow@localhost> ${Math.floor(now.getTime() / 1000)} ${zone}`;
  return writeObject(store, "commit", Buffer.from(`tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${message}\n`));
}

/**
 * Points the loose ref `ref` (under `refs/flow/`) at `id`, as `git update-ref ref id` does.
 * @example
 * writeRef(store, "refs/flow/runs/r1/t0/0/1/end", commit);
 */
export function writeRef(store: ObjectStore, ref: string, id: string): void {
  // Names git's check-ref-format accepts, and nothing that could escape refs/flow/.
  if (!/^refs\/flow(\/[A-Za-z0-9_][A-Za-z0-9._@+=-]*)+$/.test(ref) || /\.\.|\.lock(\/|$)|\.\/|\.$|@\{/.test(ref)) throw new Unsupported(`ref name ${ref}`);
  if (existsSync(join(store.commonDir, "reftable"))) throw new Unsupported("reftable");
  const file = join(store.commonDir, ref);
  const lock = `${file}.lock`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    const fd = openSync(lock, "wx", 0o666);
    try {
      writeSync(fd, `${id}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(lock, file);
  } catch (error) {
    // Another process holds the lock, or a ref stands where a directory must be: git decides.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") rmSync(lock, { force: true });
    throw new Unsupported(`ref ${ref}: ${(error as Error).message}`);
  }
}

const MODES = new Map<number, Buffer>();
/** `<mode> ` of a tree entry (octal, no leading zero). */
function modeBytes(mode: number): Buffer {
  let bytes = MODES.get(mode);
  if (!bytes) MODES.set(mode, (bytes = Buffer.from(`${mode.toString(8)} `)));
  return bytes;
}

/**
 * Writes `content` as a loose blob unless the store has it (what `git hash-object -w` does for a
 * file no filter applies to); returns its id.
 * @example
 * const id = writeBlob(store, readFileSync("/repo/README.md"));
 */
export function writeBlob(store: ObjectStore, content: Buffer): string {
  return writeObject(store, "blob", content);
}

/** Writes a loose object unless the store has it; returns its id. */
function writeObject(store: ObjectStore, type: "blob" | "tree" | "commit", body: Buffer): string {
  const raw = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const id = createHash("sha1").update(raw).digest("hex");
  if (store.known.has(id)) return id;
  const file = join(store.objectsDir, id.slice(0, 2), id.slice(2));
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    const temp = join(dirname(file), `tmp_obj_flow_${process.pid}_${id.slice(2, 10)}`);
    writeFileSync(temp, deflateSync(raw), { mode: 0o444 });
    renameSync(temp, file);
  }
  store.known.add(id);
  return id;
}
