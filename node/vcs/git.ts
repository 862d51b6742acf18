/**
 * @module node/vcs/git
 * The VCS port over the `git` on PATH (git 2.31 or newer; docs/time-travel.md). A snapshot is
 * built in Flow's own index file (`GIT_INDEX_FILE=<git dir>/flow/index-<workspace>.<owner>`, this
 * port's, node/vcs/private-index.ts): one `git add -A` of the workspace (untracked files
 * included, ignored files and `.flow/` left out), then
 * the tree, the commit and the `refs/flow/...` ref written in process from that index
 * (node/vcs/objects.ts: no `write-tree`, `commit-tree`, `update-ref` processes; git's own
 * commands where that module cannot, and on Windows). The user's branch, HEAD, index and stash
 * are never read or written. The private index keeps stat data between snapshots, so a snapshot
 * of a large tree rehashes only what changed.
 *
 * `prepare` takes a workspace's first snapshot in the background (watch, whole-workspace add,
 * commit without a ref) so that a run's first attempt, whose snapshot waits for it, finds it done
 * and only names its commit. The first time in a process it is one `sh` process
 * (PREPARE_SCRIPT: the add, with git's own answer on where the repository is beside it) started
 * before the session's first render, in the repository Node found (`guessRepository`), so git
 * reads the tree while Node renders: a chain of git processes would wait for the event loop
 * between each two, that is after the render.
 *
 * Nothing at all is done while nothing changed: each workspace is watched from its first
 * snapshot on (node/vcs/watch.ts), and `unchangedSince` answers from the watch's event count,
 * so an attempt that wrote no file costs no git process. When something changed, git is given
 * only the paths the watch saw change since the private index last matched the working tree
 * (`git add -A -- <paths>`, `git rm --cached` for the ones gone; `addChanged`), so a
 * snapshot stats what changed instead of every file; where the watch cannot vouch for the
 * interval (first snapshot in the process, not Linux, lost events, more than MAX_CHANGED paths,
 * after a restore), where a `.gitignore` changed (the private index is seeded again), or git
 * refuses the short form, the whole workspace is added as before. A path named while git's last
 * add read the tree and gone since leaves the private index as a directory would (`sync`). A
 * workspace that git ignores (listed in a `.gitignore`, or inside a `.flow/` folder) is never
 * snapshotted (`ignores`).
 *
 * A restore diffs the working tree (snapshotted into the private index first) against the
 * target tree, deletes what the target lacks, and checks out only the changed paths with their
 * modes (`update-index --index-info` + `checkout-index -f -u`). Line-ending conversion is off
 * (`core.autocrlf=false`); clean/smudge filters a repository's `.gitattributes` declares still
 * apply, as they do for `git checkout`.
 */
import { execFile } from "node:child_process";
import { existsSync, lstatSync, readdirSync, realpathSync, rmdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FlowError } from "../../core/errors.js";
import { isRepositoryChange, type VcsFileChange, type VcsPort, type VcsSnapshotRef } from "../../core/time-travel/index.js";
import { commitInProcess, editedInProcess, type ReadIndex, readIndexEarly, refInProcess } from "./in-process.js";
import { writeCommit } from "./objects.js";
import { GitShell } from "./git-shell.js";
import { EXCLUDES_FILE_QUESTION, excludesFileOf, keepExcludesFile, keptExcludesFile } from "./excludes-file.js";
import { IgnoredDirs } from "./ignored-dirs.js";
import { gitlinks } from "./index-format.js";
import { claimIndex, newIndexOwner, seedIndex } from "./private-index.js";
import { type TreeWatch, watchTree } from "./watch.js";
import { ADDED, CHECK_IGNORE, type GuessedRepository, guessRepository, hasDotGit, infoExcludeOf, PREPARE_SCRIPT, REV_PARSE, type Workspace, workspaceOf } from "./workspace.js";

const IDENTITY = { GIT_AUTHOR_NAME: "Flow", GIT_AUTHOR_EMAIL: "flow@localhost", GIT_COMMITTER_NAME: "Flow", GIT_COMMITTER_EMAIL: "flow@localhost" };
/** Configuration for every git command (through the environment, so the snapshot script's commands get it too). */
const CONFIG: Record<string, string> = {
  "core.autocrlf": "false",
  "core.safecrlf": "false",
  "core.quotepath": "off",
  "advice.addIgnoredFile": "false",
  // `add` never reads an untracked cache (only `status` does), and building one would make git
  // write the private index where the tree matches it, so that Node's read of the file while
  // git worked (node/vcs/in-process.ts `readIndexEarly`) would not stand; one the user's index
  // brought is kept as it is.
  "core.untrackedCache": "keep",
};
const CONFIG_ENV = configEnv(CONFIG);
/**
 * The end of a snapshot in git's own commands, where node/vcs/objects.ts cannot write it
 * (`Unsupported`): write-tree, commit-tree unless the tree is the last one, update-ref; prints
 * `<tree> <commit>`.
 */
const COMMIT_SCRIPT = `set -e
t=$("$FLOW_GIT" write-tree)
if [ "$t" = "$FLOW_LAST_TREE" ]; then c=$FLOW_LAST_COMMIT; else c=$("$FLOW_GIT" commit-tree "$t" -m "$FLOW_MESSAGE"); fi
"$FLOW_GIT" update-ref "$FLOW_REF" "$c"
echo "$t $c"`;
/** Changed paths above which a snapshot adds the whole workspace (one stat pass beats a long argument list). */
const MAX_CHANGED = 2_000;
/** The short form's environment: no threads to stat a few paths in parallel. */
const CHANGED_ENV = configEnv({ ...CONFIG, "core.preloadIndex": "false" });
const NULL_SHA = "0000000000000000000000000000000000000000";

/** Options of `createGitVcs`. */
export interface GitVcsOptions {
  /** The git executable (default `git`, found on PATH). */
  gitPath?: string;
  /**
   * The most directories watched per workspace (default: half of `fs.inotify.max_user_watches`);
   * a workspace with more is snapshotted at every attempt edge, and says why (`whyUnwatched`).
   */
  maxWatchedDirs?: number;
}

/**
 * A VCS port over the `git` executable.
 * @example
 * const vcs = createGitVcs();
 * const pointer = await vcs.snapshot("/repo", "refs/flow/runs/r1/manual");
 * await vcs.restore("/repo", pointer); // the tree back byte for byte
 */
export function createGitVcs(options: GitVcsOptions = {}): VcsPort {
  const gitPath = options.gitPath ?? "git";
  /** Whose private indexes this port writes (node/vcs/private-index.ts). */
  const owner = newIndexOwner();
  /**
   * The watch of a workspace, leaving out directories the rules exclude (a `.gitignore`,
   * `info/exclude`, and `core.excludesFile` where `excludesFile` says where it is) that hold no
   * file its index (or the user's) tracks. Asked once per workspace and process, before its
   * first snapshot: a private index that keeps a file the rules now exclude (changed while no
   * process watched) is made again from the user's, as a `.gitignore` change seen by the watch makes it.
   */
  const watchOf = (dir: string, repo: Pick<Workspace, "prefix" | "indexFile" | "gitDir">, excludesFile?: string) => {
    const ignored = new IgnoredDirs(dir, repo.prefix, [repo.indexFile, join(repo.gitDir, "index")], { info: infoExcludeOf(repo.gitDir), global: excludesFile });
    if (ignored.holdsNowIgnored()) rmSync(repo.indexFile, { force: true });
    return watchTree(dir, ignored, options.maxWatchedDirs);
  };
  const workspaces = new Map<string, Promise<Workspace | null>>();
  /** The workspaces found, by the directory as the caller names it (no path resolved at each attempt edge). */
  const opened = new Map<string, Workspace | null>();

  const baseEnv = () => ({ ...process.env, ...IDENTITY, ...CONFIG_ENV, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" });
  const failed = (ws: { top: string }, args: string[], message: string, cause: unknown) =>
    new FlowError("VCS_FAILED", `git ${args[0]} failed in ${ws.top}: ${message.trim()}`, { dir: ws.top, command: args.slice(0, 3).join(" ") }, { cause });
  const run = (ws: Pick<Workspace, "top" | "indexFile"> | { top: string }, file: string, args: string[], input?: string, extraEnv: Record<string, string> = {}): Promise<string> =>
    new Promise((resolvePromise, reject) => {
      const env = { ...baseEnv(), ...("indexFile" in ws ? { GIT_INDEX_FILE: ws.indexFile } : {}), ...extraEnv };
      const child = execFile(file, args, { cwd: ws.top, env, maxBuffer: 1 << 30, encoding: "utf8" }, (error, stdout, stderr) => {
        if (error) reject(failed(ws, args, stderr || error.message, error));
        else resolvePromise(stdout);
      });
      if (input !== undefined) child.stdin!.end(input);
    });
  const git = (ws: Pick<Workspace, "top" | "indexFile"> | { top: string }, args: string[], input?: string) => run(ws, gitPath, args, input);
  // Where sh is (not Windows), the hot commands go through one long-lived shell (node/vcs/git-shell.ts).
  const shell = process.platform === "win32" ? undefined : new GitShell(baseEnv);
  /**
   * `git add` (`command`: the executable and its arguments), or `prepare`'s script (`{ script }`),
   * through the shell; resolves stdout and stderr together, rejects as `run` does (the cause's
   * `code` is the exit code).
   */
  const hot = async (ws: Pick<Workspace, "top" | "indexFile"> | { top: string }, command: string[] | { script: string }, extraEnv: Record<string, string> = {}): Promise<string> => {
    const [file, ...args] = Array.isArray(command) ? command : ["sh", "-c", command.script];
    if (!shell) return run(ws, file!, args, undefined, extraEnv);
    const { output, code } = await shell.run(ws.top, command, { ...("indexFile" in ws ? { GIT_INDEX_FILE: ws.indexFile } : {}), ...extraEnv }).catch((error: Error) => {
      throw failed(ws, args, error.message, error);
    });
    if (code !== 0) throw failed(ws, args, output, Object.assign(new Error(output), { code }));
    return output;
  };
  /** `git add -A` of `pathspecs` (the whole workspace unless given); exit 1 counts as done (ADDED). */
  const add = (ws: Workspace, pathspecs = ws.pathspec, extraEnv: Record<string, string> = {}) =>
    hot(ws, [gitPath, "add", "-A", "--", ...pathspecs], extraEnv).catch((error: FlowError) => {
      if (!ADDED.has((error.cause as { code?: number } | undefined)?.code ?? -1)) throw error;
      return "";
    });

  async function open(dir: string): Promise<Workspace | null> {
    const abs = resolve(dir);
    let found = workspaces.get(abs);
    if (!found) {
      found = locate(abs);
      workspaces.set(abs, found);
    }
    return found;
  }

  /** Finds the repository of `dir` (rev-parse, check-ignore and where `core.excludesFile` is, started together); null when it is in none. */
  async function locate(dir: string): Promise<Workspace | null> {
    if (!existsSync(dir) || !hasDotGit(dir)) return null;
    const [info, ignored, excludes] = await Promise.all([
      git({ top: dir }, REV_PARSE).catch(() => undefined), // not a work tree (bare, or git missing)
      git({ top: dir }, CHECK_IGNORE).catch(() => ""),
      hot({ top: dir }, [gitPath, ...EXCLUDES_FILE_QUESTION]).catch(() => ""), // exit 1: unset
    ]);
    const ws = info === undefined ? null : workspaceOf(dir, info, ignored, owner);
    if (ws) {
      ws.excludesFile = excludesFileOf(excludes, ws.top);
      if (!ws.ignored) claimIndex(ws.keptIndex, ws.indexFile);
    }
    return ws;
  }

  /**
   * The workspace's watch, made at its first snapshot, with the rules git reads. One made before
   * for the same directory in this process (watches are shared) is told where git's
   * `core.excludesFile` is now.
   */
  function watchFor(ws: Workspace): TreeWatch {
    if (!ws.watch) {
      ws.watch = watchOf(ws.dir, ws, ws.excludesFile);
      ws.watch.useExcludesFile(ws.excludesFile);
    }
    return ws.watch;
  }

  /**
   * `locate` and the workspace's first snapshot in one process (PREPARE_SCRIPT), started now,
   * in the repository Node found (`guess`, its private index seeded here): the watch is set up
   * first, so whatever changes while git reads the tree is an event after `generation`, and the
   * snapshot is the tree as it was when the script started only while none came. It is kept
   * only where git's answer is the guess (same repository, same prefix).
   */
  async function locatePrepared(dir: string, guess: GuessedRepository): Promise<Workspace | null> {
    // Where an earlier process's git said `core.excludesFile` is; checked against git's answer below.
    const kept = keptExcludesFile(guess.gitDir);
    claimIndex(guess.keptIndex, guess.indexFile);
    const watch = watchOf(dir, guess, kept || undefined);
    const generation = watch.generation;
    seedIndex(guess);
    let out: string;
    // Node reads the private index while git works (Node waits for it otherwise): git leaves the
    // file as it is when the tree matches it, and the read is used only then.
    let early: ReadIndex | undefined;
    const reading = setImmediate(() => (early = readIndexEarly(guess.indexFile)));
    try {
      out = await hot({ top: dir, indexFile: guess.indexFile }, { script: PREPARE_SCRIPT }, { FLOW_GIT: gitPath, FLOW_PREFIX: guess.prefix });
    } catch {
      return null; // not a work tree (bare, or git missing)
    } finally {
      clearImmediate(reading);
    }
    const [info = "", ignored = "", excludes = "", added = ""] = out.split("\0");
    const ws = workspaceOf(dir, info, ignored, owner);
    if (ws) {
      if (ws.indexFile !== guess.indexFile) claimIndex(ws.keptIndex, ws.indexFile);
      ws.excludesFile = excludesFileOf(excludes, ws.top);
      if ((ws.excludesFile ?? "") !== kept) keepExcludesFile(guess.gitDir, ws.excludesFile);
      watch.useExcludesFile(ws.excludesFile);
    }
    if (ws?.store && !ws.ignored && added !== "" && ADDED.has(Number(added)) && ws.indexFile === guess.indexFile && ws.prefix === guess.prefix && realGitDir(ws) === guess.gitDir) {
      ws.watch = watch;
      // Undefined where git must write the tree: the first snapshot takes it again, and says what is wrong.
      const written = commitInProcess(ws, ws.store, undefined, "flow snapshot", early);
      if (written) await adopt(ws, written[0], written[1], generation);
    }
    return ws;
  }

  /**
   * After git's add of the tree from `generation` on: the private index matches the tree but for
   * the paths named since (`synced`), and those named while git read it are `raced`; where the
   * watch cannot name them all, nothing is synced (the next snapshot adds the whole workspace).
   * The repositories the index holds are watched from here on (their HEAD).
   */
  async function sync(ws: Workspace, watch: TreeWatch, generation: number): Promise<void> {
    if (ws.repositories) watch.watchRepositories(ws.repositories);
    await watch.settle();
    const raced = watch.changedSince(generation, MAX_CHANGED);
    ws.synced = raced ? generation : undefined;
    ws.raced = raced?.length ? new Set(raced) : undefined;
  }

  /** `tree` (committed as `commit`) is the working tree as the watch saw it at `generation`. */
  async function adopt(ws: Workspace, tree: string, commit: string, generation: number): Promise<void> {
    if (!ws.watch?.trusted) return;
    ws.last = { tree, commit };
    ws.clean = { commit, generation };
    await sync(ws, ws.watch, generation);
  }

  async function required(dir: string): Promise<Workspace> {
    const ws = await open(dir);
    if (!ws) throw new FlowError("VCS_FAILED", `${resolve(dir)} is not inside a git work tree; run \`git init\` there to enable snapshots.`, { dir });
    return ws;
  }

  /**
   * Commits the working tree on `ref`: the private index brought up to date by one `git add`
   * (of the `changed` paths under the workspace that may differ from it, when known:
   * `addChanged`; else of the whole workspace), then the tree, commit and ref written in
   * process (node/vcs/objects.ts), or by git's commands where that module cannot (COMMIT_SCRIPT;
   * separate git processes on Windows).
   */
  async function writeSnapshot(ws: Workspace, ref: string, message: string, changed: string[] | undefined): Promise<string> {
    if (process.platform !== "win32") {
      const edited = changed && ws.store && existsSync(ws.indexFile) ? editedInProcess(ws, ws.store, changed) : undefined;
      if (edited === undefined && !(changed && existsSync(ws.indexFile) && (await addChanged(ws, changed)))) {
        seedIndex(ws);
        await add(ws);
      }
      const written = ws.store && commitInProcess(ws, ws.store, ref, message, edited);
      const [tree, commit] = written || ((await run(ws, "sh", ["-c", COMMIT_SCRIPT], undefined, { FLOW_GIT: gitPath, FLOW_REF: ref, FLOW_MESSAGE: message, FLOW_LAST_TREE: ws.last?.tree ?? "", FLOW_LAST_COMMIT: ws.last?.commit ?? "" })).trim().split(" ") as [string, string]);
      ws.last = { tree, commit };
      return commit;
    }
    const tree = await writeWorkingTree(ws);
    const commit = ws.last?.tree === tree ? ws.last.commit : (await git(ws, ["commit-tree", tree, "-m", message])).trim();
    ws.last = { tree, commit };
    await git(ws, ["update-ref", ref, commit]);
    return commit;
  }

  /**
   * Gives git only the paths that changed (the watch named them), as pathspecs of one `add -A`:
   * a path on disk literally (a directory with what is under it); a file gone from the disk
   * through its directory's entries, `:(glob)<dir>/*` (not recursive; it drops the file from the
   * private index when it was there, and is no error when it never was, as the write tools'
   * temporary files); a directory that is gone leaves the private index first (`rm --cached`,
   * literal pathspecs on stdin: a name such as `[br]` or `:m` is no pattern or magic). `add`
   * exits 1 (having added the rest) when a path it was given is ignored, which is no error here:
   * the full form leaves that path out too. False on any other failure
   * (a directory holding nothing git would add; a path in a submodule or beyond a symlink): the
   * caller adds the whole workspace.
   */
  async function addChanged(ws: Workspace, changed: string[]): Promise<boolean> {
    const { pathspecs, goneDirs } = changedPathspecs(ws, changed);
    try {
      if (goneDirs.length) await run(ws, gitPath, ["rm", "-r", "-q", "-f", "--cached", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"], `${goneDirs.join("\0")}\0`, CHANGED_ENV);
      if (pathspecs.length) await add(ws, pathspecs, CHANGED_ENV);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Whether the working tree is still `pointer`, the commit of the last snapshot (undefined:
   * whatever commit is clean), as far as the watch has counted; `settle`: once it has counted
   * the writes already made (a promise then).
   */
  function isClean(ws: Workspace, pointer: string | undefined, settle: boolean): boolean | Promise<boolean> {
    const now = () => !!ws.clean && (pointer === undefined || ws.clean.commit === pointer) && !!ws.watch?.trusted && ws.clean.generation === ws.watch.generation;
    if (!now()) return false;
    return settle ? ws.watch!.settle().then(now) : true;
  }

  function serialized<T>(ws: Workspace, fn: () => Promise<T>): Promise<T> {
    const next = ws.queue.then(fn, fn);
    ws.queue = next.catch(() => undefined);
    return next;
  }

  /** The working tree of the workspace as a tree id (in the private index). */
  async function writeWorkingTree(ws: Workspace): Promise<string> {
    seedIndex(ws);
    await add(ws);
    return (await git(ws, ["write-tree"])).trim();
  }

  async function treeOf(ws: Workspace, pointer: string): Promise<string> {
    try {
      return (await git(ws, ["rev-parse", "--verify", "-q", `${pointer}^{tree}`])).trim();
    } catch (cause) {
      throw new FlowError("VCS_FAILED", `Snapshot ${pointer} does not exist in ${ws.top} (was it garbage-collected?).`, { dir: ws.top, pointer }, { cause });
    }
  }

  async function diffTrees(ws: Workspace, from: string, to: string): Promise<Array<VcsFileChange & { sha: string }>> {
    const out = await git(ws, ["diff-tree", "-r", "-z", "--no-renames", from, to, "--", ...(ws.prefix ? [ws.prefix] : [])]);
    const parts = out.split("\0");
    const changes: Array<VcsFileChange & { sha: string }> = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const [oldMode, newMode, , sha, status] = parts[i]!.slice(1).split(" ");
      const path = parts[i + 1]!;
      if (path === `${ws.prefix}.flow` || path.startsWith(`${ws.prefix}.flow/`)) continue;
      const kind = status === "A" ? "added" : status === "D" ? "deleted" : "modified";
      changes.push({ path, status: kind, sha: sha!, ...(kind !== "added" ? { oldMode: oldMode! } : {}), ...(kind !== "deleted" ? { newMode: newMode! } : {}) });
    }
    return changes;
  }

  return {
    async detect(dir) {
      return (await open(dir))?.top ?? null;
    },

    async ignores(dir) {
      return (await open(dir))?.ignored ?? false;
    },

    unchangedSince(dir, pointer, opts) {
      // Asked at every attempt edge: answered at once where it can be (no settle, the workspace
      // known), with one promise where it cannot (docs/performance.md).
      const known = opened.get(dir);
      if (known === undefined) {
        return open(dir).then((ws) => {
          opened.set(dir, ws);
          return !!ws && isClean(ws, pointer, opts?.settle ?? false);
        });
      }
      return !!known && isClean(known, pointer, opts?.settle ?? false);
    },

    async repositoriesIn(dir) {
      return [...((await workspaces.get(resolve(dir)))?.repositories ?? [])];
    },

    async whyUnwatched(dir) {
      return (await workspaces.get(resolve(dir)))?.watch?.whyUntrusted;
    },

    async snapshot(dir, ref, message = "flow snapshot") {
      const ws = await required(dir);
      if (ws.ignored) throw new FlowError("VCS_FAILED", `${ws.dir} is ignored by git (a .gitignore lists it, or it is inside a .flow folder): nothing there is snapshotted.`, { dir: ws.dir });
      return serialized(ws, async () => {
        // Watched before git reads the tree: a write during the snapshot is an event after `generation`.
        const watch = watchFor(ws);
        if (await isClean(ws, undefined, true)) {
          const commit = ws.clean!.commit;
          if (!(process.platform !== "win32" && ws.store && refInProcess(ws.store, ref, commit))) await git(ws, ["update-ref", ref, commit]);
          return commit;
        }
        // Every write made before this call is counted (and named) before git is told what changed.
        await watch.settle();
        const generation = watch.generation;
        let changed = ws.synced === undefined ? undefined : watch.changedSince(ws.synced, MAX_CHANGED);
        if (changed?.some((path) => path === ".gitignore" || path.endsWith("/.gitignore"))) {
          // Ignore rules changed: files that did not change themselves may now be let in or kept
          // out. The private index is made again from the user's (what was ignored leaves it,
          // even where an earlier snapshot held it) and the whole workspace added.
          rmSync(ws.indexFile, { force: true });
          changed = undefined;
        }
        const commit = await writeSnapshot(ws, ref, message, changed);
        ws.clean = watch.trusted ? { commit, generation } : undefined;
        await sync(ws, watch, generation);
        return commit;
      });
    },

    prepare(dir) {
      // Only where the watch can vouch for the tree (Linux) and Node writes the commit: elsewhere
      // a prepared commit would never be reused.
      if (process.platform !== "linux") return;
      const abs = resolve(dir);
      let known = workspaces.get(abs);
      if (!known) {
        // Inside a `.flow/` folder (the app's store) is never snapshotted: nothing to watch there.
        if (!existsSync(abs) || !hasDotGit(abs) || /\/\.flow(\/|$)/.test(abs)) return;
        const guess = guessRepository(abs, owner);
        if (guess) {
          workspaces.set(abs, locatePrepared(abs, guess));
          return;
        }
        known = open(abs); // git says where the repository is first, then the snapshot below
      }
      void known
        .then((ws) => {
          if (!ws?.store || ws.ignored || ws.clean) return;
          return serialized(ws, async () => {
            if (ws.clean) return;
            // Watched before git reads the tree, as in `snapshot`: what changes from here on is an event after `generation`.
            const watch = watchFor(ws);
            const generation = watch.generation;
            seedIndex(ws);
            await add(ws);
            const written = commitInProcess(ws, ws.store!, undefined, "flow snapshot");
            if (written) await adopt(ws, written[0], written[1], generation);
          });
        })
        .catch(() => undefined); // the snapshot that needs it says what is wrong
    },

    async restore(dir, pointer) {
      const ws = await required(dir);
      return serialized(ws, async () => {
        const target = await treeOf(ws, pointer);
        const current = await writeWorkingTree(ws);
        const between = await diffTrees(ws, current, target);
        const repositories = keptRepositories(ws, between);
        const changes = between.filter((c) => !repositories.some((r) => isUnder(c.path.slice(ws.prefix.length), r)));
        const deleted = changes.filter((c) => c.status === "deleted");
        const written = changes.filter((c) => c.status !== "deleted");
        for (const c of deleted) rmSync(join(ws.top, c.path), { force: true });
        removeEmptyDirs(ws, deleted.map((c) => c.path));
        if (changes.length) {
          // The private index becomes the target tree for these paths; checkout-index then
          // writes them (content and mode) and refreshes their stat data.
          const info = [...deleted.map((c) => `0 ${NULL_SHA}\t${c.path}`), ...written.map((c) => `${c.newMode} ${c.sha}\t${c.path}`)].join("\0");
          await git(ws, ["update-index", "-z", "--replace", "--index-info"], `${info}\0`);
          if (written.length) {
            for (const c of written) clearBlockingDir(ws, c.path);
            await git(ws, ["checkout-index", "-f", "-u", "-z", "--stdin"], `${written.map((c) => c.path).join("\0")}\0`);
          }
        }
        ws.last = undefined;
        ws.clean = undefined;
        ws.synced = ws.raced = undefined;
        return { changed: written.length, deleted: deleted.length, repositories };
      });
    },

    async repositoriesKeptBy(dir, pointer) {
      const ws = await required(dir);
      return serialized(ws, async () => {
        const target = await treeOf(ws, pointer);
        return keptRepositories(ws, await diffTrees(ws, await writeWorkingTree(ws), target));
      });
    },

    async diff(dir, from, to) {
      const ws = await required(dir);
      return serialized(ws, async () => {
        const a = await treeOf(ws, from);
        const b = to === undefined ? await writeWorkingTree(ws) : await treeOf(ws, to);
        return (await diffTrees(ws, a, b)).map(({ sha: _sha, ...c }) => c);
      });
    },

    async patch(dir, from, to, path) {
      const ws = await required(dir);
      // No textconv or external diff driver a repository configures: the bytes as they are.
      return git(ws, ["diff", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U3", from, to, "--", `:(literal)${ws.prefix}${path}`]);
    },

    async list(dir, prefix) {
      const ws = await required(dir);
      const out = await git(ws, ["for-each-ref", "--format=%(objectname) %(refname)", prefix]);
      return out
        .split("\n")
        .filter(Boolean)
        .map((line): VcsSnapshotRef => ({ pointer: line.slice(0, line.indexOf(" ")), ref: line.slice(line.indexOf(" ") + 1) }));
    },

    async remove(dir, prefix) {
      const ws = await required(dir);
      const refs = await this.list(dir, prefix);
      if (refs.length) await git(ws, ["update-ref", "--stdin"], refs.map((r) => `delete ${r.ref}\n`).join(""));
      return refs.length;
    },
  };
}


/** Git configuration passed through the environment (`GIT_CONFIG_COUNT`, git 2.31+). */
function configEnv(config: Record<string, string>): Record<string, string> {
  return Object.fromEntries([
    ["GIT_CONFIG_COUNT", String(Object.keys(config).length)],
    ...Object.entries(config).flatMap(([key, value], i) => [
      [`GIT_CONFIG_KEY_${i}`, key],
      [`GIT_CONFIG_VALUE_${i}`, value],
    ]),
  ]);
}

/**
 * The `add` pathspecs for paths the watch named under the workspace (CHANGED_SCRIPT), and the
 * directories gone from the disk (repository-relative, literal, for `rm --cached`).
 */
function changedPathspecs(ws: Workspace, changed: string[]): { pathspecs: string[]; goneDirs: string[] } {
  const pathspecs = new Set<string>();
  const goneDirs: string[] = [];
  const named = new Set(changed);
  for (const rel of changed) {
    const path = `${ws.prefix}${rel}`;
    // Inside a repository of its own: git takes only its commit, given the repository's path
    // (a path under it is an error, which would cost a whole add).
    const repository = ws.repositories?.find((r) => isUnder(rel, r));
    if (repository !== undefined) pathspecs.add(`:(literal)${ws.prefix}${repository}`);
    else if (rel.endsWith("/")) goneDirs.push(`:(literal)${path.slice(0, -1)}`);
    else if (exists(join(ws.dir, rel))) pathspecs.add(`:(literal)${path}`);
    // Named while git's last add read the tree, and gone: a file, or a directory git took files from.
    else if (ws.raced?.has(rel)) goneDirs.push(`:(literal)${path}`);
    else if (!named.has(`${rel}/`)) {
      // A file gone (a directory that is gone is named with its `/`, above).
      const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
      // Its directory gone too (the watch saw the file go first): what was under it goes.
      if (dir && !exists(join(ws.top, dir))) goneDirs.push(`:(literal)${dir.slice(0, -1)}`);
      else pathspecs.add(`:(glob)${dir.replace(/[\\*?[]/g, "\\$&")}*`);
    }
  }
  return { pathspecs: [...pathspecs], goneDirs };
}

/**
 * The repositories a restore leaves as they are, given what differs from the working tree (just
 * added to the private index) to the target: one inside the workspace now or in the snapshot.
 * The snapshot holds only the commit each was at, and its files (its `.git` too) are its own.
 */
function keptRepositories(ws: Workspace, between: VcsFileChange[]): string[] {
  const now = readIndexEarly(ws.indexFile);
  return [...new Set([...(now ? gitlinks(now.index.entries, ws.prefix) : []), ...between.filter(isRepositoryChange).map((c) => c.path.slice(ws.prefix.length))])].sort();
}


/** `path` is `dir` or lies under it (both `/`-separated, relative to the same place). */
const isUnder = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** Whether `path` is on disk (a dangling symlink is; a path under a file is not). Unknown counts as there: git decides. */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== "ENOENT" && code !== "ENOTDIR";
  }
}

/** Removes directories left empty by deletions, up to (not including) the workspace. */
function removeEmptyDirs(ws: Workspace, paths: string[]): void {
  const dirs = new Set<string>();
  for (const p of paths) for (let d = dirname(p); d !== "." && `${d}/` !== ws.prefix && d.length >= ws.prefix.length; d = dirname(d)) dirs.add(d);
  for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
    const abs = join(ws.top, d);
    try {
      if (readdirSync(abs).length === 0) rmdirSync(abs);
    } catch {
      // already gone, or not a directory
    }
  }
}

/** A directory standing where the target has a file (only possible if it holds ignored files). */
function clearBlockingDir(ws: Workspace, path: string): void {
  const abs = join(ws.top, path);
  try {
    if (statSync(abs, { throwIfNoEntry: false })?.isDirectory()) rmSync(abs, { recursive: true, force: true });
  } catch {
    // checkout-index reports what it cannot write
  }
}

/** The workspace's git directory as a real path ("" when it cannot be resolved). */
function realGitDir(ws: Workspace): string {
  try {
    return realpathSync(ws.gitDir);
  } catch {
    return "";
  }
}
