/**
 * A directory of `files` files in folders of 100, for the snapshot benchmarks; a git repository
 * with them committed when `repo` (its `.flow/` store ignored).
 * @example
 * const dir = benchWorkspace(10_000, true);
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// gc.auto=0: committing 10,000 loose objects would start a background repack in the middle of the measurement.
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, "-c", "gc.auto=0", ...args], { env: { ...process.env, GIT_AUTHOR_NAME: "b", GIT_AUTHOR_EMAIL: "b@b", GIT_COMMITTER_NAME: "b", GIT_COMMITTER_EMAIL: "b@b" } });

export function benchWorkspace(files: number, repo: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "flow-bench-snap-"));
  for (let i = 0; i < files; i++) {
    if (i % 100 === 0) mkdirSync(join(dir, `d${i / 100}`));
    writeFileSync(join(dir, `d${Math.floor(i / 100)}`, `f${i}.txt`), `file ${i}\n${"x".repeat(900)}\n`);
  }
  if (repo) {
    git(dir, "init", "-q");
    writeFileSync(join(dir, ".gitignore"), ".flow/\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "files");
  }
  return dir;
}
