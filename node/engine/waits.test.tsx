import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  approvalDecisionSchema,
  approvalSelectionSchema,
  FlowDb,
  type FlowEvent,
  listPendingApprovals,
  listRunsToWake,
  runWorkflow,
  submitApproval,
  submitEvent,
  submitHumanTask,
  submitSignal,
  systemClock,
} from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  decision: approvalDecisionSchema,
  choice: approvalSelectionSchema,
  step: z.object({ value: z.number() }),
  payment: z.object({ amount: z.number() }),
  triage: z.object({ label: z.enum(["bug", "feature"]), priority: z.number().int() }),
  output: z.object({ total: z.number() }),
};

describe.each(testBackends)("waiting on $name", (backend) => {
  it("parks on an Approval, takes the decision in another process, and finishes exactly once", async () => {
    const first = await backend.open(schemas);
    const build = (api: typeof first.api, ran: string[]) =>
      api.flow((ctx) => (
        <api.Workflow name="approve">
          <api.Task id="plan" output={api.outputs.step}>{() => (ran.push("plan"), { value: 1 })}</api.Task>
          <api.Approval id="ship" output={api.outputs.decision} request={{ title: "Ship it?", summary: "v2" }} allowedScopes={["release"]} />
          <api.Task id="done" output={api.outputs.output}>{() => (ran.push("done"), { total: ctx.outputs.decision.length })}</api.Task>
        </api.Workflow>
      ));
    const ran: string[] = [];
    const parked = await runWorkflow(build(first.api, ran), { input: {} });
    expect(parked.status).toBe("waiting-approval");
    const db = new FlowDb(first.api.db);
    expect((await db.requireRun(parked.runId)).ownerId).toBeNull();
    const pending = await listPendingApprovals(db, { runId: parked.runId });
    expect(pending).toEqual([expect.objectContaining({ nodeId: "ship", kind: "approval", request: expect.objectContaining({ request: { title: "Ship it?", summary: "v2" } }) })]);

    // "Another process": a new api over the same store.
    const second = await backend.open(schemas, { sameStoreAs: first.location });
    const db2 = new FlowDb(second.api.db);
    await expect(submitApproval(db2, { runId: parked.runId, nodeId: "ship", decision: "approve", actor: { userId: "eve", scopes: ["read"] } })).rejects.toMatchObject({
      code: "APPROVAL_FORBIDDEN",
      details: { requiredScope: "release" },
    });
    const ok = await submitApproval(db2, { runId: parked.runId, nodeId: "ship", decision: "approve", note: "lgtm", actor: { userId: "ana", scopes: ["release"] } });
    expect(ok.status).toBe("accepted");
    expect(await submitApproval(db2, { runId: parked.runId, nodeId: "ship", decision: "approve", actor: { userId: "ana", scopes: ["release"] } })).toMatchObject({ status: "duplicate" });
    await expect(submitApproval(db2, { runId: parked.runId, nodeId: "ship", decision: "deny", actor: { userId: "bob", scopes: ["*"] } })).rejects.toMatchObject({ code: "APPROVAL_ALREADY_DECIDED" });
    expect(await listRunsToWake(db2)).toContain(parked.runId);

    const ran2: string[] = [];
    const events: FlowEvent[] = [];
    const done = await runWorkflow(build(second.api, ran2), { runId: parked.runId, resume: true, onProgress: (e) => events.push(e) });
    expect(done).toMatchObject({ status: "finished", output: { total: 1 } });
    expect(ran2).toEqual(["done"]);
    const rows = await db2.listOutputs(parked.runId, "decision");
    expect(rows).toEqual([expect.objectContaining({ nodeId: "ship", approved: true, note: "lgtm", decidedBy: "ana", decidedAt: expect.any(String) })]);
    expect(events.filter((e) => e.type === "ApprovalDecided")).toHaveLength(1);
    // Resuming again, or re-delivering, changes nothing.
    expect(await runWorkflow(build(second.api, ran2), { runId: parked.runId, resume: true })).toEqual(done);
    expect(await submitApproval(db2, { runId: parked.runId, nodeId: "ship", decision: "approve", actor: { userId: "ana", scopes: ["release"] } })).toMatchObject({ status: "duplicate" });
    expect(await db2.listOutputs(parked.runId, "decision")).toHaveLength(1);
  });

  it("applies onDeny: fail fails the run, skip skips the node, continue stores the denial", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    for (const onDeny of ["fail", "skip", "continue"] as const) {
      const wf = api.flow(() => (
        <api.Workflow name={`deny-${onDeny}`}>
          <api.Approval id="gate" output={api.outputs.decision} request={{ title: "Go?" }} onDeny={onDeny} />
          <api.Task id="after" output={api.outputs.step}>{{ value: 1 }}</api.Task>
        </api.Workflow>
      ));
      const parked = await runWorkflow(wf, { input: {} });
      await submitApproval(db, { runId: parked.runId, nodeId: "gate", decision: "deny", note: "no", decidedBy: "carl" });
      const r = await runWorkflow(wf, { runId: parked.runId, resume: true });
      const gate = (await db.listNodes(r.runId)).find((n) => n.nodeId === "gate");
      if (onDeny === "fail") {
        expect(r).toMatchObject({ status: "failed", error: { code: "APPROVAL_DENIED", message: expect.stringContaining("carl") } });
      } else {
        expect(r.status).toBe("finished");
        expect(gate?.state).toBe(onDeny === "skip" ? "skipped" : "finished");
        expect((await db.listOutputs(r.runId, "decision")).map((row) => row.approved)).toEqual(onDeny === "skip" ? [] : [false]);
      }
    }
  });

  it("auto-approves when the condition holds, and ApprovalGate only asks when told to", async () => {
    const { api } = await backend.open(schemas);
    const wf = (risky: boolean) =>
      api.flow(() => (
        <api.Workflow name="gate">
          <api.ApprovalGate id="g" output={api.outputs.decision} request={{ title: "Risky?" }} when={risky} />
          <api.Approval id="a" output={api.outputs.decision} request={{ title: "Auto" }} autoApprove={{ condition: true, audit: "policy" }} />
        </api.Workflow>
      ));
    const safe = await runWorkflow(wf(false), { input: {} });
    expect(safe.status).toBe("finished");
    const rows = await new FlowDb(api.db).listOutputs(safe.runId, "decision");
    expect(rows.map((r) => [r.nodeId, r.approved, r.decidedBy]).sort()).toEqual([
      ["a", true, "policy"],
      ["g", true, "gate"],
    ]);
    expect((await runWorkflow(wf(true), { input: {} })).status).toBe("waiting-approval");
  });

  it("runs a select-mode approval with the chosen option and rejects a choice not offered", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    const wf = api.flow(() => (
      <api.Workflow name="select">
        <api.Approval
          id="pick"
          output={api.outputs.choice}
          mode="select"
          request={{ title: "Which plan?" }}
          options={[
            { key: "a", label: "Plan A" },
            { key: "b", label: "Plan B" },
          ]}
        />
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    await expect(submitApproval(db, { runId: parked.runId, nodeId: "pick", decision: { selected: "z" } })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
    await submitApproval(db, { runId: parked.runId, nodeId: "pick", decision: { selected: "b" }, note: "cheaper" });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(parked.runId, "choice")).toEqual([expect.objectContaining({ selected: "b", notes: "cheaper" })]);
  });

  it("gates a Task with needsApproval: it runs only once approved", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    let runs = 0;
    const wf = api.flow(() => (
      <api.Workflow name="needs">
        <api.Task id="deploy" output={api.outputs.step} needsApproval label="Deploy to prod?">
          {() => (runs++, { value: 7 })}
        </api.Task>
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    expect(parked.status).toBe("waiting-approval");
    expect(runs).toBe(0);
    expect((await listPendingApprovals(db))[0]?.request).toMatchObject({ request: { title: "Deploy to prod?" }, gatesTask: true });
    await submitApproval(db, { runId: parked.runId, nodeId: "deploy", decision: "approve" });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(runs).toBe(1);
  });

  it("takes a human task's row, rejecting invalid submissions until maxAttempts", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    const wf = api.flow(() => (
      <api.Workflow name="human">
        <api.HumanTask id="triage" output={api.outputs.triage} prompt="Label the ticket" maxAttempts={2} />
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    expect(parked.status).toBe("waiting-approval");
    await submitHumanTask(db, { runId: parked.runId, nodeId: "triage", value: { label: "oops", priority: 1 }, submittedBy: "ana" });
    const events: FlowEvent[] = [];
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true, onProgress: (e) => events.push(e) })).status).toBe("waiting-approval");
    expect(events).toContainEqual(expect.objectContaining({ type: "HumanTaskRejected", attempt: 1, issues: expect.stringContaining("label") }));
    await submitHumanTask(db, { runId: parked.runId, nodeId: "triage", value: { label: "bug", priority: 2 }, submittedBy: "ana" });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(parked.runId, "triage")).toEqual([expect.objectContaining({ label: "bug", priority: 2 })]);
  });

  it("delivers a signal by run id, validates it, renders the Signal's children with its data, once", async () => {
    const { api, location } = await backend.open(schemas);
    const build = (a: typeof api) =>
      a.flow(() => (
        <a.Workflow name="signal">
          <a.Signal id="ci" schema={z.object({ green: z.boolean(), build: z.number() })}>
            {(data) => (data.green ? <a.Task id="merge" output={a.outputs.step}>{{ value: data.build }}</a.Task> : null)}
          </a.Signal>
        </a.Workflow>
      ));
    const parked = await runWorkflow(build(api), { input: {} });
    expect(parked.status).toBe("waiting-event");
    const other = await backend.open(schemas, { sameStoreAs: location });
    const db = new FlowDb(other.api.db);
    // Invalid data is refused at delivery (checked against the schema the wait recorded) and
    // not stored; a valid delivery is taken, once, however often it is re-sent.
    await expect(submitSignal(db, { name: "ci", runId: parked.runId, payload: { green: "yes" }, deliveryId: "bad" })).rejects.toMatchObject({
      code: "SIGNAL_PAYLOAD_INVALID",
      message: expect.stringContaining("green: Invalid input: expected boolean"),
    });
    expect(await submitSignal(db, { name: "ci", runId: parked.runId, payload: { green: true, build: 812 }, deliveryId: "b812" })).toEqual({ deliveryId: "b812", status: "accepted" });
    expect(await submitSignal(db, { name: "ci", runId: parked.runId, payload: { green: true, build: 812 }, deliveryId: "b812" })).toEqual({ deliveryId: "b812", status: "duplicate" });
    const done = await runWorkflow(build(other.api), { runId: parked.runId, resume: true });
    expect(done.status).toBe("finished");
    expect(await db.listOutputs(parked.runId, "step")).toEqual([expect.objectContaining({ nodeId: "merge", value: 812 })]);
    const consumed = await db.store.query<{ delivery_id: string; consumed_node_id: string | null }>(`SELECT delivery_id, consumed_node_id FROM _flow_signals ORDER BY delivery_id`);
    expect(consumed).toEqual([{ delivery_id: "b812", consumed_node_id: "ci" }]);
  });

  it("routes an event by correlation id to the run that waits on it, and stores its payload", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    const wf = api.flow((ctx) => (
      <api.Workflow name="event">
        <api.WaitForEvent id="paid" event="invoice.paid" correlationId={`inv-${String(ctx.input.invoice)}`} output={api.outputs.payment} />
      </api.Workflow>
    ));
    const a = await runWorkflow(wf, { input: { invoice: 1 } });
    const b = await runWorkflow(wf, { input: { invoice: 2 } });
    await submitEvent(db, { name: "invoice.paid", correlationId: "inv-2", payload: { amount: 20 } });
    expect((await runWorkflow(wf, { runId: a.runId, resume: true })).status).toBe("waiting-event");
    expect((await runWorkflow(wf, { runId: b.runId, resume: true })).status).toBe("finished");
    expect((await db.listOutputs(b.runId, "payment"))[0]).toMatchObject({ amount: 20 });
  });

  it("fails, skips or continues a signal that times out", async () => {
    let now = 1_000_000;
    const clock = { ...systemClock, now: () => now };
    const { api } = await backend.open(schemas, { env: { clock } });
    const db = new FlowDb(api.db);
    for (const onTimeout of ["fail", "skip", "continue"] as const) {
      const wf = api.flow(() => (
        <api.Workflow name={`timeout-${onTimeout}`}>
          <api.Signal id="s" schema={z.object({ v: z.number() })} timeoutMs={60_000} onTimeout={onTimeout}>
            {(d) => <api.Task id="after" output={api.outputs.step}>{{ value: d?.v ?? -1 }}</api.Task>}
          </api.Signal>
        </api.Workflow>
      ));
      const parked = await runWorkflow(wf, { input: {} });
      expect(parked.status).toBe("waiting-event");
      now += 61_000;
      expect(await listRunsToWake(db)).toContain(parked.runId);
      const r = await runWorkflow(wf, { runId: parked.runId, resume: true });
      if (onTimeout === "fail") expect(r).toMatchObject({ status: "failed", error: { code: "WAIT_TIMEOUT" } });
      else expect(r.status).toBe("finished");
      expect((await db.listOutputs(parked.runId, "step")).map((row) => row.value)).toEqual(onTimeout === "continue" ? [-1] : []);
    }
  });

  it("keeps a Timer's fire time across a restart and fires it once", async () => {
    let now = 5_000_000;
    const clock = { ...systemClock, now: () => now };
    const first = await backend.open(schemas, { env: { clock } });
    const build = (a: typeof first.api) =>
      a.flow(() => (
        <a.Workflow name="timer">
          <a.Timer id="cool" duration="10m" />
          <a.Task id="after" output={a.outputs.step}>{{ value: 1 }}</a.Task>
        </a.Workflow>
      ));
    const parked = await runWorkflow(build(first.api), { input: {} });
    expect(parked.status).toBe("waiting-timer");
    now += 5 * 60_000;
    const second = await backend.open(schemas, { sameStoreAs: first.location, env: { clock } });
    expect((await runWorkflow(build(second.api), { runId: parked.runId, resume: true })).status).toBe("waiting-timer");
    now += 5 * 60_000 + 1;
    const events: FlowEvent[] = [];
    expect((await runWorkflow(build(second.api), { runId: parked.runId, resume: true, onProgress: (e) => events.push(e) })).status).toBe("finished");
    expect(events.filter((e) => e.type === "TimerFired")).toEqual([expect.objectContaining({ nodeId: "cool", scheduledAtMs: 5_000_000 + 10 * 60_000 })]);
    const fired = await new FlowDb(second.api.db).listEvents(parked.runId);
    expect(fired.filter((e) => e.type === "TimerFired")).toHaveLength(1);
  });

  it("stays and waits in-process with stayWhileWaiting, waking on a timer and on a delivery", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    const wf = api.flow(() => (
      <api.Workflow name="stay">
        <api.Timer id="t" duration="40ms" />
        <api.Approval id="ok" output={api.outputs.decision} request={{ title: "ok?" }} />
      </api.Workflow>
    ));
    const started = Date.now();
    const running = runWorkflow(wf, { input: {}, stayWhileWaiting: true, waitPollMs: 20 });
    let pending: Awaited<ReturnType<typeof listPendingApprovals>> = [];
    while (pending.length === 0) {
      await new Promise((r) => setTimeout(r, 10));
      pending = await listPendingApprovals(db);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    await submitApproval(db, { runId: pending[0]!.runId, nodeId: "ok", decision: "approve" });
    expect((await running).status).toBe("finished");
  });

  it("renders again after a wait stores its row, so what follows sees it (an ApprovalGate asked only above a threshold)", async () => {
    const { api } = await backend.open({ ...schemas, claim: z.object({ amount: z.number() }) });
    const db = new FlowDb(api.db);
    const wf = api.flow((ctx) => {
      const claim = ctx.outputMaybe(api.outputs.claim, { nodeId: "claim" });
      return (
        <api.Workflow name="threshold">
          <api.HumanTask id="claim" output={api.outputs.claim} prompt="Enter the amount" />
          <api.ApprovalGate id="manager" output={api.outputs.decision} request={{ title: "Large claim" }} when={(claim?.amount ?? 0) > 500} />
        </api.Workflow>
      );
    });
    const parked = await runWorkflow(wf, { input: {} });
    await submitHumanTask(db, { runId: parked.runId, nodeId: "claim", value: { amount: 740 } });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("waiting-approval");
    expect((await listPendingApprovals(db, { runId: parked.runId })).map((p) => p.nodeId)).toEqual(["manager"]);
  });

  it("lets later siblings run while an async approval waits, but not what depends on it", async () => {
    const { api } = await backend.open(schemas);
    const db = new FlowDb(api.db);
    const ran: string[] = [];
    const wf = api.flow(() => (
      <api.Workflow name="async">
        <api.Approval id="review" output={api.outputs.decision} request={{ title: "Review" }} async />
        <api.Task id="independent" output={api.outputs.step}>{() => (ran.push("independent"), { value: 1 })}</api.Task>
        <api.Task id="dependent" output={api.outputs.step} dependsOn={["review"]}>{() => (ran.push("dependent"), { value: 2 })}</api.Task>
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    expect(parked.status).toBe("waiting-approval");
    expect(ran).toEqual(["independent"]);
    await submitApproval(db, { runId: parked.runId, nodeId: "review", decision: "approve" });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(ran).toEqual(["independent", "dependent"]);
  });
});
