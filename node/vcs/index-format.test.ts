import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { asVersion2, entriesMissingFrom, gitlinks, readEntries, readIndex, Unsupported } from "./index-format.js";
import { gitIn, tempRepo } from "./testing.js";

describe("entriesMissingFrom", () => {
  it("gives the paths of one index that another has not, in git's order, names that prefix one another included", () => {
    const repo = tempRepo();
    const names = ["a", "a.b", "a/b", "a/b/c", "a-", "ab", "ü", "ü/日本", "[br]", "z"];
    const files = (list: string[]) => list.map((name) => `${name}/f`);
    for (const file of files(names)) {
      mkdirSync(dirname(join(repo, file)), { recursive: true });
      writeFileSync(join(repo, file), file);
    }
    const theirs = join(repo, "theirs");
    const ours = join(repo, "ours");
    const add = (index: string, list: string[]) => execFileSync("git", ["-C", repo, "add", "--", ...list], { env: { ...process.env, GIT_INDEX_FILE: index } });
    copyFileSync(join(repo, ".git", "index"), theirs);
    add(theirs, files(["a", "a/b/c", "ab", "ü/日本", "z"]));
    copyFileSync(join(repo, ".git", "index"), ours);
    add(ours, files(names));
    const entries = (index: string) => readEntries(readFileSync(index)).entries;
    expect(entriesMissingFrom(entries(ours), entries(theirs))).toEqual(files(["[br]", "a-", "a.b", "a/b", "ü"]));
    expect(entriesMissingFrom(entries(theirs), entries(ours))).toEqual([]);
    expect(entriesMissingFrom(entries(ours), entries(ours))).toEqual([]);
    // As many entries, not the same ones.
    const other = join(repo, "other");
    copyFileSync(join(repo, ".git", "index"), other);
    add(other, files(["a", "a/b/c", "ab", "ü/日本", "[br]"]));
    expect(entriesMissingFrom(entries(other), entries(theirs))).toEqual(files(["[br]"]));
  });
});

describe("readEntries", () => {
  it("refuses a SHA-256 repository's index (longer ids and checksum), whatever its entries hold", () => {
    const repo = mkdtempSync(join(tmpdir(), "flow-sha256-"));
    gitIn(repo, "init", "-q", "--object-format=sha256");
    // One entry, its content changed each time: where the bytes read as its flags happen to be
    // plausible (about one in eight ids), only where the index ends tells.
    for (let i = 0; i < 40; i++) {
      writeFileSync(join(repo, "a"), `${i}\n`);
      gitIn(repo, "add", "a");
      expect(() => readEntries(readFileSync(join(repo, ".git", "index"))), `content ${i}`).toThrow(Unsupported);
    }
  });
});

describe("asVersion2", () => {
  /** The index of `repo` in `version` (git's own conversion). */
  const indexIn = (repo: string, version: number) => {
    const file = join(repo, `index-${version}`);
    copyFileSync(join(repo, ".git", "index"), file);
    execFileSync("git", ["-C", repo, "update-index", "--index-version", String(version)], { env: { ...process.env, GIT_INDEX_FILE: file } });
    return readFileSync(file);
  };

  it("writes a version 4 index as git writes it in version 2: paths that share their start, long ones, a gitlink, its cached trees", () => {
    const repo = tempRepo();
    const long = `${"d".repeat(200)}/${"e".repeat(200)}`;
    const names = ["a", "a.b", "a/b", "a/b/c", "a/b/cd", "ab", "ü", "ü/日本", "[br]", long, `${long}x`, "z"];
    for (const name of names) {
      mkdirSync(join(repo, name), { recursive: true });
      writeFileSync(join(repo, name, "f"), name);
    }
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-q", "-m", "names");
    gitIn(repo, "update-index", "--add", "--cacheinfo", `160000,${gitIn(repo, "rev-parse", "HEAD")},deps/lib`);
    gitIn(repo, "write-tree");
    const v4 = indexIn(repo, 4);
    expect(v4.readUInt32BE(4)).toBe(4);
    const v2 = indexIn(repo, 2);
    expect(asVersion2(v4).equals(v2)).toBe(true);
    // Read as such: the same entries and cached trees as the version 2 file.
    const [four, two] = [readIndex(v4), readIndex(v2)];
    expect(four.entries.count).toBe(names.length + 3);
    expect(four.entries.buf.equals(v2)).toBe(true);
    expect(four.cacheTree).toEqual(two.cacheTree);
    expect(gitlinks(four.entries)).toEqual(["deps/lib"]);
  });

  it("keeps an index without its checksum so (index.skipHash), and refuses bytes it cannot read as such", () => {
    const repo = tempRepo();
    const v4 = indexIn(repo, 4);
    const v2 = indexIn(repo, 2);
    // As git 2.40+ writes it with `index.skipHash` (feature.manyFiles): the trailer all zeros.
    const skipped = Buffer.from(v4).fill(0, v4.length - 20);
    const converted = asVersion2(skipped);
    expect(converted.subarray(converted.length - 20).every((b) => b === 0)).toBe(true);
    expect(converted.subarray(0, -20).equals(v2.subarray(0, -20))).toBe(true);
    // An entry's name length that is not its path's (what another layout, SHA-256's, reads as).
    const bad = Buffer.from(v4);
    bad.writeUInt16BE(bad.readUInt16BE(12 + 60) + 1, 12 + 60);
    expect(() => asVersion2(bad)).toThrow(Unsupported);
    expect(() => asVersion2(v4.subarray(0, v4.length - 7))).toThrow(Unsupported);
  });
});
