import { chmodSync, mkdirSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { createGitVcs } from "./git.js";
import { gitIn, loggingGit as loggingGitLines, tempRepo, workingTreeId } from "./testing.js";

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
    expect(since()).toEqual(["rev-parse", "check-ignore", "add"]);
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

  it("lets git write the tree, commit and ref where its index is in a form Flow does not read (version 4)", async () => {
    const dir = tempRepo();
    gitIn(dir, "update-index", "--index-version", "4"); // the private index is seeded from it
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
