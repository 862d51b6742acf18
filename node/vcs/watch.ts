/**
 * @module node/vcs/watch
 * Knowing that a workspace did not change without looking at it (docs/time-travel.md "When a
 * snapshot is taken"): one watch per directory under the root (inotify on Linux), each file
 * event bumps a generation counter. A snapshot remembers the generation it saw; while the
 * counter has not moved, the working tree is the snapshot's and an attempt needs no git work.
 *
 * Why per directory, not `fs.watch(root, { recursive: true })`: on Linux, Node 20 emulates the
 * recursive watch with one watcher and one `stat` per file (10,000 files, 10,000 watches); a
 * directory watch reports every change to the files in it, so a tree of 10,000 files in 100
 * folders needs 101. The root's `.flow/` (Flow's own store) and `.git` directories are not
 * watched: their writes are no change to the workspace; nor are the directories git's ignore
 * rules exclude that hold no tracked file (`IgnoredDirs`: a `node_modules` is most of a
 * JavaScript repository's directories, and git never looks inside it). Setting the watches up
 * lists only the directories that have sub-directories, where the file system's link counts say
 * which (`COUNTING_LINKS`): listing 10,000 files was most of that set-up's time.
 *
 * A repository inside the root (a submodule, a clone) is one path to a snapshot: git records the
 * commit its HEAD is at. Its HEAD can move with no file of the tree written (a commit there), so
 * where it keeps its HEAD is watched too (`watchRepositories`), and a move names its path.
 *
 * It also remembers which paths the events named (`changedSince`), so a snapshot can hand git
 * only those instead of a stat of every file (node/vcs/git.ts). A path is what an event named:
 * a file or directory created, written, chmodded, deleted or renamed (both names of a rename).
 * A directory the watch knew that is gone is named with a trailing `/`. Where a path may have
 * changed without an event naming it (a burst that may have overflowed
 * the kernel's queue, an event without a name, more than MAX_PATHS paths remembered), it
 * cannot vouch for the interval and says so (undefined).
 *
 * Where it cannot be trusted it says so (`trusted` false) and snapshots are taken as before:
 * not Linux (FSEvents and ReadDirectoryChangesW deliver late, so `settle` could not promise
 * that a write already made was seen), a watch that failed (no inotify watches left, see
 * `fs.inotify.max_user_watches`), more directories than its budget (`watchBudget`). On Linux
 * it also says why (`whyUntrusted`), so that the user hears it once with what to do: a tree it
 * does not watch costs a read of the whole tree at every attempt. A burst of events large
 * enough to overflow the kernel's queue, or an event without a name, watches every directory
 * anew at the next `settle`. A directory that appears is watched anew with what is under it,
 * even where a watch of its inode number is there: that may be the watch of one removed since
 * (ext4 reuses inode numbers at once), which went with it.
 */
import { type Dirent, existsSync, type FSWatcher, lstatSync, readdirSync, readFileSync, type Stats, statfsSync, watch } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { IgnoredDirs } from "./ignored-dirs.js";

/** The budget where the system's limit cannot be read. */
const FALLBACK_DIRS = 20_000;
/** What the notice suggests raising `fs.inotify.max_user_watches` to, at least (what editors' guides suggest). */
const SUGGESTED_WATCHES = 524_288;
/** Events between two settles after which some may have been lost (the kernel queues 16,384 by default). */
const BURST = 8_192;
/** Paths remembered at most; past it the watch forgets them and answers `changedSince` for later intervals only. */
const MAX_PATHS = 10_000;
/**
 * File systems (statfs magic numbers: ext2/3/4, tmpfs, XFS) whose directories count their
 * sub-directories in their link count (2 + sub-directories), so a directory with 2 links has
 * none and need not be listed. Elsewhere (btrfs and overlayfs report 1, others may not count)
 * every directory is listed.
 */
const COUNTING_LINKS = new Set([0xef53, 0x01021994, 0x58465342]);

/**
 * What changed under a root since a moment, as a number to compare.
 * @example
 * const w = watchTree("/repo");
 * const seen = w.generation;
 * await w.settle();
 * const unchanged = w.trusted && w.generation === seen;
 */
export interface TreeWatch {
  /** Bumped by every file event under the root; never decreases. */
  readonly generation: number;
  /** False when a change may go unseen: the caller must look at the tree itself. */
  readonly trusted: boolean;
  /**
   * Why it is not trusted, with what to do, where the user can act on it (Linux: too many
   * directories, no inotify watches left); undefined while trusted, and on systems it never watches.
   */
  readonly whyUntrusted: string | undefined;
  /**
   * Resolves once the events of every write made before the call have been counted: two turns
   * of the event loop (an immediate queued from an immediate runs in the next one), so that
   * libuv's poll reads the inotify queue in between, whatever phase the call was made in.
   */
  settle(): Promise<void>;
  /**
   * The paths (relative to the root, `/`-separated; a watched directory that is gone ends with `/`) named by events counted after `generation`,
   * at most `limit` of them; undefined when some change of that interval may not be named
   * (untrusted, lost events, forgotten paths) or there are more than `limit`.
   */
  changedSince(generation: number, limit: number): string[] | undefined;
  /**
   * Git said where its `core.excludesFile` is (`file`; undefined: none): what it excludes is left
   * out from now on, and its changes are watched. Where the watch was set up with another one,
   * it vouches for nothing before (a directory that one left out may be one git does not ignore).
   */
  useExcludesFile(file: string | undefined): void;
  /**
   * The repositories inside the root (relative paths: the gitlinks of the index git's add just
   * wrote): where each one's HEAD moves (a commit, a checkout, a reset there) is watched, and an
   * event names the repository's path, so the next snapshot records the commit it is at now. One
   * not watched before is named at once (its HEAD may have moved since git read it); those no
   * longer listed are let go.
   */
  watchRepositories(paths: readonly string[]): void;
}

const watches = new Map<string, TreeWatch>();

/**
 * The watch of `root` (an absolute directory), shared by everyone in the process who asks;
 * it never keeps the process alive. `ignored` (read when the watch is made): the directories
 * under it whose changes can reach no snapshot, left unwatched. `maxDirs`: the most directories
 * it watches (`watchBudget()`); a tree with more is not trusted.
 * @example
 * const w = watchTree(process.cwd());
 */
export function watchTree(root: string, ignored?: IgnoredDirs, maxDirs = watchBudget()): TreeWatch {
  let w = watches.get(root);
  if (!w) {
    w = process.platform === "linux" ? new DirectoryWatch(root, ignored, maxDirs) : UNTRUSTED;
    watches.set(root, w);
  }
  return w;
}

let userWatches: number | undefined;

/** `fs.inotify.max_user_watches` (NaN where it cannot be read). */
function maxUserWatches(): number {
  if (userWatches === undefined) {
    try {
      userWatches = Number.parseInt(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8"), 10);
    } catch {
      userWatches = Number.NaN; // not Linux, or no /proc
    }
  }
  return userWatches;
}

/**
 * The most directories a workspace's watch takes: half of the inotify watches the system
 * allows each user (`fs.inotify.max_user_watches`, shared with every other program that
 * watches files: editors, dev servers). The kernel's default scales that limit with memory
 * (about 1% of it for the kernel's side of the watches); Node's side costs about as much again.
 * @example
 * watchBudget(); // 96268 where max_user_watches is 192536
 */
export function watchBudget(): number {
  const limit = maxUserWatches();
  return limit > 0 ? Math.floor(limit / 2) : FALLBACK_DIRS;
}

/**
 * Why a tree of more than `maxDirs` directories is not watched, and what to do.
 * @example
 * tooManyDirectories(watchBudget()); // "it has more than 96268 directories to watch (half of fs.inotify.max_user_watches): raise ..."
 */
export function tooManyDirectories(maxDirs: number): string {
  const budget = maxDirs === watchBudget() ? `(half of fs.inotify.max_user_watches): ${raiseLimit()}` : "(the maxWatchedDirs it was given): raise it";
  return `it has more than ${maxDirs} directories to watch ${budget}, run in a smaller directory, or list generated directories in .gitignore`;
}

/** Raising the system's limit, as the user would type it. */
function raiseLimit(): string {
  const limit = maxUserWatches();
  return `raise fs.inotify.max_user_watches (\`sudo sysctl fs.inotify.max_user_watches=${Math.max(SUGGESTED_WATCHES, limit > 0 ? 2 * limit : 0)}\`)`;
}

const UNTRUSTED: TreeWatch = {
  generation: 0,
  trusted: false,
  whyUntrusted: undefined,
  settle: () => Promise.resolve(),
  changedSince: () => undefined,
  useExcludesFile: () => undefined,
  watchRepositories: () => undefined,
};

/**
 * What a repository's HEAD moving writes, by directory of its git directory: HEAD itself (a
 * checkout), and HEAD's reflog, which git appends for every move (a commit, a reset, a checkout,
 * a merge) where reflogs are on, the default outside bare repositories. Not its index: git's own
 * `add` of the outer workspace runs `git status` there, which may rewrite it.
 */
const HEAD_FILES: ReadonlyArray<[dir: string, names: ReadonlySet<string>]> = [
  ["", new Set(["HEAD"])],
  ["logs", new Set(["HEAD"])],
];


class DirectoryWatch implements TreeWatch {
  generation = 0;
  trusted = true;
  whyUntrusted: string | undefined;
  private readonly dirs = new Map<string, { watcher: FSWatcher; ino: number }>();
  /** Watches of the directories of the rules files outside the root (`IgnoredDirs.ruleFiles`), by file. */
  private readonly ruleWatches = new Map<string, FSWatcher>();
  private burst = 0;
  private rewalk = false;
  /** A `.gitignore` changed: look for directories it lets in (what changed there is the snapshot's whole add, node/vcs/git.ts). */
  private relist = false;
  /** Each path an event named, with the generation of its last event. */
  private readonly changed = new Map<string, number>();
  /** Intervals starting before this generation may hold changes no event named. */
  private namedFrom = 0;
  /** The watches of where each repository inside the root keeps its HEAD (`watchRepositories`), by its relative path. */
  private readonly repositories = new Map<string, FSWatcher[]>();

  /** The device whose directories' link counts say they have no sub-directories (COUNTING_LINKS), if any. */
  private readonly leafDevice: number | undefined;

  constructor(
    private readonly root: string,
    private readonly ignored: IgnoredDirs | undefined,
    private readonly maxDirs: number,
  ) {
    try {
      if (COUNTING_LINKS.has(statfsSync(root).type)) this.leafDevice = lstatSync(root).dev;
    } catch {
      // listed the long way
    }
    // The rules files outside the root (`.gitignore` above it, `info/exclude`, `core.excludesFile`)
    // apply to it too: watched before their rules are read.
    for (const file of ignored?.ruleFiles ?? []) this.watchRules(file);
    this.watchDir(root);
    // The repositories the index already holds: watched before git reads the tree, as the tree is.
    for (const rel of ignored?.repositories() ?? []) this.watchRepository(rel);
  }

  watchRepositories(paths: readonly string[]): void {
    if (!this.trusted) return;
    const listed = new Set(paths);
    for (const rel of [...this.repositories.keys()]) if (!listed.has(rel)) this.unwatchRepository(rel);
    for (const rel of listed) {
      if (this.repositories.has(rel) || !this.watchRepository(rel)) continue;
      this.generation++;
      this.name(rel);
    }
  }

  useExcludesFile(file: string | undefined): void {
    const ignored = this.ignored;
    const before = ignored?.excludesFile;
    if (!ignored || !this.trusted || !ignored.useExcludesFile(file)) return;
    if (before) this.unwatchRules(before);
    if (ignored.excludesFile) this.watchRules(ignored.excludesFile);
    // The rules used so far may have left out a directory git does not ignore.
    if (before) this.rulesChanged();
  }

  settle(): Promise<void> {
    // Two immediates and a `then`, not an async function awaiting two turns: it is taken at every
    // attempt's end, where the promises of async frames cost a 1,000-task run in a repository
    // 10-40 ms (docs/performance.md). `settled` runs in the `then`, so that what it throws
    // rejects this promise, not the process.
    return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve))).then(() => this.settled());
  }

  private settled(): void {
    this.burst = 0;
    if ((this.rewalk || this.relist) && this.trusted) {
      // After lost events every directory is watched anew (one may have been removed and made
      // again in its place, with the same inode number: ext4 hands a freed one out again), and
      // every `.gitignore` read again.
      if (this.rewalk) this.ignored?.forget();
      this.watchDir(this.root, this.rewalk ? "lost" : undefined);
      if (this.rewalk) this.namedFrom = this.generation;
      this.rewalk = this.relist = false;
    }
  }

  changedSince(generation: number, limit: number): string[] | undefined {
    if (!this.trusted || this.rewalk || generation < this.namedFrom) return undefined;
    const paths: string[] = [];
    for (const [path, last] of this.changed) {
      if (last <= generation) continue;
      if (paths.length === limit) return undefined;
      paths.push(path);
    }
    return paths;
  }

  /**
   * Watches `dir` (before listing it, so an entry made in between is listed or reported) and its
   * sub-directories. `fresh`: watched anew even where a watch of the same inode number is there,
   * and what is under it too: a directory that `appeared` (an event named it) or any after events
   * were `lost` may have replaced one removed since, whose watch went with it (inode numbers are
   * reused at once).
   */
  private watchDir(dir: string, fresh?: "appeared" | "lost"): void {
    if (!this.trusted) return;
    let ino: number;
    try {
      ino = lstatSync(dir).ino;
    } catch {
      return; // gone already: its parent reported it
    }
    const seen = this.dirs.get(dir);
    if (fresh || !seen || seen.ino !== ino) {
      if (!seen && this.dirs.size >= this.maxDirs) return this.distrust(tooManyDirectories(this.maxDirs));
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false }, (type, name) => this.onEvent(dir, type, name));
      } catch (error) {
        if (seen) this.unwatch(dir);
        if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return;
        return this.distrust(failure(dir, error));
      }
      // A watched directory that is removed or replaced: its parent reports it.
      watcher.on("error", (error) => (dir === this.root ? this.distrust(failure(dir, error)) : this.lostDir(dir)));
      this.dirs.set(dir, { watcher, ino });
      // Let go after the new watch started: where it is still the same directory, both share the
      // kernel's watch of it, and no write falls between the two.
      seen?.watcher.close();
      if (fresh === "appeared") this.appeared(dir);
    }
    // Listing is what setting up a large tree's watch costs (a Dirent per file). A leaf directory
    // needs none: its link count, read after its watch started, counts every sub-directory made
    // before, and the watch reports those made after.
    if (this.leafDevice !== undefined) {
      let after: Stats | undefined;
      try {
        after = lstatSync(dir);
      } catch {
        return; // gone already: its parent reported it
      }
      if (after.dev === this.leafDevice && after.ino === ino && after.nlink === 2) return;
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory() && !this.skipped(dir, entry.name) && !this.unwatched(join(dir, entry.name))) this.watchDir(join(dir, entry.name), fresh);
  }

  /** Watches `file`, a rules file outside the root, for changes (`rulesChanged`). */
  private watchRules(file: string): void {
    try {
      const watcher = watch(dirname(file), { persistent: false }, (_type, name) => {
        if (String(name) === basename(file)) this.rulesChanged();
      });
      watcher.on("error", (error) => this.cannotWatchRules(file, error));
      this.ruleWatches.set(file, watcher);
    } catch (error) {
      this.cannotWatchRules(file, error);
    }
  }

  private unwatchRules(file: string): void {
    this.ruleWatches.get(file)?.close();
    this.ruleWatches.delete(file);
  }

  /**
   * A rules file outside the root changed: it may let in a directory left unwatched, whose writes
   * meanwhile no event named, so the watch vouches for nothing before, and looks again at the
   * next settle.
   */
  private rulesChanged(): void {
    this.ignored?.forget();
    this.generation++;
    this.rewalk = true;
  }

  /**
   * `core.excludesFile` cannot be watched (its directory is yours, not the repository's): its
   * rules are let go, and what they left out looked at again. Any other rules file: the watch
   * cannot vouch.
   */
  private cannotWatchRules(file: string, error: unknown): void {
    this.unwatchRules(file);
    if (file !== this.ignored?.excludesFile) return this.distrust(failure(dirname(file), error));
    this.ignored.useExcludesFile(undefined);
    this.rulesChanged();
  }

  private onEvent(dir: string, type: string, name: string | Buffer | null): void {
    if (name !== null && this.skipped(dir, String(name))) return;
    this.generation++;
    if (++this.burst > BURST || name === null) this.rewalk = true;
    if (name === null) return;
    const path = join(dir, String(name));
    this.name(path.slice(this.root.length + 1));
    if (name === ".gitignore" && this.ignored) {
      // Its rules may now let in a directory left unwatched: read them again and look (at the next settle).
      this.ignored.forget(dir.slice(this.root.length + 1));
      this.relist = true;
    }
    if (type !== "rename") return;
    // Created, deleted or renamed: a new directory is watched, a removed one let go.
    let isDir = false;
    try {
      isDir = lstatSync(path).isDirectory();
    } catch {
      // removed
    }
    if (!isDir) {
      if (this.dirs.has(path)) this.lostDir(path);
    } else if (!this.unwatched(path)) this.watchDir(path, "appeared");
    // One a `.gitignore` now excludes: a watch kept from before may be of one removed since.
    else this.unwatchUnder(path);
  }

  /** Remembers that an event named `rel` (relative to the root) at this generation. */
  private name(rel: string): void {
    if (this.changed.size >= MAX_PATHS && !this.changed.has(rel)) {
      this.changed.clear();
      this.namedFrom = this.generation;
    }
    this.changed.set(rel, this.generation);
  }

  /**
   * `dir` appeared with what was already in it: a `.gitignore` there, which no event named, is
   * new, so its rules are read again and it is named as changed (a snapshot then seeds its
   * private index again, as for any `.gitignore` that changed: node/vcs/git.ts).
   */
  private appeared(dir: string): void {
    const rel = dir.slice(this.root.length + 1);
    this.ignored?.forget(rel);
    if (existsSync(join(dir, ".gitignore"))) this.name(`${rel}/.gitignore`);
  }

  /** A directory a `.gitignore` excludes that holds no tracked file (`IgnoredDirs`). */
  private unwatched(dir: string): boolean {
    return this.ignored?.ignored(dir.slice(this.root.length + 1)) ?? false;
  }

  /**
   * Watches where the repository at `rel` keeps its HEAD (HEAD_FILES): its `.git` directory, or
   * the one its `.git` file names (a submodule's is in the outer repository's `.git/modules`).
   * False where it has none (gone, or no repository any more: the tree's watch reports that).
   */
  private watchRepository(rel: string): boolean {
    const dir = join(this.root, rel);
    const gitDir = gitDirOf(dir);
    if (gitDir === undefined) return false;
    if (this.dirs.size + 2 * (this.repositories.size + 1) > this.maxDirs) {
      this.distrust(tooManyDirectories(this.maxDirs));
      return false;
    }
    const watchers: FSWatcher[] = [];
    this.repositories.set(rel, watchers);
    for (const [sub, names] of HEAD_FILES) {
      try {
        const watcher = watch(join(gitDir, sub), { persistent: false }, (_type, name) => {
          if (name !== null && !names.has(String(name))) return;
          this.generation++;
          this.name(rel);
        });
        // Its git directory removed or replaced: the tree's watch names the repository's directory.
        watcher.on("error", () => this.unwatchRepository(rel));
        watchers.push(watcher);
      } catch {
        // No `logs/` (a repository made with reflogs off): its HEAD file is still watched.
      }
    }
    return true;
  }

  private unwatchRepository(rel: string): void {
    for (const watcher of this.repositories.get(rel) ?? []) watcher.close();
    this.repositories.delete(rel);
  }

  /** Flow's own store (`.flow/` at the root) and git's directories are not the workspace. */
  private skipped(dir: string, name: string): boolean {
    return name === ".git" || (name === ".flow" && dir === this.root);
  }

  /** A watched directory is gone (removed or moved away): named with a trailing `/`, so a snapshot drops what was under it. */
  private lostDir(dir: string): void {
    this.unwatchUnder(dir);
    this.name(`${dir.slice(this.root.length + 1)}/`);
  }

  /** Lets go of the watches of `dir` and of the directories under it. */
  private unwatchUnder(dir: string): void {
    for (const watched of [...this.dirs.keys()]) if (watched === dir || watched.startsWith(`${dir}/`)) this.unwatch(watched);
  }

  private unwatch(dir: string): void {
    this.dirs.get(dir)?.watcher.close();
    this.dirs.delete(dir);
  }

  private distrust(why: string): void {
    if (this.trusted) this.whyUntrusted = why;
    this.trusted = false;
    for (const dir of [...this.dirs.keys()]) this.unwatch(dir);
    for (const file of [...this.ruleWatches.keys()]) this.unwatchRules(file);
    for (const rel of [...this.repositories.keys()]) this.unwatchRepository(rel);
  }
}

/** The git directory of the repository whose work tree is `dir`: its `.git` directory, or where its `.git` file points; undefined where there is neither. */
function gitDirOf(dir: string): string | undefined {
  const dotGit = join(dir, ".git");
  try {
    if (lstatSync(dotGit).isDirectory()) return dotGit;
    const named = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
    return named ? resolve(dir, named) : undefined;
  } catch {
    return undefined;
  }
}

/** Why watching `dir` failed, with what to do where the system's limit is the cause. */
function failure(dir: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOSPC") return `the system has no inotify watches left for this user: ${raiseLimit()} or close programs that watch many files`;
  return `watching ${dir} failed (${code ?? String(error)})`;
}
