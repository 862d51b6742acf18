import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { write } from "../tools/index.js";
import { createGitVcs } from "./git.js";
import { gitIn, loggingGit, privateIndexOf, tempRepo, workingTreeId } from "./testing.js";

/** A repository with files in nested directories, committed, and a port that has taken its first snapshot. */
async function editedRepo() {
  const dir = tempRepo();
  mkdirSync(join(dir, "src", "deep"), { recursive: true });
  writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(join(dir, "src", "deep", "b.bin"), Buffer.from([0, 1, 2, 3, 255]));
  writeFileSync(join(dir, "src0.txt"), "sorted after src/\n");
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-q", "-m", "files");
  const git = loggingGit();
  const vcs = createGitVcs({ gitPath: git.gitPath });
  await vcs.snapshot(dir, "refs/flow/runs/e/0");
  git.since();
  /** The git commands the next snapshot runs, after checking its tree is the working tree's. */
  const snap = async (n: number) => {
    const pointer = await vcs.snapshot(dir, `refs/flow/runs/e/${n}`);
    expect(gitIn(dir, "rev-parse", `${pointer}^{tree}`), `snapshot ${n}`).toBe(workingTreeId(dir, tempDir("flow-index-")));
    return git.since().map((line) => line.split(" ")[0]);
  };
  return { dir, vcs, snap, index: privateIndexOf(dir) };
}

/** Runs git with the private index. */
const withIndex = (dir: string, index: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { env: { ...process.env, GIT_INDEX_FILE: index }, encoding: "utf8" }).trim();

describe.runIf(process.platform === "linux")("editing snapshots added by Node", () => {
  it("adds tracked files edited in place (by the write tool, binary, at the top) without git, into an index git reads as its own", async () => {
    const { dir, snap, index } = await editedRepo();
    await write.execute({ path: "src/a.ts", content: "export const a = 2;\n" }, { rootDir: dir });
    expect(await snap(1)).toEqual([]);
    writeFileSync(join(dir, "src", "deep", "b.bin"), Buffer.from([9, 9, 0, 9]));
    writeFileSync(join(dir, "src0.txt"), "edited\n");
    expect(await snap(2)).toEqual([]);

    // git accepts the index (its checksum, entries and cached trees) and finds what `add` would have written.
    expect(withIndex(dir, index, "write-tree")).toBe(workingTreeId(dir, tempDir("flow-index-")));
    const fresh = join(tempDir("flow-index-"), "index");
    withIndex(dir, fresh, "add", "-A");
    expect(withIndex(dir, index, "ls-files", "-s")).toBe(withIndex(dir, fresh, "ls-files", "-s"));
    expect(gitIn(dir, "fsck", "--no-dangling", "--no-progress")).toBe("");
    // The entries Node wrote are smudged (size 0): git compares their content instead of trusting their stat data.
    expect(withIndex(dir, index, "ls-files", "--debug", "src0.txt")).toMatch(/size: 0\b/);
    expect(withIndex(dir, index, "ls-files", "--debug", "README.md")).not.toMatch(/size: 0\b/);
    writeFileSync(join(dir, "src0.txt"), "edited!\n"); // an edit of the same size right after: git sees it
    expect(withIndex(dir, index, "diff-files", "--name-only")).toContain("src0.txt");
    // The user's index never moves.
    expect(gitIn(dir, "diff", "--cached", "--name-only")).toBe("");
  });

  it("edits in process where your index is version 4 (feature.manyFiles): the private index is made version 2 and stays so", async () => {
    const dir = tempRepo();
    gitIn(dir, "config", "feature.manyFiles", "true");
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(dir, "src", "deep", "b.ts"), "export const b = 1;\n");
    gitIn(dir, "add", "-A");
    gitIn(dir, "commit", "-q", "-m", "files");
    gitIn(dir, "update-index", "--index-version", "4");
    const yours = readFileSync(join(dir, ".git", "index"));
    expect(yours.readUInt32BE(4)).toBe(4);

    const git = loggingGit();
    const vcs = createGitVcs({ gitPath: git.gitPath });
    const first = await vcs.snapshot(dir, "refs/flow/runs/v4/0");
    expect(readFileSync(privateIndexOf(dir)).readUInt32BE(4)).toBe(2);
    git.since();
    writeFileSync(join(dir, "src", "deep", "b.ts"), "export const b = 2;\n");
    const edited = await vcs.snapshot(dir, "refs/flow/runs/v4/1");
    // No git process: Node read the index, added the edit and wrote the tree (before: an `add` and a `write-tree`).
    expect(git.since()).toEqual([]);
    expect(gitIn(dir, "show", `${edited}:src/deep/b.ts`)).toBe("export const b = 2;");
    expect(readFileSync(privateIndexOf(dir)).readUInt32BE(4)).toBe(2);
    await vcs.restore(dir, first);
    expect(readFileSync(join(dir, "src", "deep", "b.ts"), "utf8")).toBe("export const b = 1;\n");
    expect(readFileSync(join(dir, ".git", "index")).equals(yours)).toBe(true);
  });

  it("starts the next edit from the index it wrote, and reads the file again once git wrote it", async () => {
    const { dir, vcs, snap, index } = await editedRepo();
    await write.execute({ path: "src/a.ts", content: "export const a = 2;\n" }, { rootDir: dir });
    expect(await snap(1)).toEqual([]);
    await write.execute({ path: "src/a.ts", content: "export const a = 3;\n" }, { rootDir: dir });
    expect(await snap(2)).toEqual([]);

    // Git rewrites the private index (here: README.md's entry pointed at other content, which no
    // file event shows). Node's next edit snapshot must start from that file, not from its copy.
    const other = execFileSync("git", ["-C", dir, "hash-object", "-w", "--stdin"], { input: "other\n", encoding: "utf8" }).trim();
    withIndex(dir, index, "update-index", "--cacheinfo", `100644,${other},README.md`);
    await write.execute({ path: "src/a.ts", content: "export const a = 4;\n" }, { rootDir: dir });
    const pointer = await vcs.snapshot(dir, "refs/flow/runs/e/3");
    expect(gitIn(dir, "rev-parse", `${pointer}:README.md`)).toBe(other);
    expect(gitIn(dir, "show", `${pointer}:src/a.ts`)).toBe("export const a = 4;");
  });

  it("leaves the index unwritten when the only change is a temporary file already gone", async () => {
    const { dir, snap, index } = await editedRepo();
    const before = statSync(index, { bigint: true });
    writeFileSync(join(dir, "src", ".a.ts.tmp"), "partial\n");
    rmSync(join(dir, "src", ".a.ts.tmp"));
    expect(await snap(1)).toEqual([]);
    // The same file, not one written again through its lock (a new inode) to say the same thing.
    const after = statSync(index, { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
  });

  it("leaves to git what Node would not add as git does: modes, new and deleted files, attributes, a held lock", async () => {
    const { dir, snap, index } = await editedRepo();
    chmodSync(join(dir, "src", "a.ts"), 0o755);
    expect(await snap(1)).toEqual(["add"]);
    writeFileSync(join(dir, "src", "new.ts"), "new\n");
    expect(await snap(2)).toEqual(["add"]);
    renameSync(join(dir, "src0.txt"), join(dir, "src1.txt"));
    expect(await snap(3)).toEqual(["add"]);

    // A .gitattributes above the file: its filters and line endings are git's to apply.
    writeFileSync(join(dir, "src", ".gitattributes"), "*.ts text eol=crlf\n");
    await snap(4);
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 3;\r\n");
    expect(await snap(5)).toEqual(["add"]);
    // Attributes from the repository's info/attributes apply everywhere.
    mkdirSync(join(dir, ".git", "info"), { recursive: true });
    writeFileSync(join(dir, ".git", "info", "attributes"), "*.txt -text\n");
    writeFileSync(join(dir, "src1.txt"), "under info/attributes\n");
    expect(await snap(6)).toEqual(["add"]);

    // Another writer holds the private index's lock: git's add meets it and says so.
    writeFileSync(join(dir, "README.md"), "locked out\n");
    writeFileSync(`${index}.lock`, "");
    await expect(snap(7)).rejects.toThrow(/index\.lock|File exists/);
    expect(readFileSync(`${index}.lock`, "utf8")).toBe("");
  });
});
