/**
 * Agent tasks inside real runs (SQLite): the task's timeout kills a CLI agent's whole process
 * group, output keeps a heartbeat alive, and retries with backoff record each attempt.
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, FlowDb, LocalPresetCliAgent, runWorkflow } from "durable-flow";
import { installFakeClis } from "./testing/fake-cli.js";

const fakes = installFakeClis();
const schemas = { input: z.object({}), answer: z.object({ ok: z.boolean() }) };
const tmp = () => mkdtempSync(join(tmpdir(), "flow-agent-task-"));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("agent tasks in a run", () => {
  it("kills a hanging CLI agent's process group when the task times out", async () => {
    const dir = tmp();
    const pidFile = join(dir, "child");
    const { flow, Workflow, Task, outputs, db } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const agent = new LocalPresetCliAgent({ id: "hang", env: fakes.env({ hang: true, spawnChild: pidFile }) });
    const wf = flow(() => (
      <Workflow name="timeout">
        <Task id="ask" output={outputs.answer} agent={agent} timeoutMs={1500} retries={0}>Answer.</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {} });
    expect(result.status).toBe("failed");
    const [attempt] = await new FlowDb(db).listAttempts(result.runId, "ask");
    expect(attempt!.error).toMatchObject({ code: "TASK_TIMEOUT" });
    expect(existsSync(pidFile)).toBe(true);
    const child = Number(readFileSync(pidFile, "utf8"));
    for (let i = 0; i < 100 && alive(child); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(child)).toBe(false);
  });

  it("keeps a task alive past its heartbeat timeout while the CLI prints", async () => {
    const dir = tmp();
    const { flow, Workflow, Task, outputs } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const agent = new LocalPresetCliAgent({ env: fakes.env({ trickle: { everyMs: 150, count: 8 }, stdout: ['{"ok":true}'] }) });
    const wf = flow(() => (
      <Workflow name="heartbeat">
        <Task id="ask" output={outputs.answer} agent={agent} heartbeatTimeoutMs={700} retries={0}>Answer.</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {} });
    expect(result.status).toBe("finished");
  });

  it("retries a failed CLI run with backoff and records each attempt", async () => {
    const dir = tmp();
    const { flow, Workflow, Task, outputs, db } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const agent = new LocalPresetCliAgent({ id: "flaky", env: fakes.env({ failTimes: { file: join(dir, "count"), times: 1 }, stdout: ['{"ok":true}'] }) });
    const wf = flow(() => (
      <Workflow name="retry">
        <Task id="ask" output={outputs.answer} agent={agent} retries={2} retryPolicy={{ backoff: "fixed", initialDelayMs: 50 }}>Answer.</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {} });
    expect(result.status).toBe("finished");
    const attempts = await new FlowDb(db).listAttempts(result.runId, "ask");
    expect(attempts.map((a) => a.state)).toEqual(["failed", "finished"]);
    expect(attempts[0]!.error).toMatchObject({ code: "AGENT_CLI_ERROR", details: { agentId: "flaky", exitCode: 1 } });
    expect(attempts[1]!.meta).toMatchObject({ agentId: "flaky", engine: "hermes", calls: 1 });
    expect(attempts[1]!.meta!.latencyMs).toBeGreaterThan(0);
  });
});
