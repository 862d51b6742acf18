/**
 * The git shell starts with the process's first Flow (`warmProcessVcs`) where runs will snapshot,
 * not inside the first run, whose forked heap would then fault page by page (GitVcs.warm).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// Inside the repository, so the script resolves zod; tsx by its path, since the script runs in other directories.
const scripts = mkdtempSync(join(ROOT, "node/vcs/.warm-"));
afterAll(() => rmSync(scripts, { recursive: true, force: true }));
const TSX = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href;

/** Runs a script that calls createFlow in `cwd`: its `sh` children (tsx's esbuild is another); it must also exit by itself. */
function childrenAfterCreateFlow(cwd: string, env: Record<string, string | undefined>): string[] {
  const script = join(scripts, "warm.mts");
  writeFileSync(
    script,
    `import { execFileSync } from "node:child_process";
import { z } from "zod";
import { createFlow } from ${JSON.stringify(join(import.meta.dirname, "../create-flow.ts"))};
createFlow({ out: z.object({}) }, { dbPath: ${JSON.stringify(join(tempDir("flow-warm-db-"), "flow.db"))} });
process.stdout.write(execFileSync("ps", ["-o", "comm=", "--ppid", String(process.pid)], { encoding: "utf8" }));
`,
  );
  const out = execFileSync(process.execPath, ["--import", TSX, script], { cwd, encoding: "utf8", timeout: 30_000, env: { ...process.env, ...env } as NodeJS.ProcessEnv });
  return out.split("\n").filter((name) => name === "sh");
}

describe.runIf(process.platform === "linux")("the process's git shell", () => {
  const repo = tempDir("flow-warm-repo-");
  execFileSync("git", ["init", "-q", repo]);
  mkdirSync(join(repo, "src"));

  it("starts when the first Flow is created in a git repository, and lets the process exit", () => {
    expect(childrenAfterCreateFlow(join(repo, "src"), { FLOW_SNAPSHOTS: undefined })).toEqual(["sh"]);
  });

  it("does not start outside a repository or with snapshots off", () => {
    expect(childrenAfterCreateFlow(tempDir("flow-warm-plain-"), { FLOW_SNAPSHOTS: undefined })).toEqual([]);
    expect(childrenAfterCreateFlow(repo, { FLOW_SNAPSHOTS: "off" })).toEqual([]);
  });
});
