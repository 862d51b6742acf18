/**
 * Snapshots and restores under random file operations (docs/time-travel.md): each snapshot is
 * the tree a fresh whole-workspace `git add -A` gives at that moment, and each restore gives a
 * snapshot's files back, whatever was done in between: edits (same-size ones within a timestamp
 * tick too), binary files, deletions, renames of files and directories, directories removed and
 * made again (their inode numbers come back on ext4), modes, symlinks, `.gitignore` files at any
 * depth, the repository's `info/exclude` and `core.excludesFile`, bursts of events, the user's own commits and stashes, names that mean something to a
 * pathspec or are not ASCII; every third seed in a sub-directory workspace, every fourth in a
 * linked worktree, every fifth with the user's index in version 4; and now and then a new process (a new port over the same private index, as
 * when Flow starts again), which may prepare the workspace first as the CLI does. Each seed is
 * one reproducible sequence; `FLOW_RANDOM_EDITS=1-500` runs more of them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, lstatSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { createGitVcs } from "./git.js";
import { gitIn, tempRepo, treePicture } from "./testing.js";

const [FIRST, LAST] = (process.env.FLOW_RANDOM_EDITS ?? "1-12").split("-").map(Number) as [number, number | undefined];
const STEPS = 40;
const NAMES = ["a.txt", "b.bin", "c d.txt", "ü.txt", "-dash", "x*y", "q?", "[br]", ":colon", "back\\slash", "deep", "e.log", "f"];
const DIRS = ["", "src", "src/deep", "lib", "lib/x y", "build", "n/m/o", "tmp.log", "ü/日本", "[br]", ":m"];
const IGNORE_RULES = [".flow/", "*.log", "build/", "lib/", "*.bin", "!keep.bin", "n/"];
const NESTED_RULES = ["*.bin\n", "x*\n", "deep/\n", "*\n!keep.bin\n", "f\n", ""];
/** What `info/exclude` and `core.excludesFile` may hold: rules a `.gitignore` may override (`!keep.bin`, `*.bin`) and directories. */
const EXCLUDE_RULES = ["lib/", "src/deep/", "n/", "*.bin", "[br]/", "ü/", "tmp.log/"];
const USER = { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@t" };

/** xorshift32: the same sequence for a seed on every machine. */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/**
 * The tree `git add -A` of the workspace (`prefix` in the repository at `top`) gives in a copy
 * of the user's index, dated as it: what a fresh whole-workspace snapshot holds.
 */
function freshTree(top: string, prefix: string): string {
  const index = join(tempDir("flow-index-"), "index");
  execFileSync("cp", ["-p", resolve(top, gitIn(top, "rev-parse", "--git-path", "index")), index]);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  // Its warnings (a symlink loop the operations made: "Too many levels of symbolic links") are
  // git's to say, not the test's; a failure still throws with them.
  execFileSync("git", ["-C", top, "add", "-A", "--", prefix ? `:(top)${prefix}` : ":/"], { env, stdio: ["ignore", "pipe", "pipe"] });
  return execFileSync("git", ["-C", top, "write-tree"], { env, encoding: "utf8" }).trim();
}

/** What `treePicture` gives for the files of commit `pointer` under `prefix` (relative to it). */
function pictureOf(top: string, prefix: string, pointer: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of execFileSync("git", ["-C", top, "ls-tree", "-r", "-z", pointer, "--", ...(prefix ? [prefix] : [])], { encoding: "utf8" }).split("\0").filter(Boolean)) {
    const [meta, full] = line.split("\t") as [string, string];
    const path = full.slice(prefix.length);
    const [mode, , sha] = meta.split(" ") as [string, string, string];
    const content = execFileSync("git", ["-C", top, "cat-file", "blob", sha]);
    out[path] = mode === "120000" ? `link:${content.toString("utf8")}` : `${mode === "100755" ? "x" : "-"}:${createHash("sha256").update(content).digest("hex")}`;
  }
  return out;
}

/** Of `paths` (relative to `dir`), those git ignores by the `.gitignore` files as they are now. */
function ignoredOf(dir: string, paths: string[]): Set<string> {
  if (!paths.length) return new Set();
  // Each from `./`: a name such as `:m` would be pathspec magic (check-ignore takes no `:(literal)`).
  const out = spawnSync("git", ["-C", dir, "check-ignore", "--no-index", "--stdin", "-z"], { input: paths.map((path) => `./${path}\0`).join(""), encoding: "utf8" }).stdout;
  return new Set(out.split("\0").filter(Boolean).map((path) => path.slice(2)));
}

/** Every path under `dir` but `.git` and the root's `.flow`, directories included. */
function allPaths(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel))) {
    const path = rel ? `${rel}/${name}` : name;
    if (path === ".git" || path === ".flow") continue;
    out.push(path);
    if (lstatSync(join(dir, path)).isDirectory()) out.push(...allPaths(dir, path));
  }
  return out;
}

const isFile = (dir: string) => (path: string) => lstatSync(join(dir, path)).isFile();

describe.runIf(process.platform === "linux")("snapshots and restores under random file operations", () => {
  for (let seed = FIRST; seed <= (LAST ?? FIRST); seed++) {
    it(`seed ${seed}`, async () => {
      const r = random(seed);
      const pick = <T,>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
      // Every third seed works in a sub-directory of the repository, beside a file outside it;
      // every fourth in a linked worktree (its `.git` a file, its index and HEAD its own).
      const main = tempRepo();
      const top = seed % 4 === 1 ? join(tempDir("flow-linked-"), "wt") : main;
      if (top !== main) gitIn(main, "worktree", "add", "-q", "-b", `linked${seed}`, top);
      const prefix = seed % 3 === 0 ? "pkg/" : "";
      const dir = join(top, prefix);
      if (prefix) writeFileSync(join(top, "outside.txt"), "outside\n");
      mkdirSync(join(dir, "src", "deep"), { recursive: true });
      writeFileSync(join(dir, ".gitignore"), ".flow/\n*.log\nbuild/\n");
      writeFileSync(join(dir, "src", "a.txt"), "a\n");
      writeFileSync(join(dir, "src", "deep", "f"), "f\n");
      gitIn(top, "add", "-A");
      gitIn(top, "commit", "-q", "-m", "base");
      // Every fifth with your index in version 4 (`feature.manyFiles`; git keeps it so).
      if (seed % 5 === 2) {
        gitIn(top, "config", "feature.manyFiles", "true");
        gitIn(top, "update-index", "--index-version", "4");
      }
      let vcs = createGitVcs();
      // Their own sequences, so that each seed's file operations are the ones it always had.
      const restarts = random(seed ^ 0x5bd1e995);
      const excludes = random(seed ^ 0x2545f491);
      const infoExclude = join(resolve(top, gitIn(top, "rev-parse", "--git-common-dir")), "info", "exclude");
      const globalExcludes = join(tempDir("flow-excludes-"), "ignore");
      writeFileSync(globalExcludes, "");
      gitIn(main, "config", "core.excludesFile", globalExcludes);
      const pointers: string[] = [];
      const done: string[] = [];
      const context = (step: number) => `seed ${seed}, step ${step}, after:\n${done.join("\n")}`;

      /** One random operation; one that the file system refuses (a file where a directory is needed) is skipped. */
      const operate = () => {
        const k = r();
        const d = pick(DIRS);
        const target = join(dir, d, pick(NAMES));
        const ensure = () => mkdirSync(join(dir, d), { recursive: true });
        const some = (filter: (path: string) => boolean = () => true) => {
          const paths = allPaths(dir).filter(filter);
          return paths.length ? pick(paths) : undefined;
        };
        const rel = (path: string) => path.slice(dir.length + 1);
        try {
          if (k < 0.22) {
            ensure();
            writeFileSync(target, r() < 0.3 ? Buffer.from(Array.from({ length: Math.floor(r() * 3000) }, () => Math.floor(r() * 256))) : `v${Math.floor(r() * 4)}\n`);
            done.push(`write ${rel(target)}`);
          } else if (k < 0.32) {
            const path = some();
            if (path === undefined) return;
            rmSync(join(dir, path), { recursive: true, force: true });
            done.push(`rm -r ${path}`);
          } else if (k < 0.42) {
            const path = some();
            ensure();
            if (path === undefined || `${target}/`.startsWith(`${join(dir, path)}/`)) return;
            renameSync(join(dir, path), target);
            done.push(`mv ${path} ${rel(target)}`);
          } else if (k < 0.48) {
            const path = some(isFile(dir));
            if (path === undefined) return;
            chmodSync(join(dir, path), r() < 0.5 ? 0o755 : 0o644);
            done.push(`chmod ${path}`);
          } else if (k < 0.53) {
            ensure();
            rmSync(target, { recursive: true, force: true });
            symlinkSync(pick(["a.txt", "../src", "nowhere", "deep"]), target);
            done.push(`ln -s ${rel(target)}`);
          } else if (k < 0.61) {
            // The same size, so only the time (within one tick of the clock) and the content differ.
            const path = some(isFile(dir));
            if (path === undefined) return;
            writeFileSync(join(dir, path), Buffer.alloc(statSync(join(dir, path)).size, 65 + Math.floor(r() * 26)));
            done.push(`rewrite ${path}`);
          } else if (k < 0.67) {
            const path = some(isFile(dir));
            if (path === undefined) return;
            appendFileSync(join(dir, path), "more\n");
            done.push(`append ${path}`);
          } else if (k < 0.71) {
            const rules = IGNORE_RULES.filter((_, i) => i < 3 || r() < 0.3);
            writeFileSync(join(dir, ".gitignore"), `${rules.join("\n")}\n`);
            done.push(`.gitignore ${rules.join(" ")}`);
          } else if (k < 0.74) {
            const d2 = pick(DIRS.filter(Boolean));
            mkdirSync(join(dir, d2), { recursive: true });
            const rules = pick(NESTED_RULES);
            writeFileSync(join(dir, d2, ".gitignore"), rules);
            done.push(`${d2}/.gitignore ${JSON.stringify(rules)}`);
          } else if (k < 0.77) {
            ensure();
            mkdirSync(join(dir, d, `empty${Math.floor(r() * 3)}`), { recursive: true });
            done.push(`mkdir ${d}/empty`);
          } else if (k < 0.82) {
            // Removed and made again at once: a file system may hand the same inode numbers out again.
            const d2 = pick(DIRS.filter(Boolean));
            rmSync(join(dir, d2), { recursive: true, force: true });
            if (r() < 0.3) writeFileSync(join(dir, d2), "now a file\n");
            else {
              mkdirSync(join(dir, d2, "deep"), { recursive: true });
              writeFileSync(join(dir, d2, "deep", "again.txt"), `again ${Math.floor(r() * 9)}\n`);
            }
            done.push(`again ${d2}`);
          } else if (k < 0.83) {
            // More events between two snapshots than the watch trusts.
            mkdirSync(join(dir, "burst"), { recursive: true });
            for (let i = 0; i < 4500; i++) writeFileSync(join(dir, "burst", `${i}`), "");
            rmSync(join(dir, "burst"), { recursive: true });
            done.push("burst");
          } else if (k < 0.86) {
            const args = r() < 0.5 ? ["stash", "-u", "-q"] : ["stash", "pop", "-q"];
            spawnSync("git", ["-C", dir, ...args], { env: USER });
            done.push(`git ${args.join(" ")}`);
          } else if (k < 0.9) {
            spawnSync("git", ["-C", dir, "add", "-A"], { env: USER });
            spawnSync("git", ["-C", dir, "commit", "-q", "-m", "user", "--allow-empty"], { env: USER });
            done.push("git commit -a");
          } else {
            // An editor's save: a temporary file renamed over the file.
            ensure();
            writeFileSync(`${target}.tmp~`, `t${Math.floor(r() * 9)}\n`);
            renameSync(`${target}.tmp~`, target);
            done.push(`save ${rel(target)}`);
          }
        } catch (error) {
          done.push(`(refused: ${(error as NodeJS.ErrnoException).code ?? error})`);
        }
      };

      for (let step = 0; step < STEPS; step++) {
        // A new process comes before this step's operations (which then race its preparation) or
        // after them (they happened while no process watched).
        const restart = restarts() < 0.08 ? (restarts() < 0.5 ? "before" : "after") : undefined;
        const prepared = restarts() < 0.5;
        const startAgain = () => {
          vcs = createGitVcs();
          if (prepared) vcs.prepare?.(dir);
          done.push(prepared ? "new process, prepared" : "new process");
        };
        if (restart === "before") startAgain();
        if (excludes() < 0.1) {
          const file = excludes() < 0.5 ? infoExclude : globalExcludes;
          const rules = EXCLUDE_RULES.filter(() => excludes() < 0.35);
          mkdirSync(join(file, ".."), { recursive: true });
          writeFileSync(file, rules.map((rule) => `${rule}\n`).join(""));
          done.push(`${file === infoExclude ? "info/exclude" : "core.excludesFile"} ${rules.join(" ")}`);
        }
        const count = Math.floor(r() * 4);
        for (let i = 0; i < count; i++) operate();
        if (restart === "after") startAgain();
        if (r() < 0.15 && pointers.length > 1) {
          const i = Math.floor(r() * pointers.length);
          // A restore leaves what git ignores as it is: what it ignored before is left out of the comparison.
          const kept = ignoredOf(dir, allPaths(dir));
          const outside = (path: string) => path === ".flow" || [...kept].some((k) => path === k || path.startsWith(`${k}/`));
          await vcs.restore(dir, pointers[i]!);
          done.push(`restore ${i}`);
          const want = Object.fromEntries(Object.entries(pictureOf(top, prefix, pointers[i]!)).filter(([path]) => !outside(path)));
          expect(treePicture(dir, outside), context(step)).toEqual(want);
          continue;
        }
        if (r() < 0.2) await new Promise((resolve) => setTimeout(resolve, Math.floor(r() * 30)));
        const pointer = await vcs.snapshot(dir, `refs/flow/runs/random${seed}/${pointers.length}`);
        const got = gitIn(dir, "rev-parse", `${pointer}^{tree}`);
        const want = freshTree(top, prefix);
        if (got !== want) {
          // A file git ignores may be in one and not the other: the private index keeps what the
          // user's index tracked when it was made, and what a restore put back
          // (docs/time-travel.md). Any other difference is a change the snapshot missed.
          const differ = execFileSync("git", ["-C", top, "diff-tree", "-r", "-z", "--name-only", want, got], { encoding: "utf8" }).split("\0").filter(Boolean);
          const ignored = ignoredOf(dir, differ.filter((path) => path.startsWith(prefix)).map((path) => path.slice(prefix.length)));
          expect(differ.filter((path) => !ignored.has(path.slice(prefix.length))), context(step)).toEqual([]);
        }
        pointers.push(pointer);
        done.push(`snapshot ${pointers.length - 1}`);
      }
    }, 60_000);
  }
});
