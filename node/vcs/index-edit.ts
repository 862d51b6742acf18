/**
 * @module node/vcs/index-edit
 * An editing snapshot without a git process (docs/time-travel.md "When a snapshot is taken").
 * Where every path the watch named since the private index last matched the working tree is a
 * tracked regular file edited in place (what the `write` and `edit` tools, and most agents, do),
 * or a file gone that the index never had (those tools' temporary files), Node does what
 * `git add` would: each file becomes a loose blob, its entry gets the blob's id and the file's
 * stat data, the cached trees above it are marked changed, and the index is written as git
 * writes it (`<index>.lock`, renamed over the index). Everything else throws `Unsupported`
 * (a new, deleted or replaced path, a mode change, a symlink, attributes that could filter
 * the content, an index form or extension this does not write, a lock held), and git's `add`
 * does it as before.
 *
 * The written entries are "smudged" (size 0), as git does for an entry that may have changed
 * within its timestamp's granularity: git compares their content the next time it looks
 * instead of trusting their stat data.
 *
 * The index this process wrote last is kept, parsed, while its file is still the one written
 * (`indexStamp`): the next edit starts from it instead of reading and parsing the file again
 * (a tree of 25,000 directories: 10 ms of each edit).
 */
import { type BigIntStats, closeSync, existsSync, lstatSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { AT, cacheTreeBytes, type CacheTree, extensions, findEntry, hasEntryUnder, type IndexFile, invalidate, readIndex, Unsupported, withChecksum } from "./index-format.js";
import { type ObjectStore, treeOf, writeBlob } from "./objects.js";

/** Extensions kept as they are: the untracked cache (entries' contents do not enter it) and resolve-undo. */
const KEPT = new Set(["TREE", "UNTR", "REUC"]);
/** Files above this are left to git (it streams large files into packs). */
const MAX_BYTES = 32 << 20;

/** The index this process wrote last, as written, and its file's stamp then. */
let lastWritten: { file: string; stamp: string; index: IndexFile } | undefined;

/**
 * What identifies one version of a file: git replaces an index to change it (a new inode), and
 * any write moves its times.
 * @example
 * indexStamp(statSync(indexFile, { bigint: true })); // "1234:803061:1764280000000000000:1764280000000000000"
 */
export function indexStamp(s: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** The index last written to `file` where the file is still that version; the caller owns it (it is not kept twice). */
function takeWritten(file: string): IndexFile | undefined {
  const last = lastWritten;
  lastWritten = undefined;
  if (last?.file !== file) return undefined;
  const now = statSync(file, { bigint: true, throwIfNoEntry: false });
  return now && indexStamp(now) === last.stamp ? last.index : undefined;
}

/** Where the edited files and the private index are. */
export interface EditedWorkspace {
  /** The repository's work tree. */
  top: string;
  /** The private index. */
  indexFile: string;
  /** The repository's common git directory (`info/attributes`, `config`). */
  commonDir: string;
}

/**
 * Brings the private index up to date for `paths` (relative to the repository's top) without
 * git, and returns the tree of the index after it.
 * @example
 * const tree = addEdited(store, { top: "/repo", indexFile: "/repo/.git/flow/index-abc", commonDir: "/repo/.git" }, ["src/a.ts"]);
 */
export function addEdited(store: ObjectStore, ws: EditedWorkspace, paths: string[]): string {
  if (attributesOutsideTheTree(ws.commonDir)) throw new Unsupported("attributes or includes in git's configuration");
  const index = takeWritten(ws.indexFile) ?? readIndex(Buffer.from(readFileSync(ws.indexFile)));
  const { buf } = index.entries;
  const found = extensions(buf, index.extensionsAt);
  if (found.some((e) => !KEPT.has(e.signature))) throw new Unsupported("index extension");
  const cacheTree: CacheTree | undefined = index.cacheTree;
  let updated = 0;
  for (const path of paths) {
    if (path.endsWith("/") || /(^|\/)\.git(attributes|ignore|modules)$/.test(path)) throw new Unsupported(`path ${path}`);
    const n = findEntry(index.entries, Buffer.from(path));
    const file = join(ws.top, path);
    const before = lstatSync(file, { bigint: true, throwIfNoEntry: false });
    if (!before) {
      // A temporary file, gone: nothing of it was ever added. Not a directory with entries under
      // it: one made and removed while git's add read the tree, whose files git took.
      if (n < 0 && !hasEntryUnder(index.entries, Buffer.from(`${path}/`))) continue;
      throw new Unsupported(`${path} deleted`);
    }
    if (n < 0 || !before.isFile() || before.size > MAX_BYTES) throw new Unsupported(`${path} is not an edited tracked file`);
    const at = index.entries.pathAt[n]!;
    const mode = before.mode & 0o100n ? 0o100755 : 0o100644;
    if (buf.readUInt16BE(at + AT.flags) & 0x8000 || buf.readUInt32BE(at + AT.mode) !== mode) throw new Unsupported(`${path}: mode or flags`);
    if (attributesAbove(ws.top, path)) throw new Unsupported(`${path}: a .gitattributes applies`);
    const content = readFileSync(file);
    const after = lstatSync(file, { bigint: true });
    if (after.mtimeNs !== before.mtimeNs || after.ctimeNs !== before.ctimeNs || after.ino !== before.ino || after.size !== BigInt(content.length)) throw new Unsupported(`${path} changed while read`);
    Buffer.from(writeBlob(store, content), "hex").copy(buf, at + AT.id);
    writeStat(buf, at, after, mode);
    if (cacheTree) invalidate(cacheTree, path);
    updated++;
  }
  if (updated === 0) return treeOf(store, index).tree; // only temporary files, gone: the index stays as it is
  // The trees first: the index is written with its cached trees valid again (as `git write-tree`
  // leaves it), so the next snapshot hashes only what changes after this one.
  const { tree } = treeOf(store, index);
  writeIndex(ws.indexFile, index);
  return tree;
}

/**
 * Writes the cached trees `treeOf` made valid into the index file `index` was read from, where
 * it is still that file (`unchanged`) and holds no extension this module does not write;
 * otherwise leaves it (a later snapshot hashes those trees again).
 * @example
 * const index = readIndex(readFileSync(indexFile));
 * const { tree } = treeOf(store, index);
 * keepCacheTree(indexFile, index, () => statSync(indexFile).mtimeMs === readAt);
 */
export function keepCacheTree(indexFile: string, index: IndexFile, unchanged: () => boolean): void {
  if (!index.cacheTree || extensions(index.entries.buf, index.extensionsAt).some((e) => !KEPT.has(e.signature)) || !unchanged()) return;
  try {
    writeIndex(indexFile, index);
  } catch {
    // held by git (its lock), or not writable: the trees are hashed again next time
  }
}

/** Writes `index` (its entries' bytes as they are now, its extensions, `cacheTree` as its `TREE`) over `file`, as git writes an index. */
function writeIndex(file: string, index: IndexFile): void {
  const { buf } = index.entries;
  const parts: Buffer[] = [buf.subarray(0, index.extensionsAt)];
  const extension = (signature: string, bytes: Buffer) => {
    const header = Buffer.alloc(8);
    header.write(signature, 0, "latin1");
    header.writeUInt32BE(bytes.length, 4);
    parts.push(header, bytes);
  };
  if (index.cacheTree) extension("TREE", cacheTreeBytes(index.cacheTree));
  for (const { signature, body } of extensions(buf, index.extensionsAt)) if (signature !== "TREE") extension(signature, body);
  const body = Buffer.concat(parts);
  // An index written without its checksum (`index.skipHash`) stays so.
  const skipHash = buf.subarray(buf.length - 20).every((b) => b === 0);
  const written = skipHash ? Buffer.concat([body, Buffer.alloc(20)]) : withChecksum(body);
  lastWritten = undefined;
  writeLocked(file, written);
  // The same entries at the same places; the extensions start where they did.
  lastWritten = { file, stamp: indexStamp(statSync(file, { bigint: true })), index: { entries: { ...index.entries, buf: written }, cacheTree: index.cacheTree, extensionsAt: index.extensionsAt } };
}

/** The entry's stat data from `st`, as git's fill_stat_cache_info stores it (32 bits each), with its size smudged. */
function writeStat(buf: Buffer, at: number, st: BigIntStats, mode: number): void {
  const u32 = (value: bigint) => Number(value & 0xffffffffn);
  const time = (offset: number, ns: bigint) => {
    buf.writeUInt32BE(u32(ns / 1_000_000_000n), at + offset);
    buf.writeUInt32BE(Number(ns % 1_000_000_000n), at + offset + 4);
  };
  time(AT.ctime, st.ctimeNs);
  time(AT.mtime, st.mtimeNs);
  buf.writeUInt32BE(u32(st.dev), at + AT.dev);
  buf.writeUInt32BE(u32(st.ino), at + AT.ino);
  buf.writeUInt32BE(mode, at + AT.mode);
  buf.writeUInt32BE(u32(st.uid), at + AT.uid);
  buf.writeUInt32BE(u32(st.gid), at + AT.gid);
  buf.writeUInt32BE(0, at + AT.size);
}

/** Writes `bytes` over `file` as git does: into `<file>.lock`, created exclusively (held: Unsupported), renamed over it. */
function writeLocked(file: string, bytes: Buffer): void {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o666);
  } catch (error) {
    throw new Unsupported(`${lock}: ${(error as Error).message}`);
  }
  try {
    writeSync(fd, bytes);
    closeSync(fd);
    renameSync(lock, file);
  } catch (error) {
    rmSync(lock, { force: true });
    throw error;
  }
}

/** Whether a `.gitattributes` in the work tree could apply to `path`: one in its directory or any above it. */
function attributesAbove(top: string, path: string): boolean {
  const dirs = path.split("/").slice(0, -1);
  for (let i = 0; i <= dirs.length; i++) if (existsSync(join(top, ...dirs.slice(0, i), ".gitattributes"))) return true;
  return false;
}

/**
 * Whether attributes may come from outside the work tree (the repository's `info/attributes`,
 * the user's or the system's attributes file), or a configuration file names another attributes
 * file or includes others. Asked at each editing snapshot (a few small files): a file added
 * during a run counts from then on.
 */
function attributesOutsideTheTree(commonDir: string): boolean {
  const xdg = process.env.XDG_CONFIG_HOME || join(homedir(), ".config");
  const files = [join(commonDir, "info", "attributes"), join(xdg, "git", "attributes"), "/etc/gitattributes"];
  const configs = [join(commonDir, "config"), process.env.GIT_CONFIG_GLOBAL ?? join(homedir(), ".gitconfig"), join(xdg, "git", "config"), process.env.GIT_CONFIG_SYSTEM ?? "/etc/gitconfig"];
  const inEnv = Object.entries(process.env).some(([key, value]) => (key.startsWith("GIT_CONFIG_KEY_") || key === "GIT_CONFIG_PARAMETERS" || key === "GIT_ATTR_SOURCE") && /attributesfile|include|GIT_ATTR_SOURCE/i.test(`${key}=${value}`));
  return inEnv || files.some((f) => existsSync(f)) || configs.some((f) => existsSync(f) && /attributesfile|\[\s*include/i.test(readFileSync(f, "latin1")));
}
