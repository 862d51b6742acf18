/**
 * @module node/vcs/workspace
 * Where a workspace's snapshots go (docs/time-travel.md "When a snapshot is taken"): its
 * repository, found by asking git in the workspace (`REV_PARSE`, `CHECK_IGNORE`), and the state
 * node/vcs/git.ts keeps per workspace. `PREPARE_SCRIPT` asks the same questions and takes the
 * first snapshot's `git add` in the same process, for `prepare`.
 */
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { EXCLUDES_FILE_QUESTION } from "./excludes-file.js";
import type { ObjectStore } from "./objects.js";
import { ownedIndex } from "./private-index.js";
import type { TreeWatch } from "./watch.js";

export interface Workspace {
  /** The workspace directory, absolute. */
  dir: string;
  /** Repository root (work tree top). */
  top: string;
  gitDir: string;
  /** The workspace relative to `top`, `/`-terminated, or "" for the whole repository. */
  prefix: string;
  /** Pathspec limiting add/diff to the workspace (and leaving `.flow/` out when git would not). */
  pathspec: string[];
  /** This port's private index for the workspace (node/vcs/private-index.ts). */
  indexFile: string;
  /** The private index kept for the workspace between processes, which `indexFile` starts from. */
  keptIndex: string;
  /** Serializes this port's operations on its private index. */
  queue: Promise<unknown>;
  /** The last tree snapshotted and its commit: an unchanged tree reuses the commit. */
  last?: { tree: string; commit: string };
  /** Where node/vcs/objects.ts writes a snapshot's tree, commit and ref (undefined: a SHA-256 repository, git writes them). */
  store: ObjectStore | undefined;
  /** The repository ignores the workspace itself: nothing to snapshot. */
  ignored: boolean;
  /** Git's `core.excludesFile` as git named it when the workspace was located (undefined: none). */
  excludesFile?: string;
  /** File events under the workspace, from its first snapshot on. */
  watch?: TreeWatch;
  /** The working tree is `commit` as long as the watch's generation is still `generation`. */
  clean?: { commit: string; generation: number };
  /**
   * The private index matches the working tree for every path the watch named no event on
   * after this generation: a snapshot needs to give git only the paths named since.
   */
  synced?: number;
  /**
   * The paths the watch named while git's last add read the tree. One of them that is gone may
   * have been a directory made and removed meanwhile, never watched (so not named as one) and
   * with files git took: the next snapshot drops it from the private index as a directory.
   */
  raced?: ReadonlySet<string>;
  /**
   * The repositories inside the workspace (gitlinks) its private index held when Node last read
   * it after git's add, relative to the workspace; undefined before that.
   */
  repositories?: string[];
}

/** What locating a workspace asks git, run in the workspace (both print one line per answer). */
export const REV_PARSE = ["rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", "--git-path", "objects", "--show-object-format", "--show-prefix"];
/** Whether git ignores the workspace itself (prints `.`). */
export const CHECK_IGNORE = ["check-ignore", "--no-index", "--", "."];
/**
 * A workspace's first `git add` in one process started from Node (`prepare`, Linux), where Node
 * found the repository (`guessRepository`) and seeded the private index: the whole-workspace
 * `add -A` into the private index (`GIT_INDEX_FILE`) with the pathspec `workspaceOf` gives
 * (`FLOW_PREFIX` is the workspace's prefix), and beside it REV_PARSE and CHECK_IGNORE to confirm
 * what Node found, and where `core.excludesFile` is (node/vcs/excludes-file.ts); Node reads the
 * tree from the index after it (node/vcs/objects.ts). Prints REV_PARSE's lines, NUL,
 * CHECK_IGNORE's, NUL, EXCLUDES_FILE_QUESTION's answer, NUL and add's exit code (git's messages
 * are left out: what fails here, the first snapshot meets and reports); exits 1 where git finds
 * no work tree.
 * One process to start, before the session's first render: the steps do not wait for Node's
 * event loop between them, and the add waits for nothing.
 */
export const PREPARE_SCRIPT = `{
  info=$("$FLOW_GIT" ${REV_PARSE.join(" ")} && echo .) || exit 1
  ignored=$("$FLOW_GIT" ${CHECK_IGNORE.join(" ")})
  excludes=$("$FLOW_GIT" ${EXCLUDES_FILE_QUESTION.join(" ")})
  printf '%s\\0%s\\0%s\\0' "$info" "$ignored" "$excludes"
} 2>/dev/null &
located=$!
if [ -n "$FLOW_PREFIX" ]; then set -- ":(top)$FLOW_PREFIX"; else set -- ":/"; fi
"$FLOW_GIT" add -A -- "$@" ":(top,exclude)\${FLOW_PREFIX}.flow" >/dev/null 2>&1
added=$?
wait $located || exit 1
printf '%s' "$added"`;

/**
 * The workspace at `dir` from git's answers run there: REV_PARSE's lines and CHECK_IGNORE's; its
 * private index `owner`'s (`newIndexOwner`). That is named after the directory, so `prepare`'s
 * script can name it before git has answered.
 */
export function workspaceOf(dir: string, info: string, checkIgnore: string, owner: string): Workspace | null {
  const [top, gitDir, commonDir, objectsDir, format, prefix = ""] = info.split("\n");
  if (!top || !gitDir || !commonDir || !objectsDir) return null;
  const ignored = checkIgnore.split("\n");
  const store = format === "sha1" ? { commonDir: resolve(dir, commonDir), objectsDir: resolve(dir, objectsDir), known: new Set<string>() } : undefined;
  return {
    dir,
    top,
    gitDir,
    prefix,
    // A workspace git ignores (the app's `.flow/app`) is not snapshotted at all, and its `.flow/`
    // is always left out (git's `add` exits 1 when a `.gitignore` lists it too: ADDED).
    ignored: ignored.includes(".") || /(^|\/)\.flow\//.test(prefix),
    pathspec: [prefix ? `:(top)${prefix}` : ":/", `:(top,exclude)${prefix}.flow`],
    ...privateIndexOf(gitDir, dir, owner),
    queue: Promise.resolve(),
    store,
  };
}

/**
 * `git add -A` exit codes after which the paths it was given are in the index: 1 is git naming
 * an ignored path it was given (the workspace's `.flow`, left out of it anyway, or a changed path
 * a `.gitignore` lists) after adding the rest.
 */
export const ADDED = new Set([0, 1]);

/** The kept private index's file name for the workspace at `dir` (absolute). */
export function indexName(dir: string): string {
  return `index-${createHash("sha256").update(dir).digest("hex").slice(0, 12)}`;
}

/** The private indexes of the workspace at `dir` in the repository at `gitDir`: the kept one, and `owner`'s. */
function privateIndexOf(gitDir: string, dir: string, owner: string): { indexFile: string; keptIndex: string } {
  const keptIndex = join(gitDir, "flow", indexName(dir));
  return { indexFile: ownedIndex(keptIndex, owner), keptIndex };
}

/**
 * The repository's own ignore rules, `info/exclude` of its common directory: a linked worktree's
 * git directory names that one in its `commondir` file.
 * @example
 * infoExcludeOf("/repo/.git/worktrees/wt"); // "/repo/.git/info/exclude"
 */
export function infoExcludeOf(gitDir: string): string {
  let common = gitDir;
  try {
    common = resolve(gitDir, readFileSync(join(gitDir, "commondir"), "utf8").trim());
  } catch {
    // no `commondir`: the git directory is the common one
  }
  return join(common, "info", "exclude");
}

/** Whether `dir` or a directory above it holds a `.git` (a repository may be there; git decides). */
export function hasDotGit(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, ".git"))) return true;
    if (dirname(d) === d) return false;
  }
}

/** Where `prepare` snapshots a workspace before git has said where its repository is. */
export interface GuessedRepository {
  /** The `.git` directory (real path). */
  gitDir: string;
  /** The private index `workspaceOf` will name, and the kept one it starts from. */
  indexFile: string;
  keptIndex: string;
  /** The workspace relative to the repository's top, as `--show-prefix` prints it. */
  prefix: string;
}

/**
 * The repository of `dir` as git will find it, when that is plain: the nearest `.git` above is
 * a directory holding a HEAD and no `GIT_*` variable moves the repository or its work tree.
 * Undefined otherwise (a worktree's or submodule's `.git` file): git is asked first. `prepare`
 * checks the guess against git's own answer (repository, prefix) before it keeps the snapshot.
 * @example
 * guessRepository("/repo/pkg", newIndexOwner()); // { gitDir: "/repo/.git", indexFile: "/repo/.git/flow/index-….48213-1", keptIndex: "/repo/.git/flow/index-…", prefix: "pkg/" }
 */
export function guessRepository(dir: string, owner: string): GuessedRepository | undefined {
  if (process.env.GIT_DIR || process.env.GIT_WORK_TREE || process.env.GIT_COMMON_DIR) return undefined;
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return undefined;
  }
  for (let top = real; ; top = dirname(top)) {
    const dotGit = join(top, ".git");
    const kind = lstatSync(dotGit, { throwIfNoEntry: false });
    // A `.git` file (a linked worktree, a submodule): git is asked. A directory that is no
    // repository (no HEAD) is passed over, as git passes it.
    if (kind && !kind.isDirectory()) return undefined;
    if (kind && existsSync(join(dotGit, "HEAD"))) {
      const rel = relative(top, real);
      return { gitDir: dotGit, ...privateIndexOf(dotGit, dir, owner), prefix: rel ? `${rel}/` : "" };
    }
    if (dirname(top) === top) return undefined;
  }
}
