/**
 * @module node/vcs/ignored-dirs
 * The directories of a workspace whose changes can never reach a snapshot, so its watch
 * (node/vcs/watch.ts) need not watch them: those a `.gitignore` excludes (git does not look
 * inside an excluded directory, and nothing under it can be re-included) and that hold no file
 * the index tracks (git's `add -A` updates a tracked file wherever it is). A JavaScript
 * repository's `node_modules` is most of its directories: watching it cost a run in this
 * repository 200-290 ms before its first attempt (docs/performance.md).
 *
 * The rules are read with git's precedence: the `.gitignore` files, the workspace's own and those
 * of the directories above it in the repository (the deepest file with a matching rule decides,
 * the last matching rule in it), then the repository's `info/exclude`, then git's
 * `core.excludesFile` where Node knows where it is (node/vcs/excludes-file.ts; unknown, a
 * directory only it excludes is watched, which costs watches and is never wrong). Those outside
 * the workspace are `ruleFiles`, which the watch watches too. A rules file that changes is read
 * again (`forget`), and the watch looks for directories it now lets in.
 *
 * `holdsNowIgnored` finds what a rules file changed while no Flow process watched leaves in the
 * private index: node/vcs/git.ts makes that index again from the user's before it watches.
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import ignore, { type Ignore } from "ignore";
import { type Entries, entriesMissingFrom, gitlinks, hasEntryUnder, readEntries } from "./index-format.js";

/**
 * The ignore rules of a workspace and the index that says what is tracked.
 * @example
 * const dirs = new IgnoredDirs("/repo/pkg", "pkg/", ["/repo/.git/flow/index-1", "/repo/.git/index"], { info: "/repo/.git/info/exclude" });
 * dirs.ignored("node_modules"); // true where pkg/.gitignore, /repo/.gitignore or info/exclude excludes it
 */
export class IgnoredDirs {
  private readonly top: string;
  private readonly prefix: string;
  /**
   * The rules files outside the workspace that apply to it: the `.gitignore` files of the
   * directories above it up to the repository's top, `info/exclude` and `core.excludesFile`.
   * One that changes may let in a directory left unwatched.
   */
  readonly ruleFiles: string[] = [];
  /** Each directory's rules (repository-relative, "" the top), null where it has no `.gitignore`. */
  private readonly rules = new Map<string, Ignore | null>();
  /** The repository's `info/exclude`. */
  private readonly info: RepositoryRules | undefined;
  /** Git's `core.excludesFile`, where known. */
  private global: RepositoryRules | undefined;
  private tracked: Entries | null | undefined;

  /**
   * `root`: the workspace directory; `prefix`: where it is in the repository (`pkg/`, or "");
   * `indexFiles`: the index whose entries count as tracked, the first that exists (the private
   * index, else the user's that will seed it); `excludes.info`: the repository's `info/exclude`
   * (`infoExcludeOf`); `excludes.global`: git's `core.excludesFile`, where known. Each is read
   * only where its directory exists: a file made there later can only exclude more, and the
   * watch cannot watch a directory that is not there.
   */
  constructor(root: string, prefix: string, private readonly indexFiles: string[], excludes: { info?: string; global?: string } = {}) {
    let top = realPath(root);
    for (let depth = prefix.split("/").filter(Boolean).length; depth > 0; depth--) this.ruleFiles.push(join((top = dirname(top)), ".gitignore"));
    this.top = top;
    this.prefix = prefix;
    this.info = this.repositoryRules(usable(excludes.info));
    this.global = this.repositoryRules(usable(excludes.global));
  }

  /** Git's `core.excludesFile` as used now (undefined: none, or not known). */
  get excludesFile(): string | undefined {
    return this.global?.file;
  }

  /**
   * Git said where its `core.excludesFile` is (`file`; undefined: none): its rules apply from now
   * on. Returns whether that changed the rules in use.
   */
  useExcludesFile(file: string | undefined): boolean {
    const next = usable(file);
    if (next === this.global?.file) return false;
    if (this.global) this.ruleFiles.splice(this.ruleFiles.indexOf(this.global.file), 1);
    this.global = this.repositoryRules(next);
    return true;
  }

  /** `file`'s rules, to be read when first asked; one of `ruleFiles` from now on. */
  private repositoryRules(file: string | undefined): RepositoryRules | undefined {
    if (file === undefined) return undefined;
    this.ruleFiles.push(file);
    return { file };
  }

  /** Whether `rel` (a directory, relative to the workspace, `/`-separated) is excluded by the rules and holds no tracked file. */
  ignored(rel: string): boolean {
    const path = `${this.prefix}${rel}`;
    // Most directories hold a tracked file, and a look-up in the index costs less than the rules
    // (reading each directory's `.gitignore` and matching): 1-2 ms for a repository's 900
    // directories instead of 10-15.
    return !this.holdsTracked(path) && this.excluded(path, true);
  }

  /**
   * Whether the private index (the first of `indexFiles`) holds a file that the user's (the
   * last) does not track and the rules now exclude: one a snapshot took before a rules file
   * that changed while no Flow process watched left it out. `git add -A` never
   * drops what its index tracks, so that file would stay in every snapshot, and its directories
   * in the watch (a `node_modules` ignored after the first run). False where an index cannot be
   * read: it is kept as it is.
   */
  holdsNowIgnored(): boolean {
    const [own, user] = [this.indexFiles[0]!, this.indexFiles.at(-1)!];
    if (own === user || !existsSync(own)) return false;
    let mine: Entries;
    let theirs: Entries;
    try {
      mine = readEntries(readFileSync(own)).entries;
      theirs = existsSync(user) ? readEntries(readFileSync(user)).entries : readEntries(EMPTY_INDEX).entries;
    } catch {
      return false;
    }
    const extra = entriesMissingFrom(mine, theirs);
    // Matching every such file costs 10-20 us each (a folder of 2,400 untracked files: 20-50
    // ms): only where a rules file that applies to one changed after the index was written.
    const stale = this.rulesChangedSince(statSync(own).mtimeMs, extra) && extra.some((path) => this.excluded(path, false));
    // Kept: what the watch asks next, read once. Not kept: the caller removes it, and the user's is read.
    if (!stale) this.tracked = mine;
    return stale;
  }

  /** Whether a `.gitignore` of a directory holding one of `paths` (repository-relative files), or above one, or a repository-wide rules file, changed at `sinceMs` or later. */
  private rulesChangedSince(sinceMs: number, paths: string[]): boolean {
    const dirs = new Set<string>();
    for (const path of paths) {
      for (let dir = parentOf(path); !dirs.has(dir); dir = parentOf(dir)) {
        dirs.add(dir);
        if (dir === "") break;
      }
    }
    for (const dir of dirs) if (changedAt(join(this.top, dir, ".gitignore")) >= sinceMs) return true;
    return [this.info, this.global].some((r) => r && changedAt(r.file) >= sinceMs);
  }

  /** The repositories inside the workspace the index holds (gitlinks), relative to the workspace. */
  repositories(): string[] {
    if (this.tracked === undefined) this.tracked = trackedIn(this.indexFiles);
    if (!this.tracked) return [];
    return gitlinks(this.tracked, this.prefix);
  }

  /** Whether `path` (repository-relative; a directory where `dir`) is excluded: itself, or a directory above it, matches a rule. */
  private excluded(path: string, dir: boolean): boolean {
    // Nothing under an excluded directory can be re-included.
    for (let slash = path.indexOf("/"); slash >= 0; slash = path.indexOf("/", slash + 1)) if (this.matches(path.slice(0, slash), true)) return true;
    return this.matches(path, dir);
  }

  /** Whether the deepest `.gitignore` with a rule for `path` excludes it, else `info/exclude`, else `core.excludesFile`. */
  private matches(path: string, dir: boolean): boolean {
    const name = `${path}${dir ? "/" : ""}`;
    for (let at = parentOf(path); ; at = parentOf(at)) {
      const { ignored, unignored } = this.rulesOf(at)?.test(at ? name.slice(at.length + 1) : name) ?? NO_MATCH;
      if (unignored) return false;
      if (ignored) return true;
      if (at === "") break;
    }
    for (const r of [this.info, this.global]) {
      if (!r) continue;
      if (r.rules === undefined) r.rules = rulesIn(r.file);
      const { ignored, unignored } = r.rules?.test(name) ?? NO_MATCH;
      if (unignored) return false;
      if (ignored) return true;
    }
    return false;
  }

  /** `rel`'s `.gitignore` changed (relative to the workspace, the directory holding it; undefined: one of `ruleFiles`). */
  forget(rel?: string): void {
    if (rel === undefined) {
      this.rules.clear();
      for (const r of [this.info, this.global]) if (r) r.rules = undefined;
    } else this.rules.delete(`${this.prefix}${rel}`.replace(/\/$/, ""));
  }

  private rulesOf(dir: string): Ignore | null {
    let found = this.rules.get(dir);
    if (found === undefined) this.rules.set(dir, (found = rulesIn(join(this.top, dir, ".gitignore"))));
    return found;
  }

  /** Whether the index has an entry under `path/`. */
  private holdsTracked(path: string): boolean {
    if (this.tracked === undefined) this.tracked = trackedIn(this.indexFiles);
    // No readable index: count every directory as holding tracked files (watched).
    return this.tracked === null || hasEntryUnder(this.tracked, Buffer.from(`${path}/`));
  }
}

const NO_MATCH = { ignored: false, unignored: false };

/** A rules file for the whole repository (patterns relative to its top), and its rules once read (null: none). */
interface RepositoryRules {
  file: string;
  rules?: Ignore | null;
}

/** `file` where its directory exists (one made there later can only exclude more, and cannot be watched before), else undefined. */
function usable(file: string | undefined): string | undefined {
  return file !== undefined && existsSync(dirname(file)) ? file : undefined;
}

/** The rules in `file`, null where there is none. */
function rulesIn(file: string): Ignore | null {
  // Most directories have no `.gitignore`: asked without an exception (a thrown ENOENT cost 15 us a directory).
  if (!existsSync(file)) return null;
  try {
    return ignore({ ignorecase: false }).add(readFileSync(file, "utf8"));
  } catch {
    return null; // unreadable (or a directory): git skips it too
  }
}

/** When `file` last changed (its ctime), -1 where there is none: gone, or a directory on its path is now a file. */
function changedAt(file: string): number {
  try {
    return statSync(file).ctimeMs;
  } catch {
    return -1;
  }
}

/** An index of no entries: a repository with no commit has no index file. */
const EMPTY_INDEX = Buffer.concat([Buffer.from("DIRC"), Buffer.from([0, 0, 0, 2, 0, 0, 0, 0]), Buffer.alloc(20)]);

/** `dir` on its real path (as git's answers are); as given where it cannot be resolved (gone: the snapshot says so). */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** `a/b/c` -> `a/b`, `a` -> "". */
function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}

/** The entries of the first index file that exists; null where it cannot be read (a new repository has none: nothing is tracked). */
function trackedIn(indexFiles: string[]): Entries | null {
  const file = indexFiles.find((f) => existsSync(f));
  if (!file) return { buf: Buffer.alloc(0), count: 0, pathAt: new Uint32Array(0), pathEnd: new Uint32Array(0) };
  try {
    return readEntries(readFileSync(file)).entries;
  } catch {
    return null;
  }
}
