/**
 * @module node/vcs/private-index
 * Whose private index a snapshot writes (docs/time-travel.md "Several processes in one
 * workspace"). Each port (`createGitVcs`) owns a file of its own per workspace,
 * `<kept>.<host>-<pid>-<n>`, beside the kept one, `<git dir>/flow/index-<workspace>`: two
 * processes in one workspace (a Gateway and a `flow up`, two scripts) never write one index.
 * Git's lock does not make sharing one safe: Node reads the index before it takes the lock to
 * write it (node/vcs/index-edit.ts), and a process that makes its index again from the user's
 * (a `.gitignore` changed) would leave the other's next `add` of a few paths a tree without the
 * untracked files.
 *
 * An owned file starts as the newest index there (the kept one, another live owner's, or one
 * whose process is gone): a hard link, since git and Node replace an index file (a new inode)
 * and never write into one, so the file linked from stays as it was. At exit it becomes the kept
 * index, so that the next process starts from its stat data and cached trees; one left by a
 * process that ended without that (killed) is taken up by the next claim. Whether a process is
 * gone is asked of this machine for its own files (`<host>`: its host name's hash); another
 * machine's (a container sharing the repository) counts as gone after a week untouched.
 */
import { createHash } from "node:crypto";
import { type BigIntStats, closeSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { asVersion2 } from "./index-format.js";

/** Another machine's index untouched this long counts as left by a process that is gone. */
const OTHER_HOST_GONE_MS = 7 * 24 * 3600_000;
const HOST = createHash("sha256").update(hostname()).digest("hex").slice(0, 8);
let owners = 0;
/** Owned file -> the kept index it becomes at exit. */
const owned = new Map<string, string>();

/**
 * A name for the private indexes of one port, unique in the machine's running processes.
 * @example
 * const owner = newIndexOwner(); // "5e1f09aa-48213-1"
 */
export function newIndexOwner(): string {
  return `${HOST}-${process.pid}-${++owners}`;
}

/**
 * The private index `owner` writes for a workspace whose kept index is `kept`.
 * @example
 * ownedIndex("/repo/.git/flow/index-3f2a9c", "5e1f09aa-48213-1"); // "/repo/.git/flow/index-3f2a9c.5e1f09aa-48213-1"
 */
export function ownedIndex(kept: string, owner: string): string {
  return `${kept}.${owner}`;
}

/**
 * Makes `file` (an `ownedIndex` of `kept`) this port's, where it is not there yet: the newest
 * index of the workspace linked to it, after the files of processes that are gone have been
 * taken up (the newest of them becomes the kept one) or removed with their locks. Nothing where
 * there is none (the first snapshot makes it from the user's index). Best effort: what fails
 * here only costs the first snapshot a longer `add`.
 * @example
 * claimIndex("/repo/.git/flow/index-3f2a9c", "/repo/.git/flow/index-3f2a9c.5e1f09aa-48213-1");
 */
export function claimIndex(kept: string, file: string): void {
  if (owned.size === 0) process.once("exit", keepOwned);
  owned.set(file, kept);
  try {
    if (!lstatSync(file, { throwIfNoEntry: false })) startFromNewest(kept, file);
  } catch {
    // `.git/flow` not readable or writable here: the first snapshot seeds the file, or says what is wrong
  }
}

/** Links `file` to the newest index of the workspace, once the files of processes that are gone are taken up or removed. */
function startFromNewest(kept: string, file: string): void {
  const live: string[] = [];
  for (const { path, host, pid, lock } of ownedFiles(kept)) {
    if (path === file || path === `${file}.lock`) continue;
    if (host === HOST ? alive(pid) : recent(path)) {
      if (!lock) live.push(path);
    } else if (lock || !takeUp(path, kept)) {
      rmSync(path, { force: true });
    }
  }
  let source: { path: string; stat: BigIntStats } | undefined;
  for (const path of [kept, ...live]) {
    const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
    if (stat?.isFile() && (!source || stat.mtimeNs > source.stat.mtimeNs)) source = { path, stat };
  }
  if (source) linkOrCopy(source.path, file);
}

/** The owned index files of `kept` in its directory (any port's, with their `.lock`s), by owner process. */
function ownedFiles(kept: string): Array<{ path: string; host: string; pid: number; lock: boolean }> {
  const prefix = `${basename(kept)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(kept));
  } catch {
    return [];
  }
  const files: Array<{ path: string; host: string; pid: number; lock: boolean }> = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^([0-9a-f]{8})-(\d+)-\d+(\.lock)?$/.exec(name.slice(prefix.length));
    if (match) files.push({ path: join(dirname(kept), name), host: match[1]!, pid: Number(match[2]), lock: match[3] !== undefined });
  }
  return files;
}

/** Whether process `pid` is running (one of another user's counts: signalling it is refused, not failed). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether another machine's file at `path` was written within OTHER_HOST_GONE_MS. */
function recent(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat !== undefined && Date.now() - stat.mtimeMs < OTHER_HOST_GONE_MS;
}

/** An index whose process is gone (or ends) becomes the kept one where it is newer; false where it is not taken (the caller removes it). */
function takeUp(path: string, kept: string): boolean {
  const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
  const current = lstatSync(kept, { bigint: true, throwIfNoEntry: false });
  if (!stat?.isFile() || (current && current.mtimeNs >= stat.mtimeNs)) return false;
  try {
    renameSync(path, kept);
    return true;
  } catch {
    return false; // another process took it up first
  }
}

/**
 * Creates this port's index from the user's where it has none (no index was kept, or it was
 * dropped to be made again): its stat data makes the first snapshot of a large tree hash only
 * the files that differ. The user's index itself is only read, and copied, not linked: tools
 * other than git may write it in place.
 * @example
 * seedIndex({ indexFile: "/repo/.git/flow/index-3f2a9c.5e1f09aa-48213-1", gitDir: "/repo/.git" });
 */
export function seedIndex(ws: { indexFile: string; gitDir: string }): void {
  if (existsSync(ws.indexFile)) return;
  mkdirSync(dirname(ws.indexFile), { recursive: true });
  const userIndex = join(ws.gitDir, "index");
  if (existsSync(userIndex)) copyDated(userIndex, ws.indexFile, inVersion2);
}

/**
 * A version 4 index (`feature.manyFiles`) as version 2, which git keeps writing once the private
 * index is in it and Node reads and edits (node/vcs/index-format.ts); else undefined: copied as it is.
 */
function inVersion2(from: string): Buffer | undefined {
  const head = Buffer.alloc(8);
  const fd = openSync(from, "r");
  try {
    if (readSync(fd, head, 0, 8, 0) < 8 || head.readUInt32BE(4) !== 4) return undefined;
    return asVersion2(readFileSync(fd));
  } catch {
    return undefined; // an index Node does not read: git's commands work with it as it is
  } finally {
    closeSync(fd);
  }
}

/** `to` as a second name of `from`, or a copy of it. */
function linkOrCopy(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    // no hard links here (or `from` went meanwhile)
    try {
      copyDated(from, to);
    } catch {
      rmSync(to, { force: true });
    }
  }
}

/**
 * A copy of the index `from` with its modification time: git hashes again an entry written in
 * the same second as its index (racily clean: its stat data cannot tell a later rewrite of the
 * same size), and a copy dated later would hide such a rewrite. The time is read first, so that
 * a file replaced in between gives the copy an older time than its content, never a newer one.
 */
function copyDated(from: string, to: string, convert?: (from: string) => Buffer | undefined): void {
  const { atime, mtime } = statSync(from);
  const converted = convert?.(from);
  if (converted) writeFileSync(to, converted);
  else copyFileSync(from, to);
  utimesSync(to, atime, mtime);
}

/** At exit: each owned index becomes its workspace's kept one where it is newer (one never written since it was linked is not), else goes. */
function keepOwned(): void {
  for (const [file, kept] of owned) {
    try {
      if (!takeUp(file, kept)) rmSync(file, { force: true });
    } catch {
      // left for the next claim to take up
    }
  }
}
