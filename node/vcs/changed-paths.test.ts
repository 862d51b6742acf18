import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { createGitVcs } from "./git.js";
import { gitIn, loggingGit as loggingGitLines, privateIndexOf, snapshotSeries, tempRepo, treePicture, userGitState } from "./testing.js";

const binary = (seed: number) => Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + seed) % 256));

/** The real git behind a logging script: the `add` and `rm` command lines each snapshot ran. */
function loggingGit() {
  const git = loggingGitLines();
  return { gitPath: git.gitPath, since: () => git.since().filter((l) => l.startsWith("add ") || l.startsWith("rm ")) };
}

/** The tree a full `git add -A` of the working tree gives, in an index of its own (what the snapshot must equal). */
function fullTree(dir: string): string {
  const index = join(tempDir("flow-index-"), "index");
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync("git", ["-C", dir, "add", "-A"], { env });
  return execFileSync("git", ["-C", dir, "write-tree"], { env, encoding: "utf8" }).trim();
}

/**
 * The tree a fresh whole-workspace snapshot gives: `git add -A` into a copy of the user's index
 * (files it tracks stay, ignored or not), dated as the original so git's racy check still applies.
 */
function treeFromUserIndex(dir: string): string {
  const index = join(tempDir("flow-index-"), "index");
  copyFileSync(join(dir, ".git", "index"), index);
  const { atime, mtime } = statSync(join(dir, ".git", "index"));
  utimesSync(index, atime, mtime);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync("git", ["-C", dir, "add", "-A"], { env });
  return execFileSync("git", ["-C", dir, "write-tree"], { env, encoding: "utf8" }).trim();
}

describe.runIf(process.platform === "linux")("snapshots from the paths the watch saw change", () => {
  it("gives git only the changed paths and still snapshots byte for byte (edits, deletions, modes, new directories, renames, ignored files)", async () => {
    const dir = tempRepo();
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src", "a.txt"), "a\n");
    writeFileSync(join(dir, "src", "b.txt"), "b\n");
    mkdirSync(join(dir, "old"));
    writeFileSync(join(dir, "old", "x.txt"), "x\n");
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "more");
    const user = userGitState(dir);
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    const skip = (p: string) => p === ".flow" || p.endsWith(".log");
    const { pictures, pointers, take } = snapshotSeries(vcs, dir, "refs/flow/runs/c/", skip);
    const trees: string[] = [];
    const snap = async () => {
      await take();
      trees.push(fullTree(dir));
      expect(gitIn(dir, "rev-parse", `${pointers.at(-1)}^{tree}`), `snapshot ${pointers.length - 1}`).toBe(trees.at(-1));
      return since();
    };

    // The first snapshot in a process cannot know what changed before it: the whole workspace.
    expect(await snap()).toEqual(["add -A -- :/ :(top,exclude).flow"]);

    /** The arguments of one `add -A --` line, sorted. */
    const args = (line: string | undefined) => line!.split(" ").slice(3).sort();

    // An edit, a binary file and a new untracked file in a new directory.
    writeFileSync(join(dir, "src", "a.txt"), "a2\n");
    mkdirSync(join(dir, "new", "deep"), { recursive: true });
    writeFileSync(join(dir, "new", "deep", "blob.bin"), binary(1));
    writeFileSync(join(dir, "new", "deep", "note.txt"), "fresh\n");
    const first = await snap();
    expect(first).toHaveLength(1);
    expect(args(first[0])).toEqual(expect.arrayContaining([":(literal)new", ":(literal)src/a.txt"]));
    expect(first[0]).not.toContain(":/");

    // A deletion and a mode change only: the deleted file through its directory's entries, no `rm` process.
    unlinkSync(join(dir, "src", "b.txt"));
    chmodSync(join(dir, "src", "a.txt"), 0o755);
    const deleted = await snap();
    expect(deleted).toHaveLength(1);
    expect(args(deleted[0])).toEqual([":(glob)src/*", ":(literal)src/a.txt"]);

    // A file and a directory renamed: the directory that is gone leaves the index with `rm --cached`.
    renameSync(join(dir, "src", "a.txt"), join(dir, "src", "renamed.txt"));
    renameSync(join(dir, "new"), join(dir, "moved"));
    const renamed = await snap();
    expect(renamed[0]).toBe("rm -r -q -f --cached --ignore-unmatch --pathspec-from-file=- --pathspec-file-nul");
    expect(args(renamed[1])).toEqual([":(glob)src/*", ":(literal)moved", ":(literal)src/renamed.txt"]);

    // Ignored files (one named, one inside a new ignored directory) and a file made and removed in between.
    writeFileSync(join(dir, "debug.log"), "ignored\n");
    mkdirSync(join(dir, "run.log"));
    writeFileSync(join(dir, "run.log", "inner.txt"), "ignored too\n");
    writeFileSync(join(dir, "src", "tmp.txt"), "gone soon\n");
    unlinkSync(join(dir, "src", "tmp.txt"));
    writeFileSync(join(dir, "moved", "deep", "note.txt"), "edited\n");
    const ignored = await snap();
    expect(ignored.every((l) => !l.includes(":/"))).toBe(true);
    expect(gitIn(dir, "ls-tree", "-r", "--name-only", pointers.at(-1)!).split("\n")).not.toContain("debug.log");

    // A directory replaced by a file, a symlink, a whole directory removed.
    rmSync(join(dir, "moved", "deep"), { recursive: true });
    writeFileSync(join(dir, "moved", "deep"), "now a file\n");
    symlinkSync("src/renamed.txt", join(dir, "link"));
    rmSync(join(dir, "old"), { recursive: true });
    expect((await snap()).every((l) => !l.includes(":/"))).toBe(true);

    // Every snapshot restores byte for byte; the user's branch, HEAD, index and stash never move.
    for (const i of [0, 5, 1, 3, 2, 4, 0]) {
      await vcs.restore(dir, pointers[i]!);
      expect(treePicture(dir, skip), `restore to snapshot ${i}`).toEqual(pictures[i]);
    }
    expect(readFileSync(join(dir, "debug.log"), "utf8")).toBe("ignored\n");
    expect(userGitState(dir)).toEqual(user);
    since();

    // After a restore the watch cannot vouch for the private index: the whole workspace again.
    writeFileSync(join(dir, "README.md"), "after restore\n");
    expect(await snap()).toEqual(["add -A -- :/ :(top,exclude).flow"]);
    writeFileSync(join(dir, "README.md"), "and again\n");
    // A tracked file edited in place: Node adds it (node/vcs/index-edit.ts), no git process.
    expect(await snap()).toEqual([]);
  });

  it("takes a prepared first snapshot once, and a snapshot after it holds what changed since (prepare)", async () => {
    const dir = tempRepo();
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    vcs.prepare!(dir);
    vcs.prepare!(dir);
    // The prepared snapshot's `git add` has started (once) before anyone asked for a snapshot.
    let started: string[] = [];
    while (!(started = [...started, ...since()]).length) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toEqual(["add -A -- :/ :(top,exclude).flow"]);
    // Written while that snapshot may be reading the tree: the next snapshot holds it all the same.
    writeFileSync(join(dir, "early.txt"), "early\n");
    const p1 = await vcs.snapshot(dir, "refs/flow/runs/p/0");
    expect(gitIn(dir, "rev-parse", `${p1}^{tree}`)).toBe(fullTree(dir));
    expect(gitIn(dir, "show", `${p1}:early.txt`)).toBe("early");
    expect(since()).not.toContain("add -A -- :/ :(top,exclude).flow");
    // Unchanged since: the next prepare does nothing, the next snapshot only names the commit.
    vcs.prepare!(dir);
    expect(await vcs.snapshot(dir, "refs/flow/runs/p/1")).toBe(p1);
    expect(since()).toEqual([]);
    expect(gitIn(dir, "rev-parse", "refs/flow/runs/p/1")).toBe(p1);
  });

  it("a directory made and removed while git read the tree leaves none of its files in the next snapshot, which still names only what changed", async () => {
    // Alone (what Node's own edit of the private index would take: no file entry of that name,
    // yet entries under it) and beside a new file.
    for (const beside of [undefined, "new.txt"]) {
      const dir = tempRepo();
      writeFileSync(join(dir, "kept.txt"), "kept\n");
      const { gitPath, since } = loggingGit();
      const vcs = createGitVcs({ gitPath });
      vcs.prepare!(dir);
      // Made while the prepared snapshot's `git add` reads the tree, and removed before the watch
      // could watch it: its events name only `burst`, a path that is gone.
      mkdirSync(join(dir, "burst"));
      for (let i = 0; i < 4000; i++) writeFileSync(join(dir, "burst", `${i}`), "");
      rmSync(join(dir, "burst"), { recursive: true });
      if (beside) writeFileSync(join(dir, beside), "new\n");
      await vcs.detect(dir); // the preparation is done
      const index = privateIndexOf(dir);
      const took = execFileSync("git", ["-C", dir, "ls-files", "burst"], { env: { ...process.env, GIT_INDEX_FILE: index }, encoding: "utf8" });
      expect(took.length, "git's add read some of burst/ (else this test shows nothing)").toBeGreaterThan(0);
      since();
      const pointer = await vcs.snapshot(dir, "refs/flow/runs/b/0");
      expect(gitIn(dir, "rev-parse", `${pointer}^{tree}`), `beside ${beside}`).toBe(fullTree(dir));
      // `burst` leaves the private index as a directory; the rest is named as before.
      const rm = "rm -r -q -f --cached --ignore-unmatch --pathspec-from-file=- --pathspec-file-nul";
      expect(since(), `beside ${beside}`).toEqual(beside ? [rm, `add -A -- :(literal)${beside}`] : [rm]);
    }
  });

  it("prepares a sub-directory workspace as a snapshot would (its own .flow left out), and never snapshots where git ignores the workspace", async () => {
    const dir = tempRepo({ ignoreFlow: false });
    writeFileSync(join(dir, ".gitignore"), "*.log\nbuild/\n");
    const sub = join(dir, "pkg");
    mkdirSync(join(sub, ".flow"), { recursive: true });
    writeFileSync(join(sub, "x.txt"), "x\n");
    writeFileSync(join(sub, ".flow", "flow.db"), "db");
    writeFileSync(join(dir, "outside.txt"), "o\n");
    mkdirSync(join(dir, "build"));
    writeFileSync(join(dir, "build", "out.txt"), "built\n");
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    vcs.prepare!(sub);
    vcs.prepare!(join(dir, "build"));
    expect(await vcs.ignores!(join(dir, "build"))).toBe(true);
    expect(await vcs.ignores!(sub)).toBe(false);
    // The ignored workspace's add starts before git has said it is ignored; nothing of it is kept.
    expect(since().sort()).toEqual(["add -A -- :(top)build/ :(top,exclude)build/.flow", "add -A -- :(top)pkg/ :(top,exclude)pkg/.flow"]);
    // The prepared commit is the snapshot, and only the sub-directory's files are in it.
    const p1 = await vcs.snapshot(sub, "refs/flow/runs/s/0");
    expect(since()).toEqual([]);
    expect(gitIn(dir, "ls-tree", "-r", "--name-only", p1).split("\n").sort()).toEqual([".gitignore", "README.md", "pkg/x.txt"]);
    await expect(vcs.snapshot(join(dir, "build"), "refs/flow/runs/b/0")).rejects.toThrow(/ignored by git/);
  });

  it("prepares where git would find the repository: a linked worktree, a stray .git directory, a workspace reached through a symlink", async () => {
    // A linked worktree: its `.git` is a file, so git is asked where the repository is first.
    const main = tempRepo();
    const linked = join(tempDir("flow-linked-"), "wt");
    gitIn(main, "worktree", "add", "-q", linked);
    writeFileSync(join(linked, "new.txt"), "in the worktree\n");
    // A `.git` directory that is no repository, inside one: git passes over it, and so does the guess.
    const outer = tempRepo();
    const inner = join(outer, "inner");
    mkdirSync(join(inner, ".git"), { recursive: true });
    writeFileSync(join(inner, "in.txt"), "in\n");
    // Through a symlink: Node's guess is made on the real path, as git's answers are.
    const real = tempRepo();
    writeFileSync(join(real, "r.txt"), "r\n");
    const alias = join(tempDir("flow-alias-"), "link");
    symlinkSync(real, alias);

    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    for (const dir of [linked, inner, alias]) vcs.prepare!(dir);
    const pointers = [await vcs.snapshot(linked, "refs/flow/runs/w/0"), await vcs.snapshot(inner, "refs/flow/runs/m/0"), await vcs.snapshot(alias, "refs/flow/runs/l/0")];
    expect(gitIn(linked, "rev-parse", `${pointers[0]}^{tree}`)).toBe(fullTree(linked));
    expect(gitIn(linked, "show", `${pointers[0]}:new.txt`)).toBe("in the worktree");
    // The workspace's files under the prefix git gives it (the rest as the user's index has it).
    expect(gitIn(outer, "ls-tree", "-r", "--name-only", pointers[1]!).split("\n")).toEqual([".gitignore", "README.md", "inner/in.txt"]);
    expect(gitIn(real, "rev-parse", `${pointers[2]}^{tree}`)).toBe(fullTree(real));
    // Each was prepared with one add, and its snapshot is that add's (no add at the snapshot).
    expect(since().sort()).toEqual(["add -A -- :(top)inner/ :(top,exclude)inner/.flow", "add -A -- :/ :(top,exclude).flow", "add -A -- :/ :(top,exclude).flow"]);
  });

  it("does not watch what a .gitignore excludes, yet snapshots a tracked file inside it and what a changed .gitignore lets in", async () => {
    const dir = tempRepo();
    writeFileSync(join(dir, ".gitignore"), ".flow/\nnode_modules/\nvendor/\n");
    mkdirSync(join(dir, "node_modules", "dep"), { recursive: true });
    writeFileSync(join(dir, "node_modules", "dep", "index.js"), "dep\n");
    mkdirSync(join(dir, "vendor", "lib"), { recursive: true });
    writeFileSync(join(dir, "vendor", "lib", "patched.js"), "v1\n");
    gitIn(dir, "add", "-A");
    gitIn(dir, "add", "-f", "vendor/lib/patched.js");
    gitIn(dir, "commit", "-q", "-m", "vendor");
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    vcs.prepare!(dir);
    const p0 = await vcs.snapshot(dir, "refs/flow/runs/i/0");
    since();
    // A write where git never looks: no event, no git work, the same snapshot.
    writeFileSync(join(dir, "node_modules", "dep", "index.js"), "dep 2\n");
    expect(await vcs.unchangedSince!(dir, p0, { settle: true })).toBe(true);
    expect(await vcs.snapshot(dir, "refs/flow/runs/i/1")).toBe(p0);
    expect(since()).toEqual([]);
    // A tracked file in an excluded directory is watched: its edit is in the next snapshot.
    writeFileSync(join(dir, "vendor", "lib", "patched.js"), "v2\n");
    const p2 = await vcs.snapshot(dir, "refs/flow/runs/i/2");
    expect(gitIn(dir, "show", `${p2}:vendor/lib/patched.js`)).toBe("v2");
    expect(gitIn(dir, "rev-parse", `${p2}^{tree}`)).toBe(treeFromUserIndex(dir));
    // The rules let node_modules in: it is in the next snapshot, and watched from then on.
    writeFileSync(join(dir, ".gitignore"), ".flow/\nvendor/\n");
    const p3 = await vcs.snapshot(dir, "refs/flow/runs/i/3");
    expect(gitIn(dir, "show", `${p3}:node_modules/dep/index.js`)).toBe("dep 2");
    writeFileSync(join(dir, "node_modules", "dep", "index.js"), "dep 3\n");
    const p4 = await vcs.snapshot(dir, "refs/flow/runs/i/4");
    expect(gitIn(dir, "show", `${p4}:node_modules/dep/index.js`)).toBe("dep 3");
    expect(gitIn(dir, "rev-parse", `${p4}^{tree}`)).toBe(treeFromUserIndex(dir));
  });

  it("falls back to the whole workspace when git refuses the short form", async () => {
    const dir = tempRepo();
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    await vcs.snapshot(dir, "refs/flow/runs/f/0");
    since();
    // A file under a path that became a symlink to a directory: git will not add it by name.
    mkdirSync(join(dir, "real"));
    writeFileSync(join(dir, "real", "f.txt"), "f\n");
    mkdirSync(join(dir, "via"));
    writeFileSync(join(dir, "via", "f.txt"), "f\n");
    const p1 = await vcs.snapshot(dir, "refs/flow/runs/f/1");
    since();
    rmSync(join(dir, "via"), { recursive: true });
    symlinkSync("real", join(dir, "via"));
    writeFileSync(join(dir, "real", "f.txt"), "f2\n");
    const p2 = await vcs.snapshot(dir, "refs/flow/runs/f/2");
    expect(since().at(-1)).toBe("add -A -- :/ :(top,exclude).flow");
    expect(gitIn(dir, "rev-parse", `${p2}^{tree}`)).toBe(fullTree(dir));
    expect(p2).not.toBe(p1);
    expect(gitIn(dir, "ls-tree", "-r", p2, "--", "via")).toMatch(/^120000 /);
  });

  it("snapshots what a whole-workspace `git add -A` would when a tracked .gitignore changes (files newly unignored or newly ignored)", async () => {
    const dir = tempRepo();
    mkdirSync(join(dir, "out"));
    writeFileSync(join(dir, "out", "a.gen"), "generated a\n");
    writeFileSync(join(dir, "keep.tmp"), "untracked, not ignored yet\n");
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", ".gitignore"), "*.gen\n");
    writeFileSync(join(dir, "sub", "b.gen"), "generated b\n");
    writeFileSync(join(dir, ".gitignore"), ".flow/\n*.log\nout/\n");
    gitIn(dir, "add", ".gitignore", "sub/.gitignore");
    gitIn(dir, "commit", "-q", "-m", "ignore rules");
    const vcs = createGitVcs();
    const reference = () => treeFromUserIndex(dir);
    const names = (pointer: string) => gitIn(dir, "ls-tree", "-r", "--name-only", pointer).split("\n");
    const first = await vcs.snapshot(dir, "refs/flow/runs/g/0");
    expect(names(first)).toContain("keep.tmp");
    expect(names(first)).not.toContain("out/a.gen");

    // Newly unignored: only the .gitignore files changed on disk, the files they now let in did not.
    writeFileSync(join(dir, ".gitignore"), ".flow/\n*.log\n");
    writeFileSync(join(dir, "sub", ".gitignore"), "");
    const atUnignored = treePicture(dir, (p) => p === ".flow");
    const unignored = await vcs.snapshot(dir, "refs/flow/runs/g/1");
    expect(names(unignored)).toEqual(expect.arrayContaining(["out/a.gen", "sub/b.gen"]));
    expect(gitIn(dir, "rev-parse", `${unignored}^{tree}`)).toBe(reference());

    // Newly ignored: an untracked file the last snapshot held leaves it, as a fresh `git add -A` leaves it out.
    writeFileSync(join(dir, ".gitignore"), ".flow/\n*.log\n*.tmp\n");
    const ignored = await vcs.snapshot(dir, "refs/flow/runs/g/2");
    expect(names(ignored)).not.toContain("keep.tmp");
    expect(gitIn(dir, "rev-parse", `${ignored}^{tree}`)).toBe(reference());

    // And back: the restore gives that state byte for byte.
    await vcs.restore(dir, unignored);
    expect(treePicture(dir, (p) => p === ".flow")).toEqual(atUnignored);
  });

  it("drops exactly the directories that went, whatever their names say to a pathspec (`:m`, `[br]`), and edits in a directory whose name is not ASCII", async () => {
    const dir = tempRepo();
    for (const d of [":m", "[br]", "b", "r", "ü/日本"]) {
      mkdirSync(join(dir, d), { recursive: true });
      writeFileSync(join(dir, d, "f.txt"), `${d}\n`);
    }
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "names");
    const vcs = createGitVcs();
    let n = 0;
    const snap = async () => {
      const pointer = await vcs.snapshot(dir, `refs/flow/runs/names/${n++}`);
      expect(gitIn(dir, "rev-parse", `${pointer}^{tree}`), `snapshot ${n - 1}`).toBe(fullTree(dir));
      return pointer;
    };
    await snap();
    // `[br]` read as a pattern would drop b/ and r/ too; `:m` read as magic, something else.
    rmSync(join(dir, ":m"), { recursive: true });
    rmSync(join(dir, "[br]"), { recursive: true });
    expect(gitIn(dir, "-c", "core.quotepath=off", "ls-tree", "-r", "--name-only", await snap()).split("\n")).toEqual([".gitignore", "README.md", "b/f.txt", "r/f.txt", "ü/日本/f.txt"]);
    // Edited in place twice (Node's own edit, node/vcs/index-edit.ts): the second starts from the
    // trees the first left valid, and must see that the directory changed again.
    for (const text of ["one\n", "two\n"]) {
      writeFileSync(join(dir, "ü/日本/f.txt"), text);
      expect(gitIn(dir, "show", `${await snap()}:ü/日本/f.txt`)).toBe(text.trim());
    }
  });
});
