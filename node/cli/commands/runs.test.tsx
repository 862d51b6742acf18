import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlow, createFlowPostgres, FlowDb, runWorkflow } from "durable-flow";
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

  it("names the run a continued run goes on as, in the list and in its details", async () => {
    const cwd = tempDir("flow-runs-");
    const dbPath = join(cwd, "flow.db");
    const api = createFlow({ input: z.object({ round: z.number() }), step: z.object({ value: z.number() }) }, { dbPath });
    const wf = api.flow((ctx) => (
      <api.Workflow name="rounds">
        <api.Task id="a" output={api.outputs.step}>{{ value: ctx.input.round }}</api.Task>
        {ctx.input.round < 1 ? <api.ContinueAsNew input={{ round: 1 }} /> : null}
      </api.Workflow>
    ));
    const first = await runWorkflow(wf, { input: { round: 0 }, runId: "round-0" });
    expect(first).toMatchObject({ status: "continued", nextRunId: expect.any(String) });
    const list = io(cwd, {});
    expect(await main(["runs", "--db", dbPath], list)).toBe(0);
    expect(list.out.join("")).toMatch(new RegExp(`continued +round-0  rounds  → continued as ${first.nextRunId}\n`));
    const details = io(cwd, {});
    expect(await main(["runs", "round-0", "--db", dbPath], details)).toBe(0);
    expect(details.out.join("")).toContain(`Run round-0  continued as ${first.nextRunId}  (rounds)`);
  }, 60_000);

  it("says a task the ended run never reached was not run, not that it is pending", async () => {
    const cwd = tempDir("flow-runs-");
    const dbPath = join(cwd, "flow.db");
    const api = createFlow({ step: z.object({ value: z.number() }) }, { dbPath });
    const wf = api.flow(() => (
      <api.Workflow name="halts">
        <api.Sequence>
          <api.Task id="build" output={api.outputs.step} retries={0}>
            {() => {
              throw new Error("compile error");
            }}
          </api.Task>
          <api.Task id="deploy" output={api.outputs.step}>{{ value: 1 }}</api.Task>
        </api.Sequence>
      </api.Workflow>
    ));
    expect((await runWorkflow(wf, { input: {}, runId: "halted" })).status).toBe("failed");
    const details = io(cwd, {});
    expect(await main(["runs", "halted", "--db", dbPath], details)).toBe(0);
    const text = details.out.join("");
    expect(text).toMatch(/\n  not run +deploy +0 attempts/);
    expect(text).toContain("2 nodes (1 failed, 1 not run)");
    // The JSON keeps the stored state.
    const json = io(cwd, {});
    expect(await main(["runs", "halted", "--db", dbPath, "--json"], json)).toBe(0);
    expect((JSON.parse(json.out.join("")) as { nodes: Array<{ nodeId: string; state: string }> }).nodes.find((n) => n.nodeId === "deploy")?.state).toBe("pending");
  }, 60_000);

  it("says a run's process is gone, whether it was running or waiting for quota there", async () => {
    const cwd = tempDir("flow-runs-");
    const dbPath = join(cwd, "flow.db");
    const api = createFlow({ step: z.object({ value: z.number() }) }, { dbPath });
    const wf = api.flow(() => (
      <api.Workflow name="left">
        <api.Task id="a" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    for (const runId of ["was-running", "was-waiting"]) await runWorkflow(wf, { input: {}, runId });
    // What a killed process leaves: its status, its owner, a heartbeat long stale.
    const db = new FlowDb(api.db);
    for (const [runId, status] of [["was-running", "running"], ["was-waiting", "waiting-quota"]] as const) {
      await db.store.execute("UPDATE _flow_runs SET status = ?, owner_id = 'elsewhere:1:x', heartbeat_at_ms = 1, finished_at_ms = NULL WHERE run_id = ?", [status, runId]);
    }
    const cli = io(cwd, {});
    expect(await main(["runs", "--db", dbPath], cli)).toBe(0);
    const lines = cli.out.join("").split("\n");
    expect(lines.find((l) => l.includes("was-running"))).toContain("running (owner gone)");
    expect(lines.find((l) => l.includes("was-waiting"))).toContain("waiting-quota (owner gone)");
    // One run's page says how to continue or cancel it, with the store it was given.
    const one = io(cwd, {});
    expect(await main(["runs", "was-running", "--db", dbPath], one)).toBe(0);
    expect(one.out.join("")).toContain(`running (owner gone: continue it with flow resume was-running --db ${dbPath}, or flow cancel was-running --db ${dbPath})`);
  }, 60_000);
});
