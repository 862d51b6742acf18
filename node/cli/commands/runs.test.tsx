import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlowPostgres, runWorkflow } from "durable-flow";
import { tempDir } from "../../testing/backends.js";
import type { CliIO } from "../command.js";
import { main } from "../main.js";

function io(cwd: string, env: Record<string, string>): CliIO & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (t) => void out.push(t), stderr: (t) => void out.push(t), cwd, env, isTTY: false };
}

describe("flow runs", () => {
  it("reads the store the project resolves (here PGlite through FLOW_BACKEND), not only SQLite", async () => {
    const cwd = tempDir("flow-runs-");
    const dataDir = join(cwd, "pglite");
    const api = await createFlowPostgres({ step: z.object({ value: z.number() }) }, { provider: "pglite", dataDir });
    const wf = api.flow(() => (
      <api.Workflow name="on-pglite">
        <api.Task id="a" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, runId: "pg-run" });
    expect(r.status).toBe("finished");
    await api.close();

    const cli = io(cwd, { FLOW_BACKEND: "pglite", FLOW_PGLITE_DIR: dataDir });
    expect(await main(["runs", "--json"], cli)).toBe(0);
    expect(JSON.parse(cli.out.join(""))).toEqual([expect.objectContaining({ runId: "pg-run", status: "finished", workflowName: "on-pglite" })]);

    // --export: every event as one JSON line, oldest first, the same rows the domain API pages.
    const exported = io(cwd, { FLOW_BACKEND: "pglite", FLOW_PGLITE_DIR: dataDir });
    expect(await main(["runs", "pg-run", "--export"], exported)).toBe(0);
    const lines = exported.out.join("").trimEnd().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string; runId: string });
    expect(lines.map((e) => e.seq)).toEqual(lines.map((_e, i) => i + 1));
    expect(lines[0]).toMatchObject({ type: "RunStarted", runId: "pg-run" });
    expect(lines.at(-1)).toMatchObject({ type: "RunFinished", runId: "pg-run" });
    expect(lines.map((e) => e.type)).toContain("TaskFinished");

    const missing = io(cwd, {});
    expect(await main(["runs"], missing)).toBe(1);
    expect(missing.out.join("")).toContain("STORE_NOT_FOUND");
  }, 60_000);
});
