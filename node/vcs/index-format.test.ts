import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { entriesMissingFrom, readEntries } from "./index-format.js";
import { tempRepo } from "./testing.js";

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
