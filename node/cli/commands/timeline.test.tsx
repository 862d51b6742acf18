import { join } from "node:path";
import { z } from "zod";
import { expect, it } from "vitest";
import { createFlow, runWorkflow } from "durable-flow";
import { tempDir } from "../../testing/temp-dir.js";
import { runCli } from "../testing.js";

it("flow timeline folds a task's attempts that ended alike between its first and last, says how each failed, and --json keeps them all", async () => {
  const dir = tempDir("flow-timeline-");
  const dbPath = join(dir, "flow.db");
  const api = createFlow({ out: z.object({ ok: z.boolean() }) }, { dbPath });
  const wf = api.flow(() => (
    <api.Workflow name="flaky">
      <api.Task id="poll" output={api.outputs.out} retries={6} retryPolicy={{ initialDelayMs: 1 }}>
        {() => {
          throw new Error("503");
        }}
      </api.Task>
    </api.Workflow>
  ));
  expect((await runWorkflow(wf, { input: {}, runId: "flaky-1", rootDir: dir })).status).toBe("failed");
  const cli = (...argv: string[]) => runCli([...argv, "--db", dbPath], { cwd: dir });
  const shown = await cli("timeline", "flaky-1");
  expect(shown.code).toBe(0);
  const lines = shown.stdout.split("\n").filter((l) => l.includes(" poll #"));
  expect(lines.map((l) => / poll (#\S+)/.exec(l)![1])).toEqual(["#1", "#2…#6", "#7"]);
  expect(lines[1]).toMatch(/failed +×5 /);
  // Each failed line says how it failed.
  expect(lines.every((l) => l.endsWith("  TASK_FAILED"))).toBe(true);
  const json = JSON.parse((await cli("timeline", "flaky-1", "--json")).stdout) as { attempts: unknown[] };
  expect(json.attempts).toHaveLength(7);
});
