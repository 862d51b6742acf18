/**
 * @module browser/vcs/isomorphic-git
 * The VCS port over isomorphic-git, for the offline app (a repository in the browser's file
 * system, such as LightningFS) and any host without a `git` executable. Snapshots are the
 * same commits on the same `refs/flow/...` refs as the Node port's (node/vcs/git.ts), written
 * straight into the object store (blobs, trees, a commit, a ref): the user's branch, HEAD and
 * index are never touched. Ignored files and the workspace's `.flow/` are left out; only the
 * workspace directory is snapshotted, restored and diffed.
 */
import * as git from "isomorphic-git";
import type { PromiseFsClient } from "isomorphic-git";
import { FlowError } from "../../core/errors.js";
import type { VcsFileChange, VcsPort, VcsSnapshotRef } from "../../core/time-travel/index.js";

/** A file of a tree: its blob id and git mode (`100644`, `100755`, `120000`). */
interface Entry {
  oid: string;
  mode: string;
}

interface Workspace {
  root: string;
  /** The workspace relative to `root`, `/`-terminated, or "" for the whole repository. */
  prefix: string;
}

type Fs = PromiseFsClient["promises"];

const join = (a: string, b: string) => (a ? `${a.replace(/\/+$/, "")}/${b}` : b);
const parentOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
const AUTHOR = { name: "Flow", email: "flow@localhost", timezoneOffset: 0 };

/**
 * A VCS port over isomorphic-git and a promise-based file system (LightningFS in the
 * browser, `node:fs` in Node).
 * @example
 * import LightningFS from "@isomorphic-git/lightning-fs";
 * const vcs = createIsomorphicGitVcs({ fs: new LightningFS("flow") });
 * const env = createDefaultEnv({ vcs }); // then time travel works in the browser
 */
export function createIsomorphicGitVcs(options: { fs: PromiseFsClient }): VcsPort {
  const client = options.fs;
  const fs: Fs = client.promises;
  const workspaces = new Map<string, Promise<Workspace | null>>();
  /**
   * Blob ids by path with the (mode, size, mtime) they were hashed at, so a snapshot rehashes
   * only what changed. An entry is trusted only for a file last modified a second before it was
   * hashed (a write in the same instant could keep size and mtime: git's "racy clean" case).
   */
  const hashed = new Map<string, { key: string; oid: string; stored: boolean; at: number }>();

  const open = (dir: string): Promise<Workspace | null> => {
    let found = workspaces.get(dir);
    if (!found) {
      found = git.findRoot({ fs: client, filepath: dir }).then(
        (root) => ({ root, prefix: dir === root ? "" : `${dir.slice(root.length).replace(/^\/+/, "")}/` }),
        () => null,
      );
      workspaces.set(dir, found);
    }
    return found;
  };
  const required = async (dir: string): Promise<Workspace> => {
    const ws = await open(dir);
    if (!ws) throw new FlowError("VCS_FAILED", `${dir} is not inside a git repository; initialize one there (git.init) to enable snapshots.`, { dir });
    return ws;
  };

  /** The workspace's files as path -> entry (paths relative to the repository root); blobs written when `write`. */
  async function workingTree(ws: Workspace, write: boolean): Promise<Map<string, Entry>> {
    const files = new Map<string, Entry>();
    const walk = async (rel: string): Promise<void> => {
      for (const name of (await fs.readdir(join(ws.root, rel))) as string[]) {
        const path = join(rel, name);
        if (name === ".git" || path === `${ws.prefix}.flow`) continue;
        const stat = await fs.lstat(join(ws.root, path));
        if (stat.isDirectory()) {
          if (!(await git.isIgnored({ fs: client, dir: ws.root, filepath: path }))) await walk(path);
          continue;
        }
        if (await git.isIgnored({ fs: client, dir: ws.root, filepath: path })) continue;
        const link = stat.isSymbolicLink();
        const mode = link ? "120000" : stat.mode & 0o111 ? "100755" : "100644";
        const key = `${mode}:${stat.size}:${stat.mtimeMs}`;
        const known = hashed.get(path);
        if (known?.key === key && stat.mtimeMs < known.at - 1000 && (known.stored || !write)) {
          files.set(path, { oid: known.oid, mode });
          continue;
        }
        const content = link ? new TextEncoder().encode(String(await fs.readlink!(join(ws.root, path)))) : ((await fs.readFile(join(ws.root, path))) as Uint8Array);
        const oid = write ? await git.writeBlob({ fs: client, dir: ws.root, blob: content }) : (await git.hashBlob({ object: content })).oid;
        hashed.set(path, { key, oid, stored: write, at: Date.now() });
        files.set(path, { oid, mode });
      }
    };
    await walk(ws.prefix.replace(/\/$/, ""));
    return files;
  }

  /** Writes nested tree objects for `files`; returns the root tree id. */
  async function writeTrees(ws: Workspace, files: Map<string, Entry>): Promise<string> {
    interface Dir {
      blobs: Array<{ mode: string; path: string; oid: string; type: "blob" }>;
      dirs: Map<string, Dir>;
    }
    const root: Dir = { blobs: [], dirs: new Map() };
    for (const [path, entry] of files) {
      const parts = path.split("/");
      let d = root;
      for (const part of parts.slice(0, -1)) {
        if (!d.dirs.has(part)) d.dirs.set(part, { blobs: [], dirs: new Map() });
        d = d.dirs.get(part)!;
      }
      d.blobs.push({ mode: entry.mode, path: parts[parts.length - 1]!, oid: entry.oid, type: "blob" });
    }
    const write = async (d: Dir): Promise<string> => {
      const trees = await Promise.all([...d.dirs].map(async ([path, sub]) => ({ mode: "040000", path, oid: await write(sub), type: "tree" as const })));
      return git.writeTree({ fs: client, dir: ws.root, tree: [...d.blobs, ...trees] });
    };
    return write(root);
  }

  /** The files of a snapshot under the workspace. */
  async function snapshotTree(ws: Workspace, pointer: string): Promise<Map<string, Entry>> {
    let tree: string;
    try {
      tree = (await git.readCommit({ fs: client, dir: ws.root, oid: pointer })).commit.tree;
    } catch (cause) {
      throw new FlowError("VCS_FAILED", `Snapshot ${pointer} does not exist in ${ws.root}.`, { dir: ws.root, pointer }, { cause });
    }
    const files = new Map<string, Entry>();
    const walk = async (oid: string, rel: string): Promise<void> => {
      for (const e of (await git.readTree({ fs: client, dir: ws.root, oid })).tree) {
        const path = join(rel, e.path);
        if (e.type === "tree") {
          if (ws.prefix.startsWith(`${path}/`) || path.startsWith(ws.prefix)) await walk(e.oid, path);
        } else if (e.type === "blob" && path.startsWith(ws.prefix)) files.set(path, { oid: e.oid, mode: e.mode });
      }
    };
    await walk(tree, "");
    return files;
  }

  function compare(from: Map<string, Entry>, to: Map<string, Entry>): VcsFileChange[] {
    const changes: VcsFileChange[] = [];
    for (const [path, a] of from) {
      const b = to.get(path);
      if (!b) changes.push({ path, status: "deleted", oldMode: a.mode });
      else if (a.oid !== b.oid || a.mode !== b.mode) changes.push({ path, status: "modified", oldMode: a.mode, newMode: b.mode });
    }
    for (const [path, b] of to) if (!from.has(path)) changes.push({ path, status: "added", newMode: b.mode });
    return changes.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  }

  async function removeDirIfEmpty(ws: Workspace, rel: string): Promise<void> {
    for (let d = rel; d && `${d}/` !== ws.prefix && d.length >= ws.prefix.length; d = parentOf(d)) {
      try {
        if (((await fs.readdir(join(ws.root, d))) as string[]).length) return;
        await fs.rmdir(join(ws.root, d));
      } catch {
        return;
      }
    }
  }

  async function writeEntry(ws: Workspace, path: string, entry: Entry): Promise<void> {
    const abs = join(ws.root, path);
    const existing = await fs.lstat(abs).catch(() => null);
    if (existing?.isDirectory()) await removeTree(abs);
    else if (existing) await fs.unlink(abs);
    for (let d = parentOf(path), missing: string[] = []; ; d = parentOf(d)) {
      if (!d || (await fs.lstat(join(ws.root, d)).catch(() => null))) {
        for (const m of missing.reverse()) await fs.mkdir(join(ws.root, m));
        break;
      }
      missing.push(d);
    }
    const { blob } = await git.readBlob({ fs: client, dir: ws.root, oid: entry.oid });
    if (entry.mode === "120000") return void (await fs.symlink!(new TextDecoder().decode(blob), abs));
    const mode = entry.mode === "100755" ? 0o755 : 0o644;
    await fs.writeFile(abs, blob, { mode });
    await fs.chmod?.(abs, mode);
  }

  async function removeTree(abs: string): Promise<void> {
    for (const name of (await fs.readdir(abs)) as string[]) {
      const child = join(abs, name);
      if ((await fs.lstat(child)).isDirectory()) await removeTree(child);
      else await fs.unlink(child);
    }
    await fs.rmdir(abs);
  }

  return {
    async detect(dir) {
      return (await open(dir))?.root ?? null;
    },

    async snapshot(dir, ref, message = "flow snapshot") {
      const ws = await required(dir);
      const tree = await writeTrees(ws, await workingTree(ws, true));
      const author = { ...AUTHOR, timestamp: Math.floor(Date.now() / 1000) };
      const commit = await git.writeCommit({ fs: client, dir: ws.root, commit: { message: `${message}\n`, tree, parent: [], author, committer: author } });
      await git.writeRef({ fs: client, dir: ws.root, ref, value: commit, force: true });
      return commit;
    },

    async restore(dir, pointer) {
      const ws = await required(dir);
      const target = await snapshotTree(ws, pointer);
      const changes = compare(await workingTree(ws, false), target);
      for (const c of changes.filter((c) => c.status === "deleted")) {
        await fs.unlink(join(ws.root, c.path));
        await removeDirIfEmpty(ws, parentOf(c.path));
      }
      const written = changes.filter((c) => c.status !== "deleted");
      for (const c of written) await writeEntry(ws, c.path, target.get(c.path)!);
      hashed.clear();
      return { changed: written.length, deleted: changes.length - written.length };
    },

    async diff(dir, from, to) {
      const ws = await required(dir);
      return compare(await snapshotTree(ws, from), to === undefined ? await workingTree(ws, false) : await snapshotTree(ws, to));
    },

    async list(dir, prefix) {
      const ws = await required(dir);
      const base = prefix.replace(/\/+$/, "");
      const names = await git.listRefs({ fs: client, dir: ws.root, filepath: base }).catch(() => [] as string[]);
      return Promise.all(names.map(async (name): Promise<VcsSnapshotRef> => ({ ref: `${base}/${name}`, pointer: await git.resolveRef({ fs: client, dir: ws.root, ref: `${base}/${name}` }) })));
    },

    async remove(dir, prefix) {
      const ws = await required(dir);
      const refs = await this.list(dir, prefix);
      for (const r of refs) await git.deleteRef({ fs: client, dir: ws.root, ref: r.ref });
      return refs.length;
    },
  };
}
