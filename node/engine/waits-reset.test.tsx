import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  approvalDecisionSchema,
  FlowDb,
  type FlowApi,
  type FlowEvent,
  listPendingApprovals,
  retryTask,
  runWorkflow,
  submitApproval,
  submitEvent,
  submitHumanTask,
  submitSignal,
  timeTravel,
} from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  decision: approvalDecisionSchema,
  step: z.object({ value: z.number() }),
  payment: z.object({ amount: z.number() }),
  triage: z.object({ label: z.string() }),
};

type Api = FlowApi<typeof schemas>;

describe.each(testBackends)("reset and cancelled waits on $name", (backend) => {
  const release = (api: Api, ran: string[]) =>
    api.flow(() => (
      <api.Workflow name="release">
        <api.Task id="test" output={api.outputs.step}>{() => (ran.push("test"), { value: 1 })}</api.Task>
        <api.Approval id="ship" output={api.outputs.decision} request={{ title: "Ship?" }} />
        <api.Task id="deploy" output={api.outputs.step}>{() => (ran.push("deploy"), { value: 2 })}</api.Task>
      </api.Workflow>
    ));

  async function approvedRun(api: Api, ran: string[]) {
    const wf = release(api, ran);
    const parked = await runWorkflow(wf, { input: {} });
    await submitApproval(api, { runId: parked.runId, nodeId: "ship", decision: "approve", decidedBy: "ana" });
    expect(await runWorkflow(wf, { runId: parked.runId, resume: true })).toMatchObject({ status: "finished" });
    return { wf, runId: parked.runId };
  }

  it("asks a rewound approval again: a new request, in the inbox, and nothing after it runs until a new decision", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const { wf, runId } = await approvedRun(api, ran);
    const db = new FlowDb(api.db);
    const r = await timeTravel(db, { runId, nodeId: "test", restoreVcs: false });
    expect(r.success).toBe(true);
    expect(r.decisions).toEqual([expect.objectContaining({ nodeId: "ship", kind: "approval", action: "ask-again", decidedBy: "ana", decision: expect.objectContaining({ approved: true }) })]);
    const events: FlowEvent[] = [];
    ran.length = 0;
    const again = await runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) });
    expect(again.status).toBe("waiting-approval");
    expect(ran).toEqual(["test"]);
    expect(events.filter((e) => e.type === "ApprovalRequested")).toEqual([expect.objectContaining({ nodeId: "ship" })]);
    expect(await listPendingApprovals(db, { runId })).toEqual([expect.objectContaining({ nodeId: "ship" })]);
    await submitApproval(db, { runId, nodeId: "ship", decision: "approve", decidedBy: "bob" });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "finished" });
    expect(ran).toEqual(["test", "deploy"]);
    expect(await db.listOutputs(runId, "decision")).toEqual([expect.objectContaining({ nodeId: "ship", decidedBy: "bob" })]);
  });

  it("keeps earlier decisions only when asked to (keepDecisions), and says so", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const { wf, runId } = await approvedRun(api, ran);
    const r = await timeTravel(new FlowDb(api.db), { runId, nodeId: "test", restoreVcs: false, keepDecisions: true });
    expect(r.decisions).toEqual([expect.objectContaining({ nodeId: "ship", action: "keep" })]);
    ran.length = 0;
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "finished" });
    expect(ran).toEqual(["test", "deploy"]);
  });

  it("asks a retried denied approval again instead of failing at once with the old decision", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const wf = release(api, ran);
    const parked = await runWorkflow(wf, { input: {} });
    await submitApproval(api, { runId: parked.runId, nodeId: "ship", decision: "deny", note: "not yet", decidedBy: "ana" });
    expect(await runWorkflow(wf, { runId: parked.runId, resume: true })).toMatchObject({ status: "failed" });
    const db = new FlowDb(api.db);
    const r = await retryTask(db, { runId: parked.runId, nodeId: "ship" });
    expect(r.decisions).toEqual([expect.objectContaining({ nodeId: "ship", action: "ask-again", decision: expect.objectContaining({ approved: false, note: "not yet" }) })]);
    expect(await runWorkflow(wf, { runId: parked.runId, resume: true })).toMatchObject({ status: "waiting-approval" });
    expect(await listPendingApprovals(db, { runId: parked.runId })).toHaveLength(1);
    await submitApproval(db, { runId: parked.runId, nodeId: "ship", decision: "approve", decidedBy: "ana" });
    expect(await runWorkflow(wf, { runId: parked.runId, resume: true })).toMatchObject({ status: "finished" });
    expect(ran).toEqual(["test", "deploy"]);
  });

  it("asks reset human tasks, signals and events again: the delivery they took stays spent", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const wf = api.flow(() => (
      <api.Workflow name="waits">
        <api.Task id="start" output={api.outputs.step}>{() => ({ value: 0 })}</api.Task>
        <api.HumanTask id="triage" output={api.outputs.triage} prompt="Label it" />
        <api.Signal id="go" schema={z.object({})}>{() => <api.Task id="after-go" output={api.outputs.step}>{() => (ran.push("after-go"), { value: 1 })}</api.Task>}</api.Signal>
        <api.WaitForEvent id="paid" event="invoice.paid" output={api.outputs.payment} />
        <api.Task id="end" output={api.outputs.step}>{() => (ran.push("end"), { value: 3 })}</api.Task>
      </api.Workflow>
    ));
    const db = new FlowDb(api.db);
    const first = await runWorkflow(wf, { input: {} });
    const runId = first.runId;
    expect(first.status).toBe("waiting-approval");
    await submitHumanTask(db, { runId, nodeId: "triage", value: { label: "bug" } });
    await submitSignal(db, { name: "go", runId, payload: {} });
    await submitEvent(db, { name: "invoice.paid", runId, payload: { amount: 5 } });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "finished" });
    expect((await db.requireRun(runId)).status).toBe("finished");
    const r = await timeTravel(db, { runId, nodeId: "start", restoreVcs: false });
    expect(r.decisions?.map((d) => [d.nodeId, d.kind, d.action])).toEqual([
      ["triage", "human", "ask-again"],
      ["go", "signal", "ask-again"],
      ["paid", "event", "ask-again"],
    ]);
    ran.length = 0;
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "waiting-approval" });
    await submitHumanTask(db, { runId, nodeId: "triage", value: { label: "feature" } });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "waiting-event" });
    expect(ran).toEqual([]);
    await submitSignal(db, { name: "go", runId, payload: {} });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "waiting-event" });
    await submitEvent(db, { name: "invoice.paid", runId, payload: { amount: 9 } });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "finished" });
    expect(ran).toEqual(["after-go", "end"]);
    expect(await db.listOutputs(runId, "payment")).toEqual([expect.objectContaining({ amount: 9 })]);
    expect(await db.listOutputs(runId, "triage")).toEqual([expect.objectContaining({ label: "feature" })]);
  });

  it("closes a cancelled run's waits: deliveries are refused with WAIT_CLOSED and store nothing; a retry asks again", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const wf = release(api, ran);
    const db = new FlowDb(api.db);
    const { runId } = await runWorkflow(wf, { input: {} });
    expect(await listPendingApprovals(db, { runId })).toHaveLength(1);
    const cancel = new AbortController();
    cancel.abort();
    expect(await runWorkflow(wf, { runId, resume: true, signal: cancel.signal })).toMatchObject({ status: "cancelled" });
    expect(await listPendingApprovals(db)).toEqual([]);
    expect((await db.listNodes(runId)).find((n) => n.nodeId === "ship")?.state).toBe("cancelled");
    await expect(submitApproval(db, { runId, nodeId: "ship", decision: "approve" })).rejects.toMatchObject({ code: "WAIT_CLOSED", details: { runId, nodeId: "ship" } });
    await expect(submitSignal(db, { name: "go", runId, payload: {} })).rejects.toMatchObject({ code: "WAIT_CLOSED" });
    const [wait] = await db.store.query<{ status: string; resolution_json: string | null }>(`SELECT status, resolution_json FROM _flow_waits WHERE run_id = ?`, [runId]);
    expect(wait).toEqual({ status: "closed", resolution_json: null });
    expect(await db.store.query(`SELECT delivery_id FROM _flow_signals`)).toEqual([]);

    expect((await retryTask(db, { runId, nodeId: "ship" })).success).toBe(true);
    const events: FlowEvent[] = [];
    expect(await runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) })).toMatchObject({ status: "waiting-approval" });
    expect(events.some((e) => e.type === "ApprovalRequested")).toBe(true);
    await submitApproval(db, { runId, nodeId: "ship", decision: "approve" });
    expect(await runWorkflow(wf, { runId, resume: true })).toMatchObject({ status: "finished" });
    expect(ran).toEqual(["test", "deploy"]);
  });

  it("closes the waits of a cancelled run's child runs too", async () => {
    const { api } = await backend.open(schemas);
    const child = api.flow(() => (
      <api.Workflow name="child">
        <api.Approval id="ok" output={api.outputs.decision} request={{ title: "OK?" }} />
      </api.Workflow>
    ));
    const parent = api.flow(() => (
      <api.Workflow name="parent">
        <api.Subflow id="sub" workflow={child} input={{}} output={api.outputs.decision} retries={0} />
      </api.Workflow>
    ));
    const db = new FlowDb(api.db);
    const cancel = new AbortController();
    const runId = "parent-run";
    const running = runWorkflow(parent, { runId, input: {}, signal: cancel.signal });
    for (let i = 0; (await listPendingApprovals(db)).length === 0; i++) {
      if (i > 400) throw new Error("the child's approval never came");
      await new Promise((r) => setTimeout(r, 25));
    }
    cancel.abort();
    expect(await running).toMatchObject({ status: "cancelled" });
    const childId = `${runId}/sub@0`;
    // The child's session ends on its own abort, a moment after the parent's.
    for (let i = 0; (await db.requireRun(childId)).status !== "cancelled"; i++) {
      if (i > 200) throw new Error(`child run is ${(await db.requireRun(childId)).status}, not cancelled`);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await listPendingApprovals(db)).toEqual([]);
    await expect(submitApproval(db, { runId: childId, nodeId: "ok", decision: "approve" })).rejects.toMatchObject({ code: "WAIT_CLOSED" });
  });
});
