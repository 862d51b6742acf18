import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlow, FlowDb, type FlowEvent, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  step: z.object({ value: z.number() }),
  output: z.object({ total: z.number() }),
};

/** Retries at once: these tests are about attempts, not waits (the default backoff waits 1 s, 2 s, ...). */
const NO_WAIT = { initialDelayMs: 0 };

describe.each(testBackends)("engine failures on $name", (backend) => {
  it("retries a failing task until it succeeds, numbering attempts", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    let calls = 0;
    const wf = flow(() => (
      <Workflow name="retry">
        <Task id="flaky" output={outputs.step} retries={3} retryPolicy={NO_WAIT}>
          {(task) => {
            calls++;
            if (task.attempt < 3) throw new Error(`boom ${task.attempt}`);
            return { value: task.attempt };
          }}
        </Task>
      </Workflow>
    ));
    const events: FlowEvent[] = [];
    const r = await runWorkflow(wf, { input: {}, onProgress: (e) => events.push(e) });
    expect(r.status).toBe("finished");
    expect(calls).toBe(3);
    const attempts = await new FlowDb(api.db).listAttempts(r.runId, "flaky");
    expect(attempts.map((a) => [a.attempt, a.state])).toEqual([
      [1, "failed"],
      [2, "failed"],
      [3, "finished"],
    ]);
    expect(attempts[0]?.error).toMatchObject({ code: "TASK_FAILED", message: expect.stringContaining("boom 1") });
    const failed = events.filter((e) => e.type === "TaskFailed");
    expect(failed.map((e) => e.type === "TaskFailed" && e.willRetry)).toEqual([true, true]);
  });

  it("gives up after `retries` retries, or at once with retries 0 / noRetry, and fails the run", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const make = (props: { retries?: number; noRetry?: boolean }) =>
      flow(() => (
        <Workflow name="giveup">
          <Task id="bad" output={outputs.step} retryPolicy={NO_WAIT} {...props}>
            {() => {
              throw new Error("always");
            }}
          </Task>
          <Task id="after" output={outputs.step}>{{ value: 1 }}</Task>
        </Workflow>
      ));
    const db = new FlowDb(api.db);
    for (const [props, attempts] of [
      [{ retries: 2 }, 3],
      [{ retries: 0 }, 1],
      [{ noRetry: true }, 1],
    ] as const) {
      const r = await runWorkflow(make(props), { input: {} });
      expect(r).toMatchObject({ status: "failed", error: { code: "TASK_FAILED" } });
      expect(await db.listAttempts(r.runId, "bad")).toHaveLength(attempts);
      expect(await db.listAttempts(r.runId, "after")).toHaveLength(0);
      expect((await db.listNodes(r.runId)).find((n) => n.nodeId === "bad")?.state).toBe("failed");
    }
  });

  it("waits between retries as the retry policy says", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const delays: Record<string, number[]> = {};
    const wf = (backoff: "fixed" | "linear" | "exponential") =>
      flow(() => (
        <Workflow name="backoff">
          <Task id="t" output={outputs.step} retries={3} retryPolicy={{ backoff, initialDelayMs: 4 }}>
            {(task) => {
              if (task.attempt <= 3) throw new Error("again");
              return { value: 1 };
            }}
          </Task>
        </Workflow>
      ));
    for (const backoff of ["fixed", "linear", "exponential"] as const) {
      const started = Date.now();
      await runWorkflow(wf(backoff), {
        input: {},
        onProgress: (e) => {
          if (e.type === "TaskFailed" && e.retryInMs !== undefined) (delays[backoff] ??= []).push(e.retryInMs);
        },
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(delays[backoff]!.reduce((a, b) => a + b, 0) - 2);
    }
    expect(delays).toEqual({ fixed: [4, 4, 4], linear: [4, 8, 12], exponential: [4, 8, 16] });
  });

  it("fails an attempt that outlives timeoutMs and aborts its signal", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    let aborted = false;
    const wf = flow(() => (
      <Workflow name="timeout">
        <Task id="slow" output={outputs.step} timeoutMs={30} retries={0}>
          {(task) =>
            new Promise((resolve) => {
              task.signal.addEventListener("abort", () => (aborted = true));
              setTimeout(() => resolve({ value: 1 }), 2000);
            })
          }
        </Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "failed", error: { code: "TASK_TIMEOUT" } });
    expect(aborted).toBe(true);
  });

  it("fails an attempt that stops sending heartbeats, and keeps one that sends them", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const silent = flow(() => (
      <Workflow name="hb">
        <Task id="quiet" output={outputs.step} heartbeatTimeoutMs={30} retries={0}>
          {() => new Promise<{ value: number }>((resolve) => setTimeout(() => resolve({ value: 1 }), 500))}
        </Task>
      </Workflow>
    ));
    expect(await runWorkflow(silent, { input: {} })).toMatchObject({ status: "failed", error: { code: "TASK_HEARTBEAT_TIMEOUT" } });
    const chatty = flow(() => (
      <Workflow name="hb2">
        <Task id="busy" output={outputs.step} heartbeatTimeoutMs={40} retries={0}>
          {async (task) => {
            for (let i = 0; i < 8; i++) {
              await new Promise((r) => setTimeout(r, 15));
              task.heartbeat({ progress: i });
            }
            return { value: 8 };
          }}
        </Task>
      </Workflow>
    ));
    expect((await runWorkflow(chatty, { input: {} })).status).toBe("finished");
  });

  it("continues past a failed task with continueOnFail", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="cof">
        <Task id="bad" output={outputs.step} retries={0} continueOnFail>
          {() => {
            throw new Error("ignored");
          }}
        </Task>
        <Task id="final" output={outputs.output}>{() => ({ total: ctx.outputs.step.length })}</Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "finished", output: { total: 0 } });
    expect((await new FlowDb(api.db).listNodes(r.runId)).map((n) => [n.nodeId, n.state])).toEqual([
      ["bad", "failed"],
      ["final", "finished"],
    ]);
  });

  it("cancels the run when its signal aborts: in-flight attempts are recorded as cancelled", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, outputs } = api;
    const controller = new AbortController();
    const wf = flow(() => (
      <Workflow name="cancel">
        <Parallel>
          <Task id="quick" output={outputs.step}>{{ value: 1 }}</Task>
          <Task id="long" output={outputs.step}>
            {(task) =>
              task.attempt > 1 ? { value: 2 } : new Promise((resolve) => {
                setTimeout(() => controller.abort(), 20);
                setTimeout(() => resolve({ value: 2 }), 5000).unref?.();
                task.signal.addEventListener("abort", () => resolve({ value: -1 }));
              })
            }
          </Task>
        </Parallel>
        <Task id="never" output={outputs.step}>{{ value: 3 }}</Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, signal: controller.signal });
    expect(r.status).toBe("cancelled");
    const db = new FlowDb(api.db);
    const states = Object.fromEntries((await db.listNodes(r.runId)).map((n) => [n.nodeId, n.state]));
    expect(states).toEqual({ quick: "finished", long: "cancelled", never: "pending" });
    expect((await db.listAttempts(r.runId, "long"))[0]?.state).toBe("cancelled");
    expect((await db.requireRun(r.runId)).status).toBe("cancelled");
    // A cancelled run can be resumed: the cancelled task runs again and the run finishes.
    const resumed = await runWorkflow(wf, { runId: r.runId, resume: true });
    expect(resumed.status).toBe("finished");
  });

  it("pauses on pauseSignal: in-flight tasks finish, nothing new starts, and resume continues", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const pause = new AbortController();
    const ran: string[] = [];
    const wf = flow(() => (
      <Workflow name="pause">
        <Task id="first" output={outputs.step}>
          {async () => {
            ran.push("first");
            pause.abort();
            await new Promise((r) => setTimeout(r, 20));
            return { value: 1 };
          }}
        </Task>
        <Task id="second" output={outputs.step}>{() => (ran.push("second"), { value: 2 })}</Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, pauseSignal: pause.signal });
    expect(r.status).toBe("paused");
    expect(ran).toEqual(["first"]);
    const db = new FlowDb(api.db);
    expect((await db.listNodes(r.runId)).map((n) => n.state)).toEqual(["finished", "pending"]);
    const resumed = await runWorkflow(wf, { runId: r.runId, resume: true });
    expect(resumed.status).toBe("finished");
    expect(ran).toEqual(["first", "second"]);
  });

  it("reports a run that cannot progress (a dependency cycle) instead of hanging", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, outputs } = api;
    const wf = flow(() => (
      <Workflow name="cycle">
        <Parallel>
          <Task id="a" output={outputs.step} dependsOn={["b"]}>{{ value: 1 }}</Task>
          <Task id="b" output={outputs.step} dependsOn={["a"]}>{{ value: 2 }}</Task>
        </Parallel>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r.status).toBe("failed");
    expect(r.error?.message).toMatch(/cannot progress.*a, b/);
  });
});

describe("createFlow", () => {
  it("refuses the pglite and postgres backends with BACKEND_UNSUPPORTED", () => {
    expect(() => createFlow(schemas, { backend: "pglite" })).toThrow(expect.objectContaining({ code: "BACKEND_UNSUPPORTED" }));
    expect(() => createFlow(schemas, { backend: "postgres" })).toThrow(/openFlowBackend/);
  });

  it("rejects schema keys that clash with Flow's tables or columns", () => {
    expect(() => createFlow({ _flow_x: z.object({ a: z.string() }) }, { dbPath: ":memory:" })).toThrow(expect.objectContaining({ code: "SCHEMA_INVALID" }));
    expect(() => createFlow({ t: z.object({ nodeId: z.string() }) }, { dbPath: ":memory:" })).toThrow(/clashes/);
    expect(() => createFlow({ aB: z.object({ a: z.string() }), a_b: z.object({ a: z.string() }) }, { dbPath: ":memory:" })).toThrow(/both map/);
  });
});
