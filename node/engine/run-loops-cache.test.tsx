import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createExternalFlow, FlowDb, type FlowEvent, type HostNodeJson, runWorkflow, systemClock, type AgentLike } from "durable-flow";
import { tempDir, testBackends } from "../testing/backends.js";

const schemas = {
  draft: z.object({ text: z.string(), score: z.number() }),
  step: z.object({ value: z.number() }),
  output: z.object({ total: z.number() }),
};

describe.each(testBackends)("loops on $name", (backend) => {
  it("repeats its body until `until` holds, giving tasks the loop's iteration", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, outputs } = api;
    const seen: Array<[number, number | undefined]> = [];
    const wf = flow((ctx) => {
      const last = ctx.latest(outputs.draft, "write");
      seen.push([ctx.iteration, ctx.iterations.refine]);
      return (
        <Workflow name="loop">
          <Loop id="refine" until={(last?.score ?? 0) >= 3} maxIterations={10}>
            <Task id="write" output={outputs.draft}>{() => ({ text: `v${ctx.iteration}`, score: ctx.iteration + 1 })}</Task>
          </Loop>
          <Task id="done" output={outputs.output}>{() => ({ total: ctx.iterationCount(outputs.draft, "write") })}</Task>
        </Workflow>
      );
    });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(wf, { input: {}, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { total: 3 } });
    const rows = await new FlowDb(api.db).listOutputs(r.runId, outputs.draft);
    expect(rows.map((row) => [row.iteration, row.text])).toEqual([
      [0, "v0"],
      [1, "v1"],
      [2, "v2"],
    ]);
    expect(events.filter((e) => e.type === "LoopIteration").map((e) => e.type === "LoopIteration" && e.iteration)).toEqual([1, 2]);
    expect(seen).toContainEqual([2, 2]);
    expect((await new FlowDb(api.db).requireRun(r.runId)).iterations).toEqual({ refine: 2 });
  });

  it("stops at maxIterations: return-last by default, a failure with onMaxReached=fail", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, outputs } = api;
    const make = (onMaxReached?: "fail") =>
      flow((ctx) => (
        <Workflow name="max">
          <Loop until={false} maxIterations={3} {...(onMaxReached ? { onMaxReached } : {})}>
            <Task id="w" output={outputs.step}>{() => ({ value: ctx.iteration })}</Task>
          </Loop>
          <Task id="after" output={outputs.output}>{() => ({ total: ctx.latest(outputs.step, "w")!.value })}</Task>
        </Workflow>
      ));
    expect(await runWorkflow(make(), { input: {} })).toMatchObject({ status: "finished", output: { total: 2 } });
    const failed = await runWorkflow(make("fail"), { input: {} });
    expect(failed).toMatchObject({ status: "failed", error: { code: "LOOP_MAX_ITERATIONS" } });
    expect(await new FlowDb(api.db).listOutputs(failed.runId, outputs.step)).toHaveLength(3);
  });

  it("starts from initialIteration", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, outputs } = api;
    const seeded = flow((ctx) => (
      <Workflow name="seeded">
        <Loop id="l" until={ctx.iterationCount(outputs.step, "x") >= 1} maxIterations={10}>
          <Task id="x" output={outputs.step}>{() => ({ value: ctx.iteration })}</Task>
        </Loop>
      </Workflow>
    ));
    const r = await runWorkflow(seeded, { input: {}, initialIteration: 4 });
    expect((await new FlowDb(api.db).listOutputs(r.runId, outputs.step)).map((row) => [row.iteration, row.value])).toEqual([[4, 4]]);
  });
});

describe.each(testBackends)("cache on $name", (backend) => {
  it("reuses a workflow-scoped result across runs until its version changes", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    let calls = 0;
    const make = (version: string) =>
      flow(() => (
        <Workflow name="cached">
          <Task id="expensive" output={outputs.step} cache={{ scope: "workflow", version }}>
            {() => (calls++, { value: 42 })}
          </Task>
        </Workflow>
      ));
    const events: FlowEvent[] = [];
    await runWorkflow(make("1"), { input: {} });
    const second = await runWorkflow(make("1"), { input: {}, onProgress: (e) => events.push(e) });
    expect(calls).toBe(1);
    expect(events.map((e) => e.type)).toContain("TaskCacheHit");
    expect((await new FlowDb(api.db).listOutputs(second.runId, outputs.step))[0]?.value).toBe(42);
    await runWorkflow(make("2"), { input: {} });
    expect(calls).toBe(2);
  });

  it("keys a run-scoped cache by `by(ctx)`, never shares it between runs, and honours ttlMs", async () => {
    let now = 1_000_000;
    const clock = { ...systemClock, now: () => now };
    const { api } = await backend.open(schemas, { env: { clock } });
    const { flow, Workflow, Task, outputs } = api;
    let calls = 0;
    const global = flow(() => (
      <Workflow name="ttl">
        <Task id="t" output={outputs.step} cache={{ scope: "global", ttlMs: 1000 }}>
          {() => (calls++, { value: 1 })}
        </Task>
      </Workflow>
    ));
    await runWorkflow(global, { input: {} });
    now += 500;
    await runWorkflow(global, { input: {} });
    expect(calls).toBe(1);
    now += 1000;
    await runWorkflow(global, { input: {} });
    expect(calls).toBe(2);

    let byCalls = 0;
    const byInput = flow((ctx) => (
      <Workflow name="by">
        <Task id="t" output={outputs.step} cache={{ scope: "run", by: (c: { input: { n?: number } }) => c.input.n }}>
          {() => (byCalls++, { value: ctx.input.n as number })}
        </Task>
      </Workflow>
    ));
    await runWorkflow(byInput, { input: { n: 1 } });
    await runWorkflow(byInput, { input: { n: 1 } });
    expect(byCalls).toBe(2);
  });

  it("caches every task when the Workflow says cache, unless a task opts out", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const calls = { a: 0, b: 0 };
    const wf = flow(() => (
      <Workflow name="wfcache" cache>
        <Task id="a" output={outputs.step} cache={{ scope: "workflow" }}>{() => (calls.a++, { value: 1 })}</Task>
        <Task id="b" output={outputs.step} cache={false}>{() => (calls.b++, { value: 2 })}</Task>
      </Workflow>
    ));
    await runWorkflow(wf, { input: {} });
    await runWorkflow(wf, { input: {} });
    expect(calls).toEqual({ a: 1, b: 2 });
  });
});

describe("createExternalFlow", () => {
  it("runs a workflow built as host JSON by a pure function, with agents by id", async () => {
    const writer: AgentLike = { id: "w", generate: async (args) => ({ text: JSON.stringify({ text: String(args?.prompt), score: 1 }) }) };
    const wf = createExternalFlow({
      schemas,
      agents: { writer },
      dbPath: `${tempDir()}/ext.db`,
      buildFn: (ctx): HostNodeJson => ({
        kind: "element",
        tag: "flow:workflow",
        props: { name: "external" },
        children: [
          { kind: "element", tag: "flow:task", props: { id: "write", output: "draft", agent: "writer" }, children: [{ kind: "text", text: "draft it" }] },
          {
            kind: "element",
            tag: "flow:task",
            props: { id: "count", output: "output" },
            rawProps: { payload: { total: (ctx.outputs.draft ?? []).length + 10 } },
            children: [],
          },
        ],
      }),
    });
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "finished", output: { total: 11 } });
    expect(Object.keys(wf.tables).sort()).toEqual(["draft", "output", "step"]);
    wf.cleanup();
  });
});
