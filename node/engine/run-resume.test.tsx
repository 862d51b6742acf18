import { hostname } from "node:os";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, retryTask, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  step: z.object({ value: z.number() }),
  output: z.object({ total: z.number() }),
};

describe.each(testBackends)("resume on $name", (backend) => {
  async function pausedRun() {
    const opened = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = opened.api;
    const pause = new AbortController();
    const calls: string[] = [];
    const wf = flow((ctx) => (
      <Workflow name="resumable">
        <Task id="a" output={outputs.step}>{() => (calls.push("a"), pause.abort(), { value: 1 })}</Task>
        <Task id="b" output={outputs.step}>{() => (calls.push("b"), { value: 2 })}</Task>
        <Task id="sum" output={outputs.output}>{() => (calls.push("sum"), { total: ctx.outputs.step.reduce((s, r) => s + r.value, 0) })}</Task>
      </Workflow>
    ));
    // The same workflow after an edit of its source: one task more.
    const edited = flow((ctx) => (
      <Workflow name="resumable">
        <Task id="a" output={outputs.step}>{() => (calls.push("a"), { value: 1 })}</Task>
        <Task id="b" output={outputs.step}>{() => (calls.push("b"), { value: 2 })}</Task>
        <Task id="c" output={outputs.step}>{() => (calls.push("c"), { value: 3 })}</Task>
        <Task id="sum" output={outputs.output}>{() => (calls.push("sum"), { total: ctx.outputs.step.reduce((s, r) => s + r.value, 0) })}</Task>
      </Workflow>
    ));
    const first = await runWorkflow(wf, { input: {}, pauseSignal: pause.signal });
    expect(first.status).toBe("paused");
    return { ...opened, wf, edited, runId: first.runId, calls, db: new FlowDb(opened.api.db) };
  }

  it("returns a finished run's stored result without running or writing anything", async () => {
    const { wf, runId, calls, db } = await pausedRun();
    const done = await runWorkflow(wf, { runId, resume: true });
    expect(done).toEqual({ runId, status: "finished", output: { total: 3 } });
    const before = (await db.listEvents(runId)).length;
    calls.length = 0;
    const again = await runWorkflow(wf, { runId, resume: true });
    expect(again).toEqual(done);
    expect(calls).toEqual([]);
    expect(await db.listEvents(runId)).toHaveLength(before);
  });

  it("refuses a run owned by a live process, takes over a stale or dead owner, and obeys force", async () => {
    const { wf, runId, db } = await pausedRun();
    const store = db.store;
    const own = (owner: string, heartbeatAtMs: number) =>
      store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, [owner, heartbeatAtMs, runId]);

    await own("elsewhere:123:abc", Date.now());
    await expect(runWorkflow(wf, { runId, resume: true })).rejects.toMatchObject({ code: "RUN_ALREADY_RUNNING", message: expect.stringContaining("elsewhere:123:abc") });

    // A dead process on this host: taken over at once, heartbeat notwithstanding.
    await own(`${hostname()}:999999:dead`, Date.now());
    const events: FlowEvent[] = [];
    const r = await runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) });
    expect(r.status).toBe("finished");
    expect(events[0]).toMatchObject({ type: "RunResumed", takeover: true, previousOwnerId: `${hostname()}:999999:dead` });
  });

  it("takes over a run whose heartbeat is stale, and a live one with force", async () => {
    const { wf, runId, db } = await pausedRun();
    await db.store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, ["elsewhere:1:x", Date.now() - 60_000, runId]);
    expect((await runWorkflow(wf, { runId, resume: true })).status).toBe("finished");

    const other = await pausedRun();
    await other.db.store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, ["elsewhere:1:y", Date.now(), other.runId]);
    expect((await runWorkflow(other.wf, { runId: other.runId, resume: true, force: true })).status).toBe("finished");
  });

  it("re-runs an attempt left in progress by a dead process and records it as interrupted", async () => {
    const { wf, runId, db, calls } = await pausedRun();
    const now = Date.now();
    await db.store.execute(`INSERT INTO _flow_attempts (run_id, node_id, iteration, attempt, state, started_at_ms) VALUES (?, 'b', 0, 1, 'in-progress', ?)`, [runId, now]);
    await db.store.execute(`UPDATE _flow_nodes SET state = 'in-progress', attempts = 1 WHERE run_id = ? AND node_id = 'b'`, [runId]);
    await db.store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, [`${hostname()}:999999:gone`, now, runId]);
    calls.length = 0;
    const events: FlowEvent[] = [];
    const r = await runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { total: 3 } });
    expect(calls).toEqual(["b", "sum"]);
    expect(events).toContainEqual(expect.objectContaining({ type: "TaskCancelled", nodeId: "b", attempt: 1, reason: "interrupted" }));
    expect((await db.listAttempts(runId, "b")).map((a) => [a.attempt, a.state])).toEqual([
      [1, "cancelled"],
      [2, "finished"],
    ]);
  });

  it("resumes with edited workflow code: records the change, keeps finished outputs, runs new tasks", async () => {
    const { edited: changed, runId, db, calls } = await pausedRun();
    await expect(runWorkflow(changed, { runId, resume: true, onWorkflowChange: "refuse" })).rejects.toMatchObject({ code: "WORKFLOW_CHANGED" });
    calls.length = 0;
    const events: FlowEvent[] = [];
    const r = await runWorkflow(changed, { runId, resume: true, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { total: 6 } });
    expect(calls).toEqual(["b", "c", "sum"]);
    expect(events.map((e) => e.type)).toContain("WorkflowChanged");
    expect((await db.requireRun(runId)).workflowHash).toBe((events.find((e) => e.type === "WorkflowChanged") as { workflowHash: string }).workflowHash);
  });

  it("cancels stored tasks that the edited workflow no longer has", async () => {
    const opened = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = opened.api;
    const pause = new AbortController();
    const v1 = flow(() => (
      <Workflow name="v">
        <Task id="keep" output={outputs.step}>{() => (pause.abort(), { value: 1 })}</Task>
        <Task id="dropped" output={outputs.step}>{{ value: 2 }}</Task>
      </Workflow>
    ));
    const first = await runWorkflow(v1, { input: {}, pauseSignal: pause.signal });
    const v2 = flow(() => (
      <Workflow name="v">
        <Task id="keep" output={outputs.step}>{{ value: 1 }}</Task>
        <Task id="added" output={outputs.output}>{{ total: 9 }}</Task>
      </Workflow>
    ));
    expect((await runWorkflow(v2, { runId: first.runId, resume: true })).status).toBe("finished");
    const states = Object.fromEntries((await new FlowDb(opened.api.db).listNodes(first.runId)).map((n) => [n.nodeId, n.state]));
    expect(states).toEqual({ keep: "finished", dropped: "cancelled", added: "finished" });
  });

  it("retryTask resets a failed node and its dependents so a resume runs them again", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    let broken = true;
    const ran: string[] = [];
    const wf = flow(() => (
      <Workflow name="retry-task">
        <Task id="a" output={outputs.step}>{() => (ran.push("a"), { value: 1 })}</Task>
        <Task id="b" output={outputs.step} retries={0}>
          {() => {
            ran.push("b");
            if (broken) throw new Error("bug");
            return { value: 2 };
          }}
        </Task>
        <Task id="c" output={outputs.output}>{() => (ran.push("c"), { total: 3 })}</Task>
      </Workflow>
    ));
    const failed = await runWorkflow(wf, { input: {} });
    expect(failed.status).toBe("failed");
    const db = new FlowDb(api.db);
    expect(await retryTask(db, { runId: "missing", nodeId: "b" })).toMatchObject({ success: false, error: expect.stringContaining("missing") });
    expect(await retryTask(db, { runId: failed.runId, nodeId: "zzz" })).toMatchObject({ success: false });
    broken = false;
    const events: FlowEvent[] = [];
    const reset = await retryTask(db, { runId: failed.runId, nodeId: "b", onProgress: (e) => events.push(e) });
    expect(reset).toEqual({ success: true, resetNodes: ["b"], decisions: [] });
    expect(events).toEqual([expect.objectContaining({ type: "TaskReset", nodeId: "b", reason: "retry-task" })]);
    ran.length = 0;
    const r = await runWorkflow(wf, { runId: failed.runId, resume: true });
    expect(r).toMatchObject({ status: "finished", output: { total: 3 } });
    expect(ran).toEqual(["b", "c"]);

    // Resetting a finished task with its dependents runs them again and drops their old rows.
    const again = await retryTask({ db: api.db }, { runId: failed.runId, nodeId: "a" });
    expect(again.resetNodes.sort()).toEqual(["a", "b", "c"]);
    expect(await db.listOutputs(failed.runId, outputs.step)).toEqual([]);
    ran.length = 0;
    expect((await runWorkflow(wf, { runId: failed.runId, resume: true })).status).toBe("finished");
    expect(ran).toEqual(["a", "b", "c"]);
    const only = await retryTask(db, { runId: failed.runId, nodeId: "a", resetDependents: false });
    expect(only.resetNodes).toEqual(["a"]);
  });

  it("seeds outputs with initialOutputs so their tasks do not run", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const ran: string[] = [];
    const wf = flow((ctx) => (
      <Workflow name="seeded">
        <Task id="a" output={outputs.step}>{() => (ran.push("a"), { value: 100 })}</Task>
        <Task id="sum" output={outputs.output}>{() => (ran.push("sum"), { total: ctx.outputs.step[0]!.value + 1 })}</Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, initialOutputs: { step: [{ nodeId: "a", value: 41 }] } });
    expect(r).toMatchObject({ status: "finished", output: { total: 42 } });
    expect(ran).toEqual(["sum"]);
    await expect(runWorkflow(wf, { input: {}, initialOutputs: { step: [{ nodeId: "a", value: "x" }] } })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
