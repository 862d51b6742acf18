/**
 * @module node/vcs/testing
 * Test helpers for time travel: a real git repository in a temp dir, and a byte-exact picture
 * of a working tree (content hash, executable bit, symlink target) to compare restores with.
 * Test-only: excluded from the package exports.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { VcsPort } from "../../core/time-travel/index.js";
import { indexName } from "./workspace.js";

/** Runs git in `dir` and returns its trimmed stdout. */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "T", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "T", GIT_COMMITTER_EMAIL: "t@t" } }).trim();
}

/**
 * The private index the one port of a test writes for the workspace `dir` (its file in the
 * repository's `.git/flow`, node/vcs/private-index.ts), after that port's first snapshot there.
 */
export function privateIndexOf(dir: string, repo = dir): string {
  const flowDir = join(repo, ".git", "flow");
  const owned = readdirSync(flowDir).filter((name) => name.startsWith(`${indexName(dir)}.`) && !name.endsWith(".lock"));
  if (owned.length !== 1) throw new Error(`expected one private index of ${dir} in ${flowDir}, found ${owned.join(", ") || "none"}`);
  return join(flowDir, owned[0]!);
}

/** A fresh repository with one commit (`README.md`, `.gitignore` ignoring `.flow/` unless told not to). */
export function tempRepo(opts: { ignoreFlow?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "flow-vcs-"));
  gitIn(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# repo\n");
  writeFileSync(join(dir, ".gitignore"), opts.ignoreFlow === false ? "*.log\n" : ".flow/\n*.log\n");
  gitIn(dir, "add", "-A");
  gitIn(dir, "commit", "-q", "-m", "init");
  return dir;
}

/** Every file under `dir` except `.git`: path -> sha256 of content (or link target) and mode. */
export function treePicture(dir: string, skip: (path: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = rel ? `${rel}/${name}` : name;
      if (path === ".git" || skip(path)) continue;
      const st = lstatSync(join(dir, path));
      if (st.isDirectory()) walk(path);
      else if (st.isSymbolicLink()) out[path] = `link:${readlinkSync(join(dir, path))}`;
      else out[path] = `${st.mode & 0o111 ? "x" : "-"}:${createHash("sha256").update(readFileSync(join(dir, path))).digest("hex")}`;
    }
  };
  walk("");
  return out;
}

/** What the user's git state looks like: branch, HEAD, index file hash, stash list, status. */
export function userGitState(dir: string): Record<string, string> {
  return {
    branch: gitIn(dir, "symbolic-ref", "HEAD"),
    head: gitIn(dir, "rev-parse", "HEAD"),
    index: createHash("sha256").update(readFileSync(join(dir, ".git", "index"))).digest("hex"),
    stash: gitIn(dir, "stash", "list"),
    refs: gitIn(dir, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads", "refs/tags", "refs/stash"),
  };
}

/** Takes numbered snapshots of `dir` on refs under `prefix`, keeping each one's picture to compare restores with. */
export function snapshotSeries(vcs: VcsPort, dir: string, prefix: string, skip: (path: string) => boolean) {
  const pictures: Record<string, string>[] = [];
  const pointers: string[] = [];
  const take = async () => {
    pictures.push(treePicture(dir, skip));
    pointers.push(await vcs.snapshot(dir, `${prefix}${pointers.length}`));
  };
  return { pictures, pointers, take };
}

/** The tree a full `git add -A` of the working tree gives, in an index of its own (what a snapshot must equal). */
export function workingTreeId(dir: string, indexDir: string): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(indexDir, "index") };
  execFileSync("git", ["-C", dir, "add", "-A"], { env });
  return execFileSync("git", ["-C", dir, "write-tree"], { env, encoding: "utf8" }).trim();
}

/**
 * The real git behind a script that logs every command line: `since()` gives the command lines
 * (arguments joined by spaces) run since its last call, so a test sees which git processes a
 * snapshot started.
 */
export function loggingGit(): { gitPath: string; since(): string[] } {
  const dir = mkdtempSync(join(tmpdir(), "flow-git-shim-"));
  const log = join(dir, "calls");
  writeFileSync(log, "");
  const gitPath = join(dir, "git-logging");
  writeFileSync(gitPath, `#!/bin/sh\nprintf '%s\\n' "$*" >> "${log}"\nexec git "$@"\n`);
  chmodSync(gitPath, 0o755);
  let seen = 0;
  const since = () => {
    const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
    const fresh = lines.slice(seen);
    seen = lines.length;
    return fresh;
  };
  return { gitPath, since };
}
