/**
 * @module node/workspace/testing
 * Test helpers: real temporary git repositories driven by the `git` binary. Test-only:
 * excluded from the package exports.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";

/** Runs git in `cwd` with a fixed identity; returns trimmed stdout. */
export function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=Flow Test", "-c", "user.email=test@flow.invalid", "-c", "commit.gpgsign=false", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** A temporary directory removed when the current test finishes. */
export function tempDir(prefix = "flow-ws-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files (path relative to `root` -> content), creating directories. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), content);
  }
}

/** A git repository on branch `main` with one commit holding `files`. */
export function gitRepo(files: Record<string, string> = { "README.md": "hello\n" }): string {
  const root = tempDir("flow-repo-");
  sh(root, "init", "-q", "-b", "main");
  writeFiles(root, { ...files, ".gitignore": ".flow/\n" });
  sh(root, "add", "-A");
  sh(root, "commit", "-q", "-m", "initial");
  return root;
}
