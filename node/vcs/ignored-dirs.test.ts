import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/temp-dir.js";
import { createGitVcs } from "./git.js";
import { gitIn, tempRepo } from "./testing.js";
import { IgnoredDirs } from "./ignored-dirs.js";
import { watchTree } from "./watch.js";
import { indexName, infoExcludeOf } from "./workspace.js";

/** What an earlier process's snapshot left: the private index of `dir`, the user's with the whole workspace added. */
function earlierSnapshot(repo: string, dir = repo): string {
  const index = join(repo, ".git", "flow", indexName(dir));
  mkdirSync(dirname(index), { recursive: true });
  copyFileSync(join(repo, ".git", "index"), index);
  execFileSync("git", ["-C", repo, "add", "-A"], { env: { ...process.env, GIT_INDEX_FILE: index } });
  return index;
}

describe("IgnoredDirs", () => {
  it("excludes what git excludes, with git's precedence, and never a directory that holds a tracked file", () => {
    const repo = tempRepo();
    writeFileSync(join(repo, ".gitignore"), "node_modules/\n/build\ndist/\n*.tmp/\nBig/\n");
    mkdirSync(join(repo, "pkg", "dist"), { recursive: true });
    // A deeper .gitignore lets one back in; a rule anchored at the top applies only there.
    writeFileSync(join(repo, "pkg", ".gitignore"), "!dist/\n");
    mkdirSync(join(repo, "vendor", "keep"), { recursive: true });
    writeFileSync(join(repo, "vendor", "keep", "patched.js"), "x\n");
    writeFileSync(join(repo, ".gitignore"), "node_modules/\n/build\ndist/\n*.tmp/\nBig/\nvendor/\n");
    gitIn(repo, "add", "-f", "vendor/keep/patched.js");
    const dirs = new IgnoredDirs(repo, "", [join(repo, ".git", "flow", "none"), join(repo, ".git", "index")]);
    expect(["node_modules", "a/node_modules", "build", "dist", "x.tmp", "Big"].filter((d) => dirs.ignored(d))).toEqual(["node_modules", "a/node_modules", "build", "dist", "x.tmp", "Big"]);
    // Not ignored: anchored elsewhere, re-included deeper, another case (git on Linux is case-sensitive), a tracked file inside.
    expect(["src", "a/build", "pkg/dist", "big", "vendor", "vendor/keep"].filter((d) => dirs.ignored(d))).toEqual([]);
  });

  it("reads the repository's info/exclude below every .gitignore, as git does, a linked worktree's from the common directory", () => {
    const repo = tempRepo();
    writeFileSync(join(repo, ".gitignore"), ".flow/\n!cache/\n");
    mkdirSync(join(repo, "lib"));
    writeFileSync(join(repo, "lib", ".gitignore"), "!local/\n");
    appendFileSync(join(repo, ".git", "info", "exclude"), "node_modules/\ncache/\n*.venv/\nlocal/\n/out/\n");
    gitIn(repo, "add", ".gitignore", "lib/.gitignore");
    gitIn(repo, "commit", "-qm", "rules");
    const dirs = ["node_modules", "a/node_modules", "cache", "x.venv", "local", "lib/local", "out", "lib/out", "src"];
    // git's own answer for each, as directories.
    const byGit = (dir: string) => gitIn(dir, "check-ignore", "--no-index", "--", ...dirs.map((d) => `${d}/`)).split("\n").filter(Boolean).map((d) => d.slice(0, -1));
    expect(byGit(repo)).toEqual(["node_modules", "a/node_modules", "x.venv", "local", "out"]);
    const mine = new IgnoredDirs(repo, "", [join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")) });
    expect(dirs.filter((d) => mine.ignored(d))).toEqual(byGit(repo));
    // A linked worktree's git directory is .git/worktrees/<name>; the rules are the common directory's.
    const tree = join(repo, "..", `${basename(repo)}-wt`);
    gitIn(repo, "worktree", "add", "-q", tree);
    const gitDir = gitIn(tree, "rev-parse", "--absolute-git-dir");
    expect(gitDir).toContain(join(".git", "worktrees"));
    const theirs = new IgnoredDirs(tree, "", [join(gitDir, "index")], { info: infoExcludeOf(gitDir) });
    expect(dirs.filter((d) => theirs.ignored(d))).toEqual(byGit(tree));
    // No info directory at all (a repository made without templates): only the .gitignore files.
    rmSync(join(repo, ".git", "info"), { recursive: true });
    const none = new IgnoredDirs(repo, "", [join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")) });
    expect(none.ruleFiles).toEqual([]);
    expect(dirs.filter((d) => none.ignored(d))).toEqual([]);
  });

  it("reads core.excludesFile below info/exclude, where it is known", () => {
    const repo = tempRepo();
    const global = join(tempDir("flow-excludes-"), "ignore");
    writeFileSync(global, "node_modules/\ncache/\n*.venv/\n");
    gitIn(repo, "config", "core.excludesFile", global);
    writeFileSync(join(repo, ".git", "info", "exclude"), "!cache/\n");
    writeFileSync(join(repo, ".gitignore"), ".flow/\n!x.venv/\n");
    const dirs = ["node_modules", "lib/node_modules", "cache", "x.venv", "y.venv", "src"];
    const byGit = gitIn(repo, "check-ignore", "--no-index", "--", ...dirs.map((d) => `${d}/`)).split("\n").map((d) => d.slice(0, -1));
    expect(byGit).toEqual(["node_modules", "lib/node_modules", "y.venv"]);
    const known = new IgnoredDirs(repo, "", [join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")), global });
    expect(dirs.filter((d) => known.ignored(d))).toEqual(byGit);
    // Not known (git has not said): only what the repository's own rules exclude; told later, its rules apply.
    const unknown = new IgnoredDirs(repo, "", [join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")) });
    expect(dirs.filter((d) => unknown.ignored(d))).toEqual([]);
    expect(unknown.useExcludesFile(global)).toBe(true);
    expect(unknown.useExcludesFile(global)).toBe(false);
    expect(unknown.ruleFiles).toContain(global);
    expect(dirs.filter((d) => unknown.ignored(d))).toEqual(byGit);
  });

  it("counts every directory as holding tracked files where the index keeps its entries elsewhere (a split index)", () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "vendor"));
    writeFileSync(join(repo, "vendor", "patched.js"), "x\n");
    writeFileSync(join(repo, ".gitignore"), "vendor/\n");
    gitIn(repo, "add", "-f", "vendor/patched.js");
    // The entries move to a shared index file; the index itself names it (its `link` extension).
    gitIn(repo, "update-index", "--split-index");
    expect(gitIn(repo, "ls-files", "vendor")).toBe("vendor/patched.js");
    const dirs = new IgnoredDirs(repo, "", [join(repo, ".git", "index")]);
    expect(dirs.ignored("vendor")).toBe(false);
  });

  it("reads the .gitignore files above a workspace in a sub-directory, relative to where each is", () => {
    const repo = tempRepo();
    writeFileSync(join(repo, ".gitignore"), "pkg/cache/\nout/\n");
    mkdirSync(join(repo, "pkg"));
    const dirs = new IgnoredDirs(join(repo, "pkg"), "pkg/", [join(repo, ".git", "index")]);
    expect(["cache", "out", "lib/out"].map((d) => dirs.ignored(d))).toEqual([true, true, true]);
    expect(dirs.ignored("src")).toBe(false);
  });

  it("finds a file the private index holds, the user's does not, and a .gitignore now excludes", () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "build"));
    writeFileSync(join(repo, "build", "keep.txt"), "k\n");
    writeFileSync(join(repo, "notes.txt"), "n\n");
    writeFileSync(join(repo, "ü.txt"), "u\n");
    const index = earlierSnapshot(repo);
    const stale = () => new IgnoredDirs(repo, "", [index, join(repo, ".git", "index")]).holdsNowIgnored();
    // Untracked files the snapshot took, still let in: kept.
    expect(stale()).toBe(false);
    // A file excluded by name, a non-ASCII one, one under an excluded directory (which no rule
    // can let back in, as in git), and not one the user's index tracks.
    for (const rules of ["notes.txt\n", "ü.txt\n", "build/\n!build/keep.txt\n"]) {
      writeFileSync(join(repo, ".gitignore"), `.flow/\n${rules}`);
      expect(stale(), rules).toBe(true);
    }
    writeFileSync(join(repo, ".gitignore"), ".flow/\nREADME.md\n*.txt\n!notes.txt\n!ü.txt\n!build/keep.txt\n");
    expect(stale()).toBe(false);
    // A deeper .gitignore decides for its directory.
    writeFileSync(join(repo, "build", ".gitignore"), "keep.txt\n");
    expect(stale()).toBe(true);
    // No private index, or none of the user's (a repository with no commit): nothing to say, or every untracked file is looked at.
    expect(new IgnoredDirs(repo, "", [join(repo, ".git", "flow", "none"), join(repo, ".git", "index")]).holdsNowIgnored()).toBe(false);
    rmSync(join(repo, ".git", "index"));
    expect(stale()).toBe(true);
  });

  it("finds a file the private index holds that info/exclude now excludes", () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "cache"));
    writeFileSync(join(repo, "cache", "blob.bin"), "b\n");
    const index = earlierSnapshot(repo);
    const stale = () => new IgnoredDirs(repo, "", [index, join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")) }).holdsNowIgnored();
    expect(stale()).toBe(false);
    appendFileSync(join(repo, ".git", "info", "exclude"), "cache/\n");
    expect(stale()).toBe(true);
  });

  it("looks without failing where a directory the private index holds files of is now a file", () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "gen"));
    writeFileSync(join(repo, "gen", "out.txt"), "o\n");
    const index = earlierSnapshot(repo);
    rmSync(join(repo, "gen"), { recursive: true });
    writeFileSync(join(repo, "gen"), "a file now\n");
    writeFileSync(join(repo, ".gitignore"), ".flow/\n*.log\n");
    expect(new IgnoredDirs(repo, "", [index, join(repo, ".git", "index")]).holdsNowIgnored()).toBe(false);
  });

  it.runIf(process.platform === "linux")("a .gitignore changed while no process watched: the next process's snapshots and watch leave out what it excludes", async () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "node_modules", "pkg"), { recursive: true });
    writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "x\n");
    writeFileSync(join(repo, "notes.txt"), "n\n");
    earlierSnapshot(repo);
    writeFileSync(join(repo, ".gitignore"), ".flow/\nnode_modules/\n");
    const vcs = createGitVcs();
    const pointer = await vcs.snapshot(repo, "refs/flow/t/1");
    expect(gitIn(repo, "ls-tree", "-r", "--name-only", pointer).split("\n")).toEqual([".gitignore", "README.md", "notes.txt"]);
    // Its directories are not watched: a write there changes no snapshot; one beside them does.
    writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "y\n");
    expect(await vcs.unchangedSince!(repo, pointer, { settle: true })).toBe(true);
    writeFileSync(join(repo, "notes.txt"), "changed\n");
    expect(await vcs.unchangedSince!(repo, pointer, { settle: true })).toBe(false);
  });

  it.runIf(process.platform === "linux")("leaves them out of a watch, and watches one a changed .gitignore lets in", async () => {
    const repo = tempRepo();
    writeFileSync(join(repo, ".gitignore"), ".flow/\nnode_modules/\n");
    mkdirSync(join(repo, "node_modules", "left", "deep"), { recursive: true });
    mkdirSync(join(repo, "src"));
    const w = watchTree(repo, new IgnoredDirs(repo, "", [join(repo, ".git", "index")]));
    await w.settle();
    let g = w.generation;
    writeFileSync(join(repo, "node_modules", "left", "deep", "x.js"), "x\n");
    await w.settle();
    expect(w.generation).toBe(g);
    writeFileSync(join(repo, "src", "a.ts"), "a\n");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["src/a.ts"]);
    // A new ignored directory made later is left out too.
    mkdirSync(join(repo, "src", "node_modules", "p"), { recursive: true });
    await w.settle();
    g = w.generation;
    writeFileSync(join(repo, "src", "node_modules", "p", "y.js"), "y\n");
    await w.settle();
    expect(w.generation).toBe(g);
    // The rules change: the directory is let in and watched from the next settle on.
    writeFileSync(join(repo, ".gitignore"), ".flow/\n");
    await w.settle();
    g = w.generation;
    writeFileSync(join(repo, "node_modules", "left", "deep", "x.js"), "changed\n");
    await w.settle();
    expect(w.generation).toBeGreaterThan(g);
    expect(w.trusted).toBe(true);
  });

  it.runIf(process.platform === "linux")("lets go of the watch of a directory made again while a .gitignore excludes it, and watches it anew when let in", async () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "lib", "x"), { recursive: true });
    const w = watchTree(repo, new IgnoredDirs(repo, "", [join(repo, ".git", "index")]));
    writeFileSync(join(repo, ".gitignore"), ".flow/\nlib/\n");
    await w.settle();
    // Removed and made again while excluded: the same inode number (ext4), and no watch of it.
    rmSync(join(repo, "lib", "x"), { recursive: true });
    mkdirSync(join(repo, "lib", "x"));
    await w.settle();
    writeFileSync(join(repo, ".gitignore"), ".flow/\n");
    await w.settle();
    const g = w.generation;
    writeFileSync(join(repo, "lib", "x", "f.txt"), "f\n");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["lib/x/f.txt"]);
  });

  it.runIf(process.platform === "linux")("leaves out what info/exclude excludes, and stops vouching when its rules change", async () => {
    const repo = tempRepo();
    appendFileSync(join(repo, ".git", "info", "exclude"), "venv/\n");
    mkdirSync(join(repo, "venv", "lib"), { recursive: true });
    const w = watchTree(repo, new IgnoredDirs(repo, "", [join(repo, ".git", "index")], { info: infoExcludeOf(join(repo, ".git")) }));
    let g = w.generation;
    writeFileSync(join(repo, "venv", "lib", "site.py"), "a\n");
    await w.settle();
    expect(w.generation).toBe(g);
    // The rule goes: what was written under venv/ meanwhile was never named, so the watch cannot
    // vouch for the interval (a whole-workspace snapshot), and it watches venv/ now.
    writeFileSync(join(repo, ".git", "info", "exclude"), "# nothing\n");
    await w.settle();
    expect(w.generation).toBeGreaterThan(g);
    expect(w.changedSince(g, 10)).toBeUndefined();
    g = w.generation;
    writeFileSync(join(repo, "venv", "lib", "site.py"), "b\n");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["venv/lib/site.py"]);
    expect(w.trusted).toBe(true);
  });

  it.runIf(process.platform === "linux")("through the port: a directory info/exclude excludes costs a snapshot nothing, and a snapshot holds none of it", async () => {
    const repo = tempRepo();
    mkdirSync(join(repo, "node_modules", "pkg"), { recursive: true });
    writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "x\n");
    appendFileSync(join(repo, ".git", "info", "exclude"), "node_modules/\n");
    const vcs = createGitVcs();
    const pointer = await vcs.snapshot(repo, "refs/flow/t/1");
    expect(gitIn(repo, "ls-tree", "-r", "--name-only", pointer).split("\n")).toEqual([".gitignore", "README.md"]);
    writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "y\n");
    mkdirSync(join(repo, "node_modules", "new"));
    writeFileSync(join(repo, "node_modules", "new", "a.js"), "a\n");
    expect(await vcs.unchangedSince!(repo, pointer, { settle: true })).toBe(true);
    writeFileSync(join(repo, "README.md"), "changed\n");
    expect(await vcs.unchangedSince!(repo, pointer, { settle: true })).toBe(false);
  });

  it.runIf(process.platform === "linux")("watches a sub-directory workspace by the rules above it too, and stops vouching when one of those changes", async () => {
    const repo = tempRepo();
    writeFileSync(join(repo, ".gitignore"), ".flow/\npkg/cache/\n");
    mkdirSync(join(repo, "pkg", "cache"), { recursive: true });
    const root = join(repo, "pkg");
    const w = watchTree(root, new IgnoredDirs(root, "pkg/", [join(repo, ".git", "index")]));
    let g = w.generation;
    writeFileSync(join(root, "cache", "a.bin"), "a");
    await w.settle();
    expect(w.generation).toBe(g);
    // The rule above is gone: what was written under cache/ meanwhile was never named, so the
    // watch cannot vouch for the interval (a whole-workspace snapshot), and it watches cache/ now.
    writeFileSync(join(repo, ".gitignore"), ".flow/\n");
    await w.settle();
    expect(w.generation).toBeGreaterThan(g);
    expect(w.changedSince(g, 10)).toBeUndefined();
    g = w.generation;
    writeFileSync(join(root, "cache", "b.bin"), "b");
    await w.settle();
    expect(w.changedSince(g, 10)).toEqual(["cache/b.bin"]);
  });
});
