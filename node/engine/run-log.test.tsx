import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { runWorkflow } from "durable-flow";
import { sqliteBackend, tempDir } from "../testing/backends.js";

const schemas = { step: z.object({ value: z.number() }) };

/** Runs a two-task workflow with `logDir`, collecting the engine's warnings. */
async function runLogged(logDir: string, runId: string) {
  const warnings: Array<{ message: string; details: unknown }> = [];
  const { api } = await sqliteBackend.open(schemas, { env: { warn: (message, details) => void warnings.push({ message, details }) } });
  const { flow, Workflow, Task, outputs } = api;
  const wf = flow(() => (
    <Workflow name="logged">
      <Task id="a" output={outputs.step}>{() => ({ value: 1 })}</Task>
      <Task id="b" output={outputs.step}>{() => ({ value: 2 })}</Task>
    </Workflow>
  ));
  const result = await runWorkflow(wf, { input: {}, runId, logDir });
  return { result, warnings: warnings.filter((w) => (w.details as { code?: string } | undefined)?.code === "RUN_LOG_UNWRITABLE") };
}

describe("the run's file event log", () => {
  it("writes <logDir>/<runId>.ndjson when it can", async () => {
    const dir = join(tempDir("flow-log-"), "logs");
    const { result, warnings } = await runLogged(dir, "ok-1");
    expect(result.status).toBe("finished");
    expect(warnings).toEqual([]);
    expect(readFileSync(join(dir, "ok-1.ndjson"), "utf8")).toContain('"RunFinished"');
  });

  it("finishes the run and warns once when the disk is full (ENOSPC)", async () => {
    const dir = tempDir("flow-log-full-");
    // /dev/full answers every write with ENOSPC: a full disk without filling one.
    symlinkSync("/dev/full", join(dir, "full-1.ndjson"));
    const { result, warnings } = await runLogged(dir, "full-1");
    expect(result.status).toBe("finished");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(/full-1\.ndjson of run full-1 cannot be written \(ENOSPC\).*Free space/);
  });

  it("finishes the run and warns once when the log directory cannot be made or written", async () => {
    const base = tempDir("flow-log-bad-");
    writeFileSync(join(base, "not-a-dir"), "");
    const notDir = await runLogged(join(base, "not-a-dir", "logs"), "nd-1");
    expect(notDir.result.status).toBe("finished");
    expect(notDir.warnings).toHaveLength(1);
    expect(notDir.warnings[0]!.details).toMatchObject({ runId: "nd-1", errno: "ENOTDIR" });
    // A read-only file system, where this machine lets the test bind-mount one (root).
    const ro = join(base, "ro");
    mkdirSync(ro);
    if (spawnSync("mount", ["--bind", "-o", "ro", ro, ro]).status === 0) {
      try {
        const readOnly = await runLogged(ro, "ro-1");
        expect(readOnly.result.status).toBe("finished");
        expect(readOnly.warnings[0]!.details).toMatchObject({ errno: "EROFS" });
      } finally {
        spawnSync("umount", [ro]);
      }
    }
  });
});
