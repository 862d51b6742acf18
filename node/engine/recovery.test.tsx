import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  step: z.object({ value: z.number() }),
  output: z.object({ total: z.number() }),
};

const boom = (message: string) => () => {
  throw new Error(message);
};

describe.each(testBackends)("recovery blocks on $name", (backend) => {
  it("compensates completed saga steps in reverse order and then fails the run", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const t = (id: string) => () => (ran.push(id), { value: 1 });
    const wf = api.flow(() => (
      <api.Workflow name="saga">
        <api.Saga id="trip">
          <api.SagaStep id="flight" compensation={<api.Task id="cancel-flight" output={api.outputs.step}>{t("cancel-flight")}</api.Task>}>
            <api.Task id="book-flight" output={api.outputs.step}>{t("book-flight")}</api.Task>
          </api.SagaStep>
          <api.SagaStep id="hotel" compensation={<api.Task id="cancel-hotel" output={api.outputs.step}>{t("cancel-hotel")}</api.Task>}>
            <api.Task id="book-hotel" output={api.outputs.step}>{t("book-hotel")}</api.Task>
          </api.SagaStep>
          <api.SagaStep id="car" compensation={<api.Task id="cancel-car" output={api.outputs.step}>{t("cancel-car")}</api.Task>}>
            <api.Task id="book-car" output={api.outputs.step} retries={0}>
              {boom("no cars left")}
            </api.Task>
          </api.SagaStep>
        </api.Saga>
        <api.Task id="after" output={api.outputs.step}>{t("after")}</api.Task>
      </api.Workflow>
    ));
    const events: FlowEvent[] = [];
    const r = await runWorkflow(wf, { input: {}, onProgress: (e) => events.push(e) });
    expect(ran).toEqual(["book-flight", "book-hotel", "cancel-hotel", "cancel-flight"]);
    expect(r).toMatchObject({ status: "failed", error: { code: "TASK_FAILED", message: expect.stringMatching(/Saga "trip" failed and was compensated.*no cars left/) } });
    expect(events).toContainEqual(expect.objectContaining({ type: "ScopeFailed", scopeId: "trip" }));
    const scopes = (await new FlowDb(api.db).store.query<{ scopes_json: string }>(`SELECT scopes_json FROM _flow_runs WHERE run_id = ?`, [r.runId]))[0]!;
    expect(JSON.parse(scopes.scopes_json).trip.completedSteps).toEqual(["flight", "hotel"]);
  });

  it("goes on after compensating with onFailure=compensate, and fails at once with onFailure=fail", async () => {
    const { api } = await backend.open(schemas);
    const make = (onFailure: "compensate" | "fail", ran: string[]) =>
      api.flow(() => (
        <api.Workflow name={`saga-${onFailure}`}>
          <api.Saga
            id="s"
            onFailure={onFailure}
            steps={[
              { id: "a", action: <api.Task id="do-a" output={api.outputs.step}>{() => (ran.push("do-a"), { value: 1 })}</api.Task>, compensation: <api.Task id="undo-a" output={api.outputs.step}>{() => (ran.push("undo-a"), { value: 0 })}</api.Task> },
              { id: "b", action: <api.Task id="do-b" output={api.outputs.step} retries={0}>{boom("b broke")}</api.Task>, compensation: <api.Task id="undo-b" output={api.outputs.step}>{() => (ran.push("undo-b"), { value: 0 })}</api.Task> },
            ]}
          />
          <api.Task id="after" output={api.outputs.step}>{() => (ran.push("after"), { value: 2 })}</api.Task>
        </api.Workflow>
      ));
    const compensated: string[] = [];
    expect((await runWorkflow(make("compensate", compensated), { input: {} })).status).toBe("finished");
    expect(compensated).toEqual(["do-a", "undo-a", "after"]);
    const failed: string[] = [];
    expect(await runWorkflow(make("fail", failed), { input: {} })).toMatchObject({ status: "failed", error: { message: expect.stringContaining("b broke") } });
    expect(failed).toEqual(["do-a"]);
  });

  it("fails the run when a compensation itself fails, and stops compensating there", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const wf = api.flow(() => (
      <api.Workflow name="saga-comp-fail">
        <api.Saga
          id="s"
          steps={[
            { id: "a", action: <api.Task id="do-a" output={api.outputs.step}>{() => (ran.push("do-a"), { value: 1 })}</api.Task>, compensation: <api.Task id="undo-a" output={api.outputs.step}>{() => (ran.push("undo-a"), { value: 0 })}</api.Task> },
            { id: "b", action: <api.Task id="do-b" output={api.outputs.step}>{() => (ran.push("do-b"), { value: 1 })}</api.Task>, compensation: <api.Task id="undo-b" output={api.outputs.step} retries={0}>{boom("undo-b broke")}</api.Task> },
            { id: "c", action: <api.Task id="do-c" output={api.outputs.step} retries={0}>{boom("c broke")}</api.Task>, compensation: <api.Task id="undo-c" output={api.outputs.step}>{() => (ran.push("undo-c"), { value: 0 })}</api.Task> },
          ]}
        />
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "failed", error: { message: expect.stringContaining("undo-b broke") } });
    expect(ran).toEqual(["do-a", "do-b"]);
  });

  it("runs catch and finally when try fails, and finally alone when it succeeds", async () => {
    const { api } = await backend.open(schemas);
    const make = (fail: boolean, ran: string[]) =>
      api.flow(() => (
        <api.Workflow name="try">
          <api.TryCatchFinally
            id="deploy"
            try={
              <api.Sequence>
                <api.Task id="build" output={api.outputs.step}>{() => (ran.push("build"), { value: 1 })}</api.Task>
                <api.Task id="ship" output={api.outputs.step} retries={0}>{fail ? boom("ship failed") : () => (ran.push("ship"), { value: 2 })}</api.Task>
                <api.Task id="announce" output={api.outputs.step}>{() => (ran.push("announce"), { value: 3 })}</api.Task>
              </api.Sequence>
            }
            catch={(error) => <api.Task id="page" output={api.outputs.step}>{() => (ran.push(`page:${error.message.includes("ship failed")}`), { value: -1 })}</api.Task>}
            finally={<api.Task id="unlock" output={api.outputs.step}>{() => (ran.push("unlock"), { value: 0 })}</api.Task>}
          />
        </api.Workflow>
      ));
    const ok: string[] = [];
    expect((await runWorkflow(make(false, ok), { input: {} })).status).toBe("finished");
    expect(ok).toEqual(["build", "ship", "announce", "unlock"]);
    const caught: string[] = [];
    const r = await runWorkflow(make(true, caught), { input: {} });
    expect(r.status).toBe("finished");
    expect(caught).toEqual(["build", "page:true", "unlock"]);
    const states = Object.fromEntries((await new FlowDb(api.db).listNodes(r.runId)).map((n) => [n.nodeId, n.state]));
    expect(states).toMatchObject({ build: "finished", ship: "failed", announce: "cancelled", page: "finished", unlock: "finished" });
  });

  it("lets an error whose code is not in catchErrors through, after finally", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const wf = api.flow(() => (
      <api.Workflow name="try-rethrow">
        <api.TryCatchFinally
          id="t"
          catchErrors={["TASK_TIMEOUT"]}
          try={<api.Task id="x" output={api.outputs.step} retries={0}>{boom("not a timeout")}</api.Task>}
          catch={<api.Task id="handler" output={api.outputs.step}>{() => (ran.push("handler"), { value: 0 })}</api.Task>}
          finally={<api.Task id="cleanup" output={api.outputs.step}>{() => (ran.push("cleanup"), { value: 0 })}</api.Task>}
        />
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "failed", error: { code: "TASK_FAILED", message: expect.stringContaining("not a timeout") } });
    expect(ran).toEqual(["cleanup"]);
  });

  it("without a catch, runs finally and fails; when catch fails, runs finally and fails with the catch's error", async () => {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const noCatch = api.flow(() => (
      <api.Workflow name="try-finally">
        <api.TryCatchFinally id="t" try={<api.Task id="x" output={api.outputs.step} retries={0}>{boom("x broke")}</api.Task>} finally={<api.Task id="cleanup" output={api.outputs.step}>{() => (ran.push("cleanup"), { value: 0 })}</api.Task>} />
      </api.Workflow>
    ));
    expect(await runWorkflow(noCatch, { input: {} })).toMatchObject({ status: "failed", error: { message: expect.stringContaining("x broke") } });
    expect(ran).toEqual(["cleanup"]);
    ran.length = 0;
    const badCatch = api.flow(() => (
      <api.Workflow name="try-bad-catch">
        <api.TryCatchFinally
          id="t"
          try={<api.Task id="x" output={api.outputs.step} retries={0}>{boom("x broke")}</api.Task>}
          catch={<api.Task id="handler" output={api.outputs.step} retries={0}>{boom("handler broke")}</api.Task>}
          finally={<api.Task id="cleanup" output={api.outputs.step}>{() => (ran.push("cleanup"), { value: 0 })}</api.Task>}
        />
      </api.Workflow>
    ));
    expect(await runWorkflow(badCatch, { input: {} })).toMatchObject({ status: "failed", error: { message: expect.stringContaining("handler broke") } });
    expect(ran).toEqual(["cleanup"]);
  });

  it("recovers the same way after a resume: a caught failure is durable", async () => {
    const { api } = await backend.open(schemas);
    const pause = new AbortController();
    const ran: string[] = [];
    const wf = api.flow(() => (
      <api.Workflow name="try-resume">
        <api.TryCatchFinally
          id="t"
          try={<api.Task id="x" output={api.outputs.step} retries={0}>{boom("x")}</api.Task>}
          catch={<api.Task id="handler" output={api.outputs.step}>{() => (ran.push("handler"), pause.abort(), { value: 0 })}</api.Task>}
          finally={<api.Task id="cleanup" output={api.outputs.step}>{() => (ran.push("cleanup"), { value: 0 })}</api.Task>}
        />
      </api.Workflow>
    ));
    const first = await runWorkflow(wf, { input: {}, pauseSignal: pause.signal });
    expect(first.status).toBe("paused");
    const r = await runWorkflow(wf, { runId: first.runId, resume: true });
    expect(r.status).toBe("finished");
    expect(ran).toEqual(["handler", "cleanup"]);
  });

  it("takes a MergeQueue's children one at a time", async () => {
    const { api } = await backend.open(schemas);
    let running = 0;
    let peak = 0;
    const work = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return { value: 1 };
    };
    const wf = api.flow(() => (
      <api.Workflow name="mq">
        <api.MergeQueue>
          {["a", "b", "c"].map((b) => (
            <api.Task key={b} id={`merge-${b}`} output={api.outputs.step}>
              {work}
            </api.Task>
          ))}
        </api.MergeQueue>
      </api.Workflow>
    ));
    expect((await runWorkflow(wf, { input: {}, maxConcurrency: 8 })).status).toBe("finished");
    expect(peak).toBe(1);
  });
});

describe.each(testBackends)("runs beyond one run on $name", (backend) => {
  it("continues as new: the run ends continued and the next run starts afresh with the new input", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow((ctx) => {
      const generation = ctx.input.generation as number;
      return (
        <api.Workflow name="can">
          <api.Task id="count" output={api.outputs.step}>{() => ({ value: generation + 1 })}</api.Task>
          {generation + 1 < 3 ? <api.ContinueAsNew input={{ generation: generation + 1 }} /> : <api.Task id="done" output={api.outputs.output}>{() => ({ total: generation + 1 })}</api.Task>}
        </api.Workflow>
      );
    });
    const db = new FlowDb(api.db);
    let r = await runWorkflow(wf, { input: { generation: 0 } });
    const chain = [r.runId];
    while (r.status === "continued" && chain.length < 10) {
      expect(r.nextRunId).toBeTruthy();
      chain.push(r.nextRunId!);
      r = await runWorkflow(wf, { runId: r.nextRunId!, resume: true });
    }
    expect(r).toMatchObject({ status: "finished" });
    expect(chain).toHaveLength(3);
    expect((await db.requireRun(chain[0]!)).nextRunId).toBe(chain[1]);
    expect((await db.requireRun(chain[1]!)).input).toEqual({ generation: 1 });
    // Each run holds a short history of its own; the last one counted on from its input.
    for (const id of chain) expect((await db.listEvents(id)).length).toBeLessThan(15);
    const last = await db.listOutputs(chain[2]!, "step");
    expect(last.map((row) => row.value)).toEqual([3]);
  });

  it("continues a Loop as new every N iterations with its iteration and outputs carried", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow((ctx) => (
      <api.Workflow name="daemon">
        <api.Loop id="poll" until={(ctx.latest(api.outputs.step, "tick")?.value ?? 0) >= 5} maxIterations={100} continueAsNewEvery={2}>
          <api.Task id="tick" output={api.outputs.step}>{() => ({ value: (ctx.latest(api.outputs.step, "tick")?.value ?? 0) + 1 })}</api.Task>
        </api.Loop>
      </api.Workflow>
    ));
    let r = await runWorkflow(wf, { input: {} });
    let runs = 1;
    while (r.status === "continued" && runs < 10) {
      r = await runWorkflow(wf, { runId: r.nextRunId!, resume: true });
      runs++;
    }
    expect(r.status).toBe("finished");
    expect(runs).toBe(3);
    const rows = await new FlowDb(api.db).listOutputs(r.runId, "step");
    expect(Math.max(...rows.map((row) => row.value as number))).toBe(5);
  });

  it("starts the next run's loops afresh after an explicit ContinueAsNew", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow((ctx) => (
      <api.Workflow name="can-loop">
        <api.Loop id="l" until={false} maxIterations={2}>
          <api.Task id="tick" output={api.outputs.step}>{() => ({ value: ctx.iteration })}</api.Task>
        </api.Loop>
        {(ctx.input.round as number) < 1 ? <api.ContinueAsNew input={{ round: 1 }} /> : null}
      </api.Workflow>
    ));
    const first = await runWorkflow(wf, { input: { round: 0 } });
    expect(first.status).toBe("continued");
    const second = await runWorkflow(wf, { runId: first.nextRunId!, resume: true });
    expect(second.status).toBe("finished");
    expect((await new FlowDb(api.db).listOutputs(second.runId, "step")).map((r) => r.iteration)).toEqual([0, 1]);
  });

  it("follows a Subflow's child through its continue-as-new chain", async () => {
    const { api } = await backend.open(schemas);
    const child = api.flow((ctx) => {
      const round = ctx.input.round as number;
      return (
        <api.Workflow name="child-chain">
          {round < 2 ? <api.ContinueAsNew input={{ round: round + 1 }} /> : <api.Task id="done" output={api.outputs.output}>{{ total: round }}</api.Task>}
        </api.Workflow>
      );
    });
    const parent = api.flow(() => (
      <api.Workflow name="parent-chain">
        <api.Subflow id="sub" workflow={child} input={{ round: 0 }} output={api.outputs.output} />
      </api.Workflow>
    ));
    expect(await runWorkflow(parent, { input: {} })).toMatchObject({ status: "finished", output: { total: 2 } });
  });

  it("runs a Subflow as a child run and stores its output", async () => {
    const { api } = await backend.open(schemas);
    const child = api.flow((ctx) => (
      <api.Workflow name="child">
        <api.Task id="double" output={api.outputs.output}>{() => ({ total: (ctx.input.n as number) * 2 })}</api.Task>
      </api.Workflow>
    ));
    const parent = api.flow(() => (
      <api.Workflow name="parent">
        <api.Subflow id="sub" workflow={child} input={{ n: 21 }} output={api.outputs.step} retries={0} />
      </api.Workflow>
    ));
    // The child's output { total } does not fit the parent's "step" table: a clear failure.
    const bad = await runWorkflow(parent, { input: {} });
    expect(bad).toMatchObject({ status: "failed", error: { code: "TASK_OUTPUT_INVALID" } });
    const good = api.flow(() => (
      <api.Workflow name="parent2">
        <api.Subflow id="sub" workflow={child} input={{ n: 21 }} output={api.outputs.output} />
      </api.Workflow>
    ));
    const r = await runWorkflow(good, { input: {} });
    expect(r).toMatchObject({ status: "finished", output: { total: 42 } });
    const db = new FlowDb(api.db);
    const childRun = await db.requireRun(`${r.runId}/sub@0`);
    expect(childRun).toMatchObject({ parentRunId: r.runId, status: "finished", output: { total: 42 } });
  });
});

describe.each(testBackends)("alerts on $name", (backend) => {
  it("raises an alert on a slow task, delivers it, and cancels the run when the rule says so", async () => {
    const received: unknown[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        received.push(JSON.parse(body));
        res.end("ok");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
    try {
      const { api } = await backend.open(schemas);
      const wf = api.flow(
        () => (
          <api.Workflow name="slow">
            <api.Task id="slow" output={api.outputs.step}>
              {(task) => new Promise((resolve) => {
                const t = setTimeout(() => resolve({ value: 1 }), 400);
                task.signal.addEventListener("abort", () => clearTimeout(t));
              })}
            </api.Task>
          </api.Workflow>
        ),
        {
          alertPolicy: {
            defaults: { owner: "oncall", severity: "critical", labels: { team: "infra" } },
            rules: { slow: { afterMs: 30, reaction: "page" }, stuck: { afterMs: 80, reaction: { kind: "cancel" } } },
            reactions: { page: { kind: "deliver", destination: url } },
          },
        },
      );
      const events: FlowEvent[] = [];
      const r = await runWorkflow(wf, { input: {}, onProgress: (e) => events.push(e) });
      expect(r.status).toBe("cancelled");
      const alerts = events.filter((e) => e.type === "AlertRaised");
      expect(alerts.map((a) => a.type === "AlertRaised" && [a.rule, a.reaction, a.severity, a.owner])).toEqual([
        ["slow", "deliver", "critical", "oncall"],
        ["stuck", "cancel", "critical", "oncall"],
      ]);
      await new Promise((res) => setTimeout(res, 50));
      expect(received).toEqual([expect.objectContaining({ runId: r.runId, rule: "slow", nodeId: "slow", labels: { team: "infra" } })]);
    } finally {
      server.close();
    }
  });
});
