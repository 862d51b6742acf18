/**
 * Issue 23 on every backend: a run records its root directory and the resume works there;
 * `stopRun` cancels or pauses a run another handle (as another process would) executes, through
 * `requested_state` read by the owner's claim heartbeat; `ownerStateOf` tells a gone owner;
 * a host knows a run by its `<Workflow name>`.
 */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type AgentLike, FlowDb, FlowError, ownerStateOf, retryTask, runWorkflow, stopRun, timeTravel, workflowNameOf } from "durable-flow";
import { LocalGatewayHost } from "../../core/api/local-host.js";
import { bindingOf } from "../../core/binding.js";
import { testBackends } from "../testing/backends.js";

const schemas = { step: z.object({ dir: z.string() }) };

describe.each(testBackends)("run control on $name", (backend) => {
  it("records the run's root and resumes there; stopRun cancels and pauses a run another handle executes", { timeout: 60_000 }, async () => {
    // Short heartbeats, so a request is read fast (longer than the first commit of a new run).
    const env = { claimHeartbeatMs: 400 };
    const { api, location } = await backend.open(schemas, { env });
    const { api: other } = await backend.open(schemas, { env, sameStoreAs: location });
    const root = realpathSync(mkdtempSync(join(tmpdir(), "flow-root-")));
    let release!: () => void;
    let gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const build = (which: string) =>
      ({ Workflow, Task, outputs }: typeof api) =>
        () => (
          <Workflow name="control">
            <Task id="first" output={outputs.step}>{(task) => (seen.push(`${which} ${task.rootDir}`), { dir: task.rootDir! })}</Task>
            <Task id="hold" output={outputs.step}>
              {(task) => new Promise((resolve, reject) => {
                void gate.then(() => resolve({ dir: task.rootDir! }));
                task.signal.addEventListener("abort", () => reject(task.signal.reason));
              })}
            </Task>
            <Task id="last" output={outputs.step}>{(task) => (seen.push(`${which} last ${task.rootDir}`), { dir: task.rootDir! })}</Task>
          </Workflow>
        );
    const wf = api.flow(build("a")(api));
    const otherWf = other.flow(build("b")(other));
    expect(workflowNameOf(wf, bindingOf(wf))).toBe("control");

    // Paused from the other handle: the in-flight task finishes, then the run parks.
    const running = runWorkflow(wf, { input: {}, runId: "r1", rootDir: root, logDir: null });
    const db = new FlowDb(other.db);
    await until(async () => (await db.listAttempts("r1")).some((a) => a.nodeId === "hold"));
    expect(ownerStateOf(db.binding.env, await db.requireRun("r1"))).toBe("live");
    const pausing = stopRun(db, "r1", "pause");
    await until(async () => (await db.store.query<{ requested_state: string | null }>(`SELECT requested_state FROM _flow_runs WHERE run_id = 'r1'`))[0]?.requested_state === "pause");
    // Let the owner's heartbeat read the request before the in-flight task ends: a beat that
    // started after the request was seen has read it once the next beat is written (each beat
    // is armed when the previous one finished).
    const heartbeat = async () => (await db.requireRun("r1")).heartbeatAtMs ?? 0;
    const asked = Date.now();
    await until(async () => (await heartbeat()) > asked);
    const first = await heartbeat();
    await until(async () => (await heartbeat()) > first);
    release();
    expect(await pausing).toMatchObject({ status: "paused", how: "requested" });
    expect((await running).status).toBe("paused");
    expect(await db.requireRun("r1")).toMatchObject({ rootDir: root });

    // Resumed by the other handle with no rootDir (its process works elsewhere): it works in root.
    expect((await runWorkflow(otherWf, { runId: "r1", resume: true, logDir: null })).status).toBe("finished");
    expect(seen).toEqual([`a ${root}`, `b last ${root}`]);

    // Cancelled from the other handle while a task runs: the attempt is aborted.
    gate = new Promise<void>(() => undefined);
    const second = runWorkflow(wf, { input: {}, runId: "r2", rootDir: root, logDir: null });
    await until(async () => (await db.listAttempts("r2")).some((a) => a.nodeId === "hold" && a.state === "in-progress"));
    expect(await stopRun(db, "r2", "cancel")).toMatchObject({ status: "cancelled", how: "requested" });
    expect((await second).status).toBe("cancelled");
    expect((await db.listAttempts("r2")).find((a) => a.nodeId === "hold")?.state).toBe("cancelled");
  });

  it("stopRun pauses and cancels a run waiting for quota that another handle executes, and a resume, task retry or rewind elsewhere is refused (its process keeps it)", { timeout: 60_000 }, async () => {
    const env = { claimHeartbeatMs: 400 };
    const { api, location } = await backend.open(schemas, { env });
    const { api: other } = await backend.open(schemas, { env, sameStoreAs: location });
    // Its quota resets in a minute: the run waits in its process, its retry timer armed there.
    const limited: AgentLike = {
      id: "limited",
      async generate() {
        throw new FlowError("AGENT_QUOTA_EXCEEDED", "usage limit reached", { retryAtMs: Date.now() + 60_000 });
      },
    };
    const make = ({ flow, Workflow, Task, outputs }: typeof api) =>
      flow(() => (
        <Workflow name="quota-stop">
          <Task id="ask" output={outputs.step} agent={limited} retries={0}>
            Say where.
          </Task>
        </Workflow>
      ));
    const [wf, otherWf] = [make(api), make(other)];
    const db = new FlowDb(other.db);
    for (const [request, status] of [["pause", "paused"], ["cancel", "cancelled"]] as const) {
      const runId = `quota-${request}`;
      const running = runWorkflow(wf, { input: {}, runId, logDir: null });
      await until(async () => (await db.getRun(runId))?.status === "waiting-quota");
      expect(ownerStateOf(db.binding.env, await db.requireRun(runId))).toBe("live");
      // Nor is it taken from its process by a resume elsewhere, or reset under it.
      await expect(runWorkflow(otherWf, { runId, resume: true, logDir: null })).rejects.toMatchObject({ code: "RUN_ALREADY_RUNNING" });
      expect(await retryTask(db, { runId, nodeId: "ask" })).toMatchObject({ success: false, error: expect.stringContaining("waiting-quota in another process") });
      expect(await timeTravel(db, { runId, nodeId: "ask" })).toMatchObject({ success: false, error: expect.stringContaining("waiting-quota in another process") });
      expect(await stopRun(db, runId, request)).toMatchObject({ status, how: "requested" });
      expect((await running).status).toBe(status);
    }
  });

  it("a host knows a run another handle started by its <Workflow name>, and shows a gone owner", { timeout: 60_000 }, async () => {
    const { api, location } = await backend.open(schemas);
    const { api: other } = await backend.open(schemas, { sameStoreAs: location });
    const make = ({ Workflow, Task, outputs, flow }: typeof api) =>
      flow(() => (
        <Workflow name="named">
          <Task id="only" output={outputs.step}>{{ dir: "x" }}</Task>
        </Workflow>
      ));
    const started = make(api);
    const { runId } = await runWorkflow(started, { input: {}, logDir: null });
    const host = new LocalGatewayHost({ workflows: { mine: make(other) } });
    const run = await host.db.requireRun(runId);
    expect(run.workflowName).toBe("named");
    expect(host.workflowKeyOf(run)).toBe("mine");
    // A running run whose owner stopped renewing its claim long ago is gone.
    const env = host.db.binding.env;
    expect(ownerStateOf(env, { status: "running", ownerId: "elsewhere:1:x", heartbeatAtMs: env.clock.now() - env.claimStaleMs - 1 })).toBe("gone");
    expect(ownerStateOf(env, { status: "running", ownerId: "elsewhere:1:x", heartbeatAtMs: env.clock.now() })).toBe("live");
    expect(ownerStateOf(env, { status: "paused", ownerId: null, heartbeatAtMs: null })).toBeNull();
    // Waiting for quota, its process keeps it: live or gone as a running run is.
    expect(ownerStateOf(env, { status: "waiting-quota", ownerId: "elsewhere:1:x", heartbeatAtMs: env.clock.now() - env.claimStaleMs - 1 })).toBe("gone");
  });
});

async function until(cond: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
