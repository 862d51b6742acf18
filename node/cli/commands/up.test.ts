import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../testing/backends.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const flow = (args: string[], cwd: string) =>
  spawnSync(process.execPath, [join(ROOT, "node/cli/bin.mjs"), ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });

describe("flow up", () => {
  it("runs a workflow file from a directory without a tsconfig, showing progress and the result", () => {
    const cwd = tempDir("flow-cli-");
    const r = flow(["up", join(ROOT, "examples/hello.tsx"), "--input", '{"name":"cli"}', "--run-id", "cli-1"], cwd);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("✓ plan");
    expect(r.stdout).toContain("● run finished");
    const result = JSON.parse(r.stdout.slice(r.stdout.indexOf("{\n")));
    expect(result).toMatchObject({ runId: "cli-1", status: "finished", output: { title: "Hello, cli", drafts: 3 } });
    expect(existsSync(join(cwd, ".flow", "flow.db"))).toBe(true);
    expect(existsSync(join(cwd, ".flow", "logs", "cli-1.ndjson"))).toBe(true);
    // Provenance for the console's "Started by".
    const listed = flow(["runs", "cli-1", "--json"], cwd);
    expect(JSON.parse(listed.stdout).run.annotations).toMatchObject({ "flow:startedBy": JSON.stringify({ harness: "flow up" }) });

    const again = flow(["up", join(ROOT, "examples/hello.tsx"), "--run-id", "cli-1", "--resume", "--json"], cwd);
    expect(again.status).toBe(0);
    const lines = again.stdout.trim().split("\n").map((l) => JSON.parse(l));
    // A finished run is read back, not run again: no events, only the result.
    expect(lines).toEqual([expect.objectContaining({ type: "result", runId: "cli-1", status: "finished" })]);
  }, 60_000);

  it("follows a run that continues as new through its next runs to the end of the chain", () => {
    const cwd = tempDir("flow-cli-");
    const r = flow(["up", join(ROOT, "examples/runs.tsx"), "--input", '{"queue":[101,102,103,104,105],"batchSize":2}'], cwd);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.match(/● run continued as /g)).toHaveLength(2);
    expect(r.stdout.match(/● run \S+ starts\n/g)).toHaveLength(2);
    expect(r.stdout).toMatch(/Run \S+ finished in .+, the last of 3 runs \(continued as new\): 10 tasks finished, 0 failed/);
    const result = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf("\n{\n") + 1));
    // 101-105 in batches of 2: 103 fails its tests; the last run sums what the chain merged.
    expect(result).toMatchObject({ status: "finished", output: { merged: 4, rejected: [103] } });
  }, 60_000);

  it("prints help without arguments and explains usage errors", () => {
    const cwd = tempDir("flow-cli-");
    const help = flow([], cwd);
    expect(help.stdout).toContain("Usage: flow <command>");
    expect(help.stdout).toMatch(/up\s+Run a workflow file/);
    const missing = flow(["up"], cwd);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain("missing the workflow file");
    const badInput = flow(["up", join(ROOT, "examples/hello.tsx"), "--input", "[1]"], cwd);
    expect(badInput.status).toBe(2);
    expect(badInput.stderr).toContain("must be a JSON object");
    const resumeWithoutId = flow(["up", join(ROOT, "examples/hello.tsx"), "--resume"], cwd);
    expect(resumeWithoutId.status).toBe(2);
  }, 60_000);
});
