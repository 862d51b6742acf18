/**
 * @module node/vcs/index-format
 * Git's index file as node/vcs/objects.ts and node/vcs/index-edit.ts read and write it (git's
 * Documentation/gitformat-index.txt): versions 2 and 3, entries as offsets into the file's
 * bytes (no object per entry: an index has 10,000s), the cached trees (`TREE`), and the trailing
 * checksum. Anything else git may have written that these modules would get wrong throws
 * `Unsupported`: the caller then lets git's own commands do the work.
 */
import { createHash } from "node:crypto";

/** What git would do differently from these modules: the caller falls back to git's commands. */
export class Unsupported extends Error {}

/** An entry's fields, as byte offsets from where its path starts. */
export const AT = { ctime: -62, mtime: -54, dev: -46, ino: -42, mode: -38, uid: -34, gid: -30, size: -26, id: -22, flags: -2 } as const;

export interface CacheTree {
  /** The tree id, or undefined when the entry is invalid (its directory changed since `write-tree`). */
  id: string | undefined;
  /** Index entries under the directory (-1 when invalid). */
  count: number;
  children: Map<string, CacheTree>;
}

/** An index's entries as offsets into its bytes. */
export interface Entries {
  buf: Buffer;
  count: number;
  /** Where each entry's path starts and ends (its fields are before it: `AT`). */
  pathAt: Uint32Array;
  pathEnd: Uint32Array;
}

/** A parsed index: its entries, cached trees, and where its extensions start. */
export interface IndexFile {
  entries: Entries;
  cacheTree: CacheTree | undefined;
  /** Offset of the first extension (the end of the entries). */
  extensionsAt: number;
}

/** The entries and cache tree of an index file's bytes. */
export function readIndex(buf: Buffer): IndexFile {
  const { entries, extensionsAt } = readEntries(buf);
  const tree = extensions(entries.buf, extensionsAt).find((e) => e.signature === "TREE");
  return { entries, cacheTree: tree && readCacheTree(tree.body), extensionsAt };
}

/**
 * The entries of an index file's bytes, and where its extensions start: what is tracked,
 * without the cached trees. A split index (`link`) or a sparse one (`sdir`) holds only part of
 * its entries here: Unsupported. A version 4 index is read as its version 2 form (`asVersion2`:
 * `entries.buf` is then that form).
 */
export function readEntries(buf: Buffer): { entries: Entries; extensionsAt: number } {
  if (buf.toString("latin1", 0, 4) !== "DIRC") throw new Unsupported("not an index");
  const version = buf.readUInt32BE(4);
  if (version === 4) return readEntries(asVersion2(buf));
  if (version !== 2 && version !== 3) throw new Unsupported(`index version ${version}`);
  const count = buf.readUInt32BE(8);
  const pathAt = new Uint32Array(count);
  const pathEnd = new Uint32Array(count);
  let at = 12;
  for (let n = 0; n < count; n++) {
    // Extended flags (intent-to-add, skip-worktree) and conflict stages: write-tree's own rules.
    // Bytes read directly: `readUInt16BE` per entry was a third of this loop's time in a new
    // process, where it runs before it is optimized (at every run's first snapshot).
    const flags = (buf[at + 60]! << 8) | buf[at + 61]!;
    if (flags & 0x7000) throw new Unsupported("extended or conflicted entry");
    const end = (flags & 0xfff) < 0xfff ? at + 62 + (flags & 0xfff) : buf.indexOf(0, at + 62);
    pathAt[n] = at + 62;
    pathEnd[n] = end;
    // Each entry is padded with 1-8 NULs to a multiple of 8 bytes from its own start.
    at += (62 + (end - at - 62) + 8) & ~7;
  }
  const found = extensions(buf, at);
  for (const { signature } of found) if (signature === "link" || signature === "sdir") throw new Unsupported(`index extension ${signature}`);
  // Read as a SHA-1 repository's: a SHA-256 one's entries and checksum are longer, and end elsewhere.
  if (endOf(found, at) !== buf.length - 20) throw new Unsupported("not a SHA-1 index");
  return { entries: { buf, count, pathAt, pathEnd }, extensionsAt: at };
}

/**
 * A version 4 index (git's `feature.manyFiles`: each path stored as what it keeps of the one
 * before, a varint, and the rest) as version 2, which git keeps writing once an index is in it:
 * the same entries, paths whole and padded, the same extensions, and git's SHA-1 checksum (or
 * none, where the index had none: `index.skipHash`). Unsupported where the bytes are not a
 * SHA-1 repository's index of that form (an entry's name length that does not match its path,
 * extended flags, extensions that do not end at the checksum).
 * @example
 * writeFileSync(privateIndex, asVersion2(readFileSync(".git/index")));
 */
export function asVersion2(buf: Buffer): Buffer {
  const count = buf.readUInt32BE(8);
  // First where each entry and its path's parts are, then one buffer written: a buffer per
  // entry took 30 ms for 10,000.
  const entryAt = new Uint32Array(count);
  const suffixAt = new Uint32Array(count);
  const suffixEnd = new Uint32Array(count);
  const kept = new Uint32Array(count);
  let at = 12;
  let size = 12;
  let previous = 0;
  for (let n = 0; n < count; n++) {
    if (at + 63 > buf.length) throw new Unsupported("index version 4: truncated");
    const flags = buf.readUInt16BE(at + 60);
    if (flags & 0x4000) throw new Unsupported("index version 4: extended entry");
    // git's varint (varint.c): how many bytes of the previous path to drop.
    let i = at + 62;
    let c = buf[i++]!;
    let drop = c & 127;
    while (c & 128) {
      c = buf[i++]!;
      drop = ((drop + 1) << 7) | (c & 127);
    }
    const nul = buf.indexOf(0, i);
    if (nul < 0 || drop > previous) throw new Unsupported("index version 4: bad path");
    const length = previous - drop + nul - i;
    if ((flags & 0xfff) !== Math.min(length, 0xfff)) throw new Unsupported("index version 4: name length");
    entryAt[n] = at;
    suffixAt[n] = i;
    suffixEnd[n] = nul;
    kept[n] = previous - drop;
    size += (62 + length + 8) & ~7;
    previous = length;
    at = nul + 1;
  }
  const ends = endOf(extensions(buf, at), at);
  if (ends !== buf.length - 20) throw new Unsupported("index version 4: extensions");
  const out = Buffer.alloc(size + (ends - at) + 20);
  buf.copy(out, 0, 0, 12);
  out.writeUInt32BE(2, 4);
  let o = 12;
  let previousAt = 0;
  for (let n = 0; n < count; n++) {
    buf.copy(out, o, entryAt[n]!, entryAt[n]! + 62);
    out.copy(out, o + 62, previousAt, previousAt + kept[n]!);
    buf.copy(out, o + 62 + kept[n]!, suffixAt[n]!, suffixEnd[n]!);
    const length = kept[n]! + suffixEnd[n]! - suffixAt[n]!;
    previousAt = o + 62;
    o += (62 + length + 8) & ~7;
  }
  buf.copy(out, o, at, ends);
  // No checksum where the index had none (`index.skipHash`).
  if (!buf.subarray(ends).every((b) => b === 0)) createHash("sha1").update(out.subarray(0, out.length - 20)).digest().copy(out, out.length - 20);
  return out;
}

/** Where extensions that start at `at` end. */
const endOf = (found: Array<{ body: Buffer }>, at: number) => found.reduce((end, e) => end + 8 + e.body.length, at);

/** The extensions from `at` to the checksum. */
export function extensions(buf: Buffer, at: number): Array<{ signature: string; body: Buffer }> {
  const found: Array<{ signature: string; body: Buffer }> = [];
  const stop = buf.length - 20;
  while (at + 8 <= stop) {
    const size = buf.readUInt32BE(at + 4);
    found.push({ signature: buf.toString("latin1", at, at + 4), body: buf.subarray(at + 8, at + 8 + size) });
    at += 8 + size;
  }
  return found;
}

/** The position of the entry named `path` (its bytes), or -1. Entries are sorted by path, byte by byte. */
export function findEntry(entries: Entries, path: Buffer): number {
  const at = firstEntryFrom(entries, path);
  return at < entries.count && pathOf(entries, at).equals(path) ? at : -1;
}

/** Whether an entry's path starts with `prefix` (its bytes; a directory ends with `/`). */
export function hasEntryUnder(entries: Entries, prefix: Buffer): boolean {
  const at = firstEntryFrom(entries, prefix);
  const start = entries.pathAt[at]!;
  return at < entries.count && entries.pathEnd[at]! - start >= prefix.length && entries.buf.compare(prefix, 0, prefix.length, start, start + prefix.length) === 0;
}

/** The position of the first entry whose path is `path` or sorts after it (`count` if none). */
function firstEntryFrom(entries: Entries, path: Buffer): number {
  let low = 0;
  let high = entries.count;
  while (low < high) {
    const mid = (low + high) >>> 1;
    // In place: a sub-array per step was most of a look-up's time (the watch makes one per directory).
    if (entries.buf.compare(path, 0, path.length, entries.pathAt[mid]!, entries.pathEnd[mid]!) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

const pathOf = (entries: Entries, n: number) => entries.buf.subarray(entries.pathAt[n]!, entries.pathEnd[n]!);

/** The type bits of git's mode of a commit entry (a "gitlink": a submodule, or a repository inside the tree, mode 0o160000), as the third byte of the mode holds them. */
const GITLINK_TYPE = 0o160000 >> 8;

/**
 * The paths of the gitlink entries under `prefix` (a workspace's, `/`-terminated; "" for all),
 * relative to it: repositories of their own inside the tree, which git records as the commit
 * their HEAD is at, not their files.
 * @example
 * gitlinks(readIndex(readFileSync(indexFile)).entries); // ["pkg/deps/lib"]
 * gitlinks(readIndex(readFileSync(indexFile)).entries, "pkg/"); // ["deps/lib"]
 */
export function gitlinks(entries: Entries, prefix = ""): string[] {
  const found: string[] = [];
  for (let n = 0; n < entries.count; n++) {
    // The mode's object type is the high half of its third byte (big-endian 32 bits): read
    // directly, as in `readEntries`.
    if ((entries.buf[entries.pathAt[n]! + AT.mode + 2]! & 0xf0) !== GITLINK_TYPE) continue;
    const path = pathOf(entries, n).toString("utf8");
    if (path.startsWith(prefix)) found.push(path.slice(prefix.length));
  }
  return found;
}

/**
 * The paths (as strings) of the entries of `a` that `b` has not; both sorted as git sorts them.
 * @example
 * entriesMissingFrom(privateIndex, userIndex); // ["build/out.js"]: tracked only by the private index
 */
export function entriesMissingFrom(a: Entries, b: Entries): string[] {
  // The same records (an index seeded from the other and not rewritten since): one comparison.
  const end = (e: Entries) => (e.count ? e.pathAt[e.count - 1]! + ((e.pathEnd[e.count - 1]! - e.pathAt[e.count - 1]! + 70) & ~7) - 62 : 12);
  if (a.count === b.count && a.buf.compare(b.buf, 12, end(b), 12, end(a)) === 0) return [];
  const missing: string[] = [];
  const x = a.buf;
  const y = b.buf;
  let j = 0;
  // One loop, bytes compared by hand: a `Buffer#compare` per entry was most of the time (7-10 ms
  // for 10,000 entries in a new process, before the code is optimized).
  for (let i = 0; i < a.count; i++) {
    const xStart = a.pathAt[i]!;
    const xEnd = a.pathEnd[i]!;
    let order = 1;
    // Past the entries of `b` that sort before this one.
    for (; j < b.count; j++) {
      let xAt = xStart;
      let yAt = b.pathAt[j]!;
      const yEnd = b.pathEnd[j]!;
      while (xAt < xEnd && yAt < yEnd && x[xAt] === y[yAt]) {
        xAt++;
        yAt++;
      }
      order = xAt < xEnd && yAt < yEnd ? x[xAt]! - y[yAt]! : xEnd - xAt - (yEnd - yAt);
      if (order <= 0) break;
    }
    if (order !== 0) missing.push(x.toString("utf8", xStart, xEnd));
  }
  return missing;
}

/** The `TREE` extension: `<name>\0<entry count> <subtree count>\n[<id>]` per directory, depth first. */
function readCacheTree(buf: Buffer): CacheTree | undefined {
  let at = 0;
  // By hand: a large tree has thousands of directories, and a split of each line was most of reading it.
  const int = (): number => {
    const negative = buf[at] === 0x2d;
    if (negative) at++;
    let n = 0;
    for (let c = buf[at]!; c >= 0x30 && c <= 0x39; c = buf[++at]!) n = n * 10 + c - 0x30;
    at++; // the space or newline after it
    return negative ? -n : n;
  };
  const node = (): CacheTree & { name: string } => {
    const nul = buf.indexOf(0, at);
    const name = buf.toString("latin1", at, nul);
    at = nul + 1;
    const count = int();
    const subtrees = int();
    let id: string | undefined;
    if (count >= 0) {
      id = buf.toString("hex", at, at + 20);
      at += 20;
    }
    const children = new Map<string, CacheTree>();
    for (let s = 0; s < subtrees; s++) {
      const child = node();
      children.set(child.name, child);
    }
    return { name, id, count, children };
  };
  return buf.length ? node() : undefined;
}

/** The `TREE` extension's body for `tree` (the inverse of readCacheTree). */
export function cacheTreeBytes(tree: CacheTree): Buffer {
  // Measured, then written into one buffer: a large tree has thousands of directories, and a
  // buffer per line, joined, was most of an edit snapshot's time there.
  const header = (name: string, node: CacheTree) => `${name}\0${node.id === undefined ? -1 : node.count} ${node.children.size}\n`;
  const size = (name: string, node: CacheTree): number => {
    let n = header(name, node).length + (node.id === undefined ? 0 : 20);
    for (const [childName, child] of node.children) n += size(childName, child);
    return n;
  };
  const out = Buffer.allocUnsafe(size("", tree));
  let at = 0;
  const write = (name: string, node: CacheTree) => {
    at += out.write(header(name, node), at, "latin1");
    if (node.id !== undefined) at += out.write(node.id, at, "hex");
    for (const [childName, child] of node.children) write(childName, child);
  };
  write("", tree);
  return out;
}

/** Marks the cached trees of `path`'s directories (the top included) as changed. */
export function invalidate(tree: CacheTree, path: string): void {
  // Named by their bytes, as read (`readCacheTree`): a name that is not ASCII is its UTF-8 in latin1.
  const dirs = Buffer.from(path).toString("latin1").split("/").slice(0, -1);
  let node: CacheTree | undefined = tree;
  for (let i = 0; node; i++) {
    node.id = undefined;
    node.count = -1;
    node = i < dirs.length ? node.children.get(dirs[i]!) : undefined;
  }
}

/** `body` with git's trailing SHA-1 of it appended: a whole index file. */
export function withChecksum(body: Buffer): Buffer {
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}
