/**
 * Props and options that used to be accepted and ignored (issue 16): complete descriptors in
 * frames, refusals of what cannot work (async without approval, recurring timers, an Effect
 * runtime without its layer), and Approval autoApprove `after` (durable) and `revertOn`.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, runWorkflow, systemClock } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  input: z.object({ hold: z.boolean().optional() }),
  step: z.object({ value: z.number() }),
  decision: z.object({ approved: z.boolean(), note: z.string().nullable(), decidedBy: z.string().nullable(), decidedAt: z.string().nullable() }),
};

describe.each(testBackends)("engine gaps on $name", (backend) => {
  it("stores complete TaskDescriptors in frames, defaults included", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow(() => (
      <api.Workflow name="frames">
        <api.Task id="plain" output={api.outputs.step}>{{ value: 1 }}</api.Task>
        <api.Task id="tuned" output={api.outputs.step} retries={2} timeoutMs={5000} continueOnFail retryPolicy={{ backoff: "linear", initialDelayMs: 10 }}>{{ value: 2 }}</api.Task>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    const frame = await new FlowDb(api.db).getFrame(r.runId);
    expect(frame!.tasks.find((t) => t.nodeId === "plain")).toMatchObject({
      ordinal: 0,
      iteration: 0,
      outputTable: "step",
      needsApproval: false,
      skipIf: false,
      continueOnFail: false,
      retries: null,
      timeoutMs: null,
      heartbeatTimeoutMs: null,
    });
    // No retryPolicy: the engine's default curve applies (docs/engine.md), which is no RetryPolicy.
    expect(frame!.tasks.find((t) => t.nodeId === "plain")).not.toHaveProperty("retryPolicy");
    expect(frame!.tasks.find((t) => t.nodeId === "tuned")).toMatchObject({ retries: 2, timeoutMs: 5000, continueOnFail: true, retryPolicy: { backoff: "linear", initialDelayMs: 10 } });
  });

  it("refuses async without needsApproval, and Timer every naming the alternatives", async () => {
    const { api } = await backend.open(schemas);
    const asyncTask = api.flow(() => (
      <api.Workflow name="async">
        <api.Task id="bg" output={api.outputs.step} async>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    expect(await runWorkflow(asyncTask, { input: {} })).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", message: expect.stringContaining("add needsApproval") } });
    const gated = api.flow(() => (
      <api.Workflow name="async-gated">
        <api.Task id="bg" output={api.outputs.step} needsApproval async>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    expect((await runWorkflow(gated, { input: {} })).status).toBe("waiting-approval");
    const every = api.flow(() => (
      <api.Workflow name="every">
        <api.Timer id="tick" every="1h" />
      </api.Workflow>
    ));
    expect(await runWorkflow(every, { input: {} })).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", message: expect.stringMatching(/recurring timers.*Loop around a Timer.*Gateway schedule/) } });
  });

  it("refuses effectPlatformRuntime node or worker without effectPlatformLayer", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow(() => (
      <api.Workflow name="effect">
        <api.Task id="x" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    for (const runtime of ["node", "worker"] as const) {
      await expect(runWorkflow(wf, { input: {}, effectPlatformRuntime: runtime })).rejects.toMatchObject({ code: "INVALID_ARGUMENT", message: expect.stringContaining("needs effectPlatformLayer") });
    }
    expect((await runWorkflow(wf, { input: {}, effectPlatformRuntime: "node", effectPlatformLayer: {} })).status).toBe("finished");
    expect((await runWorkflow(wf, { input: {}, effectPlatformRuntime: "bun" })).status).toBe("finished");
  });

  it("approves automatically after `after`, across a restart, unless revertOn holds", async () => {
    let now = 9_000_000;
    const clock = { ...systemClock, now: () => now };
    const first = await backend.open(schemas, { env: { clock } });
    const build = (a: typeof first.api) =>
      a.flow((ctx) => (
        <a.Workflow name="auto">
          <a.Approval id="ship" output={a.outputs.decision} request={{ title: "Ship?" }} autoApprove={{ after: "30m", audit: "release-bot", revertOn: ctx.input.hold === true }} />
          <a.Task id="shipped" output={a.outputs.step}>{{ value: 1 }}</a.Task>
        </a.Workflow>
      ));
    const parked = await runWorkflow(build(first.api), { input: {} });
    const held = await runWorkflow(build(first.api), { input: { hold: true } });
    expect([parked.status, held.status]).toEqual(["waiting-approval", "waiting-approval"]);
    now += 20 * 60_000;
    const second = await backend.open(schemas, { sameStoreAs: first.location, env: { clock } });
    expect((await runWorkflow(build(second.api), { runId: parked.runId, resume: true })).status).toBe("waiting-approval");
    now += 10 * 60_000 + 1;
    expect((await runWorkflow(build(second.api), { runId: parked.runId, resume: true })).status).toBe("finished");
    const db = new FlowDb(second.api.db);
    expect((await db.listOutputs(parked.runId, "decision"))[0]).toMatchObject({ approved: true, decidedBy: "release-bot" });
    // revertOn: past `after`, the held run still waits for a person.
    expect((await runWorkflow(build(second.api), { runId: held.runId, resume: true })).status).toBe("waiting-approval");
    expect(await db.listOutputs(held.runId, "decision")).toEqual([]);
  });

  it("re-reads an autoApprove condition at each render while the approval waits", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow((ctx) => {
      const first = ctx.outputMaybe(api.outputs.step, { nodeId: "slow" });
      return (
        <api.Workflow name="condition">
          <api.Parallel>
            <api.Approval id="gate" output={api.outputs.decision} request={{ title: "Go?" }} autoApprove={{ condition: first !== undefined }} />
            <api.Task id="slow" output={api.outputs.step}>{async () => (await new Promise((r) => setTimeout(r, 20)), { value: 7 })}</api.Task>
          </api.Parallel>
        </api.Workflow>
      );
    });
    const r = await runWorkflow(wf, { input: {} });
    expect(r.status).toBe("finished");
    expect((await new FlowDb(api.db).listOutputs(r.runId, "decision"))[0]).toMatchObject({ approved: true, decidedBy: "auto" });
  });
});
