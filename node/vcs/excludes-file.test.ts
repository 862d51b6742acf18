import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../testing/temp-dir.js";
import { excludesFileOf, keepExcludesFile, keptExcludesFile } from "./excludes-file.js";
import { createGitVcs } from "./git.js";
import { gitIn, tempRepo } from "./testing.js";

/** A file of ignore rules outside the repository, and a repository whose git reads it as `core.excludesFile`. */
function repoWithExcludes(rules: string): { repo: string; global: string } {
  const repo = tempRepo();
  const global = join(tempDir("flow-excludes-"), "ignore");
  writeFileSync(global, rules);
  gitIn(repo, "config", "core.excludesFile", global);
  mkdirSync(join(repo, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "x\n");
  return { repo, global };
}

describe("core.excludesFile", () => {
  it("is git's default where unset, relative to the work tree where relative", () => {
    expect(excludesFileOf("", "/repo", { XDG_CONFIG_HOME: "/xdg", HOME: "/home/me" })).toBe("/xdg/git/ignore");
    expect(excludesFileOf("", "/repo", { XDG_CONFIG_HOME: "", HOME: "/home/me" })).toBe("/home/me/.config/git/ignore");
    expect(excludesFileOf("", "/repo", {})).toBeUndefined();
    expect(excludesFileOf("/home/me/.gitignore_global", "/repo", {})).toBe("/home/me/.gitignore_global");
    expect(excludesFileOf("local.ignore\n", "/repo", {})).toBe("/repo/local.ignore");
    // Kept beside the private indexes: none known, none, a file.
    const gitDir = tempDir("flow-gitdir-");
    expect(keptExcludesFile(gitDir)).toBeUndefined();
    keepExcludesFile(gitDir, undefined);
    expect(keptExcludesFile(gitDir)).toBe("");
    keepExcludesFile(gitDir, "/home/me/.gitignore_global");
    expect(keptExcludesFile(gitDir)).toBe("/home/me/.gitignore_global");
  });

  it.runIf(process.platform === "linux")("a process keeps where git says it is, and the next one leaves out what it excludes from its watch's start", async () => {
    const { repo, global } = repoWithExcludes("node_modules/\n");
    const first = createGitVcs();
    first.prepare!(repo);
    const pointer = await first.snapshot(repo, "refs/flow/t/1");
    expect(gitIn(repo, "ls-tree", "-r", "--name-only", pointer).split("\n")).toEqual([".gitignore", "README.md"]);
    expect(readFileSync(join(repo, ".git", "flow", "excludes-file"), "utf8")).toBe(global);

    // The next process (a new repository root, so a watch of its own) with the same answer kept.
    const { repo: next } = repoWithExcludes("node_modules/\n");
    keepExcludesFile(join(next, ".git"), global);
    const vcs = createGitVcs();
    vcs.prepare!(next);
    const base = await vcs.snapshot(next, "refs/flow/t/1");
    writeFileSync(join(next, "node_modules", "pkg", "index.js"), "y\n");
    mkdirSync(join(next, "node_modules", "new"));
    writeFileSync(join(next, "node_modules", "new", "a.js"), "a\n");
    expect(await vcs.unchangedSince!(next, base, { settle: true })).toBe(true);
  });

  it.runIf(process.platform === "linux")("where git's answer is not the one kept, the watch looks again and a write its rules had left out reaches the snapshot", async () => {
    // Kept: a file that excludes node_modules/. Git now reads another one that does not.
    const { repo, global } = repoWithExcludes("*.tmp\n");
    const stale = join(tempDir("flow-excludes-"), "ignore");
    writeFileSync(stale, "node_modules/\n");
    keepExcludesFile(join(repo, ".git"), stale);
    const vcs = createGitVcs();
    vcs.prepare!(repo);
    const base = await vcs.snapshot(repo, "refs/flow/t/1");
    expect(gitIn(repo, "ls-tree", "-r", "--name-only", base).split("\n")).toEqual([".gitignore", "README.md", "node_modules/pkg/index.js"]);
    expect(readFileSync(join(repo, ".git", "flow", "excludes-file"), "utf8")).toBe(global);
    writeFileSync(join(repo, "node_modules", "pkg", "index.js"), "changed\n");
    expect(await vcs.unchangedSince!(repo, base, { settle: true })).toBe(false);
    const after = await vcs.snapshot(repo, "refs/flow/t/2");
    expect(gitIn(repo, "show", `${after}:node_modules/pkg/index.js`)).toBe("changed");
    // And the rules git reads apply: a file they exclude stays out.
    writeFileSync(join(repo, "node_modules", "scratch.tmp"), "t\n");
    const again = await vcs.snapshot(repo, "refs/flow/t/3");
    expect(gitIn(repo, "rev-parse", `${again}^{tree}`)).toBe(gitIn(repo, "rev-parse", `${after}^{tree}`));
  });
});
