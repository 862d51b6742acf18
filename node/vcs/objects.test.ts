import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { createGitVcs } from "./git.js";
import { invalidate, readIndex } from "./index-format.js";
import { treeOf } from "./objects.js";
import { gitIn, loggingGit as loggingGitLines, privateIndexOf, tempRepo, workingTreeId } from "./testing.js";

/** The real git behind a logging script: the name of each git command a snapshot ran. */
function loggingGit() {
  const git = loggingGitLines();
  return { gitPath: git.gitPath, since: () => git.since().map((l) => l.split(" ")[0]!) };
}

describe.runIf(process.platform === "linux")("snapshot trees, commits and refs written in process", () => {
  it("takes an editing snapshot with one git process (add) and writes what git's write-tree, commit-tree and update-ref would", async () => {
    const dir = tempRepo();
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    writeFileSync(join(dir, "src", "a.txt"), "a\n");
    writeFileSync(join(dir, "src", "a-b.txt"), "ab\n");
    writeFileSync(join(dir, "src", "deep", "x.bin"), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(dir, "src0"), "a file sorted after the directory src\n");
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "more");
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    const first = await vcs.snapshot(dir, "refs/flow/runs/o/0");
    // Where the repository is and where core.excludesFile is (rev-parse, check-ignore and config,
    // started together), then the add.
    const located = since();
    expect(located.slice(0, 3).sort()).toEqual(["check-ignore", "config", "rev-parse"]);
    expect(located.slice(3)).toEqual(["add"]);
    expect(gitIn(dir, "rev-parse", `${first}^{tree}`)).toBe(gitIn(dir, "rev-parse", "HEAD^{tree}"));

    const edits: Array<() => void> = [
      () => writeFileSync(join(dir, "src", "deep", "x.bin"), Buffer.from([9, 0, 9])),
      () => chmodSync(join(dir, "src", "a.txt"), 0o755),
      () => symlinkSync("src/a.txt", join(dir, "link")),
      () => unlinkSync(join(dir, "src", "a-b.txt")),
      () => writeFileSync(join(dir, "src", "new.txt"), "new\n"),
    ];
    const pointers = [first];
    for (const [i, edit] of edits.entries()) {
      edit();
      const pointer = await vcs.snapshot(dir, `refs/flow/runs/o/${i + 1}`);
      // Before: sh, add, write-tree, commit-tree, update-ref. A tracked file edited in place
      // (the first edit) needs no git process at all (node/vcs/index-edit.ts).
      expect(since(), `snapshot ${i + 1}`).toEqual(i === 0 ? [] : ["add"]);
      expect(gitIn(dir, "rev-parse", `${pointer}^{tree}`), `snapshot ${i + 1}`).toBe(workingTreeId(dir, tempDir("flow-index-")));
      expect(gitIn(dir, "rev-parse", `refs/flow/runs/o/${i + 1}`)).toBe(pointer);
      expect(gitIn(dir, "cat-file", "-p", pointer)).toMatch(new RegExp(`^tree [0-9a-f]{40}\nauthor Flow <flow@localhost> \\d+ [+-]\\d{4}\ncommitter Flow <flow@localhost> \\d+ [+-]\\d{4}\n\nflow snapshot$`));
      pointers.push(pointer);
    }
    expect(gitIn(dir, "fsck", "--no-dangling", "--no-progress")).toBe("");
    expect(gitIn(dir, "ls-tree", "-r", pointers.at(-1)!, "--", "link", "src/a.txt")).toMatch(/^120000 blob \S+\tlink\n100755 blob \S+\tsrc\/a\.txt$/);
    // Nothing changed: the same commit, no new object.
    expect(await vcs.snapshot(dir, "refs/flow/runs/o/again")).toBe(pointers.at(-1));
  });

  it("leaves the private index's cached trees valid, as git's write-tree does, so the next snapshot hashes only what changed", async () => {
    const dir = tempRepo();
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(dir, `d${d}`, "sub"), { recursive: true });
      writeFileSync(join(dir, `d${d}`, "sub", "f.txt"), `${d}\n`);
    }
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "twenty directories");
    // Changed in every directory: git's add leaves the private index's cached trees invalid for
    // all of them, so the first snapshot hashes 41 trees.
    for (let d = 0; d < 20; d++) writeFileSync(join(dir, `d${d}`, "sub", "f.txt"), `${d} changed\n`);
    const vcs = createGitVcs();
    const privateIndex = () => privateIndexOf(dir);
    const cachedTop = () => readIndex(readFileSync(privateIndex())).cacheTree?.id;
    const withPrivateIndex = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { env: { ...process.env, GIT_INDEX_FILE: privateIndex() }, encoding: "utf8" }).trim();

    const first = await vcs.snapshot(dir, "refs/flow/runs/c/0");
    const firstTree = gitIn(dir, "rev-parse", `${first}^{tree}`);
    expect(firstTree).toBe(workingTreeId(dir, tempDir("flow-index-")));
    expect(cachedTop()).toBe(firstTree);
    // Git reads the index Flow wrote (its checksum, its TREE) and trusts the cached trees: its
    // own write-tree answers from them, and after git's add of one file it rehashes that
    // directory only, skipping the others by their entry counts.
    expect(withPrivateIndex("write-tree")).toBe(firstTree);
    writeFileSync(join(dir, "d7", "sub", "f.txt"), "seven again\n");
    withPrivateIndex("add", "d7/sub/f.txt");
    expect(withPrivateIndex("write-tree")).toBe(workingTreeId(dir, tempDir("flow-index-")));

    // An editing snapshot (node/vcs/index-edit.ts) leaves them valid too.
    writeFileSync(join(dir, "d3", "sub", "f.txt"), "three again\n");
    const edited = await vcs.snapshot(dir, "refs/flow/runs/c/1");
    expect(cachedTop()).toBe(gitIn(dir, "rev-parse", `${edited}^{tree}`));
    expect(cachedTop()).toBe(workingTreeId(dir, tempDir("flow-index-")));
    // The next tree built from that index hashes nothing; one edited file rehashes its directories only.
    const index = readIndex(readFileSync(privateIndex()));
    expect(treeOf({ objectsDir: join(dir, ".git", "objects"), commonDir: join(dir, ".git"), known: new Set() }, index).hashed).toBe(0);
    invalidate(index.cacheTree!, "d5/sub/f.txt");
    expect(treeOf({ objectsDir: join(dir, ".git", "objects"), commonDir: join(dir, ".git"), known: new Set() }, index)).toEqual({ tree: cachedTop(), hashed: 3 });
    expect(gitIn(dir, "fsck", "--no-dangling", "--no-progress")).toBe("");
  });

  it("lets git write the tree, commit and ref where its index is in a form Flow does not read (a split index)", async () => {
    const dir = tempRepo();
    gitIn(dir, "update-index", "--split-index"); // the private index is seeded from it
    const { gitPath, since } = loggingGit();
    const vcs = createGitVcs({ gitPath });
    await vcs.snapshot(dir, "refs/flow/runs/v/0");
    writeFileSync(join(dir, "README.md"), "edited\n");
    const pointer = await vcs.snapshot(dir, "refs/flow/runs/v/1");
    expect(since().slice(-4)).toEqual(["add", "write-tree", "commit-tree", "update-ref"]);
    expect(gitIn(dir, "rev-parse", `${pointer}^{tree}`)).toBe(workingTreeId(dir, tempDir("flow-index-")));
    expect(gitIn(dir, "rev-parse", "refs/flow/runs/v/1")).toBe(pointer);
  });
});
