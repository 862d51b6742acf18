/**
 * @module core/time-travel/port
 * The VCS port: what time travel needs from a version-control system. A snapshot is a commit
 * of a workspace's whole working tree (tracked and untracked files, ignored ones and Flow's
 * own `.flow/` excluded) kept on a side ref of Flow's (`refs/flow/...`), so the user's branch,
 * HEAD, index and stash never move. A port may also know, without looking at the tree, that
 * nothing changed since its last snapshot (`unchangedSince`): then an attempt costs no VCS work. Node implements it over the `git` on PATH
 * (node/vcs/git.ts), the browser over isomorphic-git (browser/vcs/isomorphic-git.ts).
 */

/**
 * One changed path between two snapshots (or a snapshot and the working tree).
 * @example
 * const change: VcsFileChange = { path: "src/a.ts", status: "modified", oldMode: "100644", newMode: "100755" };
 */
export interface VcsFileChange {
  /** Path relative to the repository root, `/`-separated. */
  path: string;
  status: "added" | "modified" | "deleted";
  /** Git file mode before (`100644`, `100755`, `120000` for a symlink); absent when added. */
  oldMode?: string;
  /** Git file mode after; absent when deleted. */
  newMode?: string;
}

/**
 * What a restore did: files rewritten or added, files deleted, and the repositories inside the
 * workspace it left as they are (`VcsPort.repositoriesIn`; absent where the port has none).
 * @example
 * const r: VcsRestored = { changed: 2, deleted: 1, repositories: ["deps/lib"] };
 */
export interface VcsRestored {
  changed: number;
  deleted: number;
  repositories?: string[];
}

/**
 * A snapshot kept on one of Flow's refs.
 * @example
 * const s: VcsSnapshotRef = { ref: "refs/flow/runs/r1/review/0/1/end", pointer: "3f2a..." };
 */
export interface VcsSnapshotRef {
  ref: string;
  /** The snapshot's commit id (what attempts record as `vcsPointer`). */
  pointer: string;
}

/**
 * What time travel needs from a version-control system. Every method takes the workspace
 * directory (a run's `rootDir`); snapshots and restores cover that directory only, even when
 * it is a sub-directory of a larger repository.
 * @example
 * const vcs: VcsPort = createGitVcs();
 * if (await vcs.detect(dir)) {
 *   const before = await vcs.snapshot(dir, "refs/flow/runs/r1/manual");
 *   await vcs.restore(dir, before);
 * }
 */
export interface VcsPort {
  /** The repository's root when `dir` is inside one this port can snapshot; null otherwise. */
  detect(dir: string): Promise<string | null>;
  /**
   * True when the repository ignores `dir` itself (a `.gitignore` lists it, or it lies inside a
   * `.flow/` folder, Flow's own store): nothing there is snapshotted, and nothing is said, as
   * git says nothing of ignored files. Optional: without it every detected workspace is snapshotted.
   */
  ignores?(dir: string): Promise<boolean>;
  /**
   * True only when the port knows that the working tree of `dir` is still exactly `pointer`, the
   * last snapshot it took there (a file watcher saw no event since); false when something
   * changed or it cannot tell. `settle`: first wait until the writes this process already made
   * are seen (at an attempt's end, whose own writes belong to its snapshot). A boolean where it
   * can answer at once (it is asked at every attempt edge), else a promise. Optional: without
   * it every attempt edge is snapshotted.
   */
  unchangedSince?(dir: string, pointer: string, opts?: { settle?: boolean }): boolean | Promise<boolean>;
  /**
   * Why the port cannot tell that `dir` is unchanged (so every attempt edge there reads the whole
   * tree), with what the user can do about it; undefined when it can, before it has looked, or
   * where nothing can be done (a system it never watches). Optional.
   */
  whyUnwatched?(dir: string): Promise<string | undefined>;
  /**
   * Starts, in the background, what the first `snapshot` of `dir` would do (watch it, commit its
   * working tree without a ref), so that the first snapshot of a run, taken when its first
   * attempt starts, finds it done: a later `snapshot` waits for it and, when nothing changed
   * since it read the tree, only names its commit. Never throws. Optional.
   */
  prepare?(dir: string): void;
  /** Commits the working tree of `dir` and points `ref` at the commit; returns its id. */
  snapshot(dir: string, ref: string, message?: string): Promise<string>;
  /**
   * Makes the working tree of `dir` exactly the snapshot `pointer`: changed and added files
   * rewritten byte for byte with their mode, files the snapshot lacks deleted (ignored files
   * and `.flow/` untouched). A repository inside `dir` (`repositoriesIn`) is left as it is,
   * whatever the snapshot holds there, and named in `repositories`. Throws when the pointer is unknown.
   */
  restore(dir: string, pointer: string): Promise<VcsRestored>;
  /**
   * The repositories of their own inside `dir` that its last snapshot holds (a submodule, or a
   * repository cloned into the workspace): git keeps each as the commit its HEAD was at, not
   * its files, so files changed in them are neither snapshotted nor restored. Paths relative to
   * `dir`, `/`-separated, sorted. Optional.
   */
  repositoriesIn?(dir: string): Promise<string[]>;
  /**
   * The repositories of their own inside `dir` that `restore(dir, pointer)` would leave as they
   * are, as it would name them (those in the working tree now and those the snapshot holds);
   * nothing in the working tree changes. For a rewind's preview. Optional.
   */
  repositoriesKeptBy?(dir: string, pointer: string): Promise<string[]>;
  /** What differs from `from` to `to` (a pointer, or the working tree when omitted), under `dir`. */
  diff(dir: string, from: string, to?: string): Promise<VcsFileChange[]>;
  /**
   * How one file (`path`, relative to `dir`, as `diff` names it) differs from snapshot `from` to
   * snapshot `to`: a unified diff in git's format (3 lines of context; "Binary files ... differ"
   * for a binary file), "" when it does not differ. Optional: a host without it shows which
   * files changed, not how.
   */
  patch?(dir: string, from: string, to: string, path: string): Promise<string>;
  /** The snapshots on refs starting with `prefix` (for example `refs/flow/runs/<run>/`). */
  list(dir: string, prefix: string): Promise<VcsSnapshotRef[]>;
  /** Deletes the refs starting with `prefix`; returns how many. The objects go at the next `git gc`. */
  remove(dir: string, prefix: string): Promise<number>;
}
