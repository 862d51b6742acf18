import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, isFlowError, runWorkflow, type AgentLike } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  input: z.object({ name: z.string(), count: z.number().int().optional() }),
  step: z.object({ value: z.number() }),
  note: z.object({ text: z.string(), tags: z.array(z.string()).optional(), ok: z.boolean().nullable() }),
  output: z.object({ total: z.number() }),
};

describe.each(testBackends)("engine basics on $name", (backend) => {
  it("runs a sequence in order and stores each output row", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const order: string[] = [];
    const wf = flow((ctx) => (
      <Workflow name="seq">
        <Task id="a" output={outputs.step}>{() => (order.push("a"), { value: 1 })}</Task>
        <Task id="b" output={outputs.step}>{async () => (await tick(5), order.push("b"), { value: 2 })}</Task>
        <Task id="c" output={outputs.output}>{() => (order.push("c"), { total: ctx.outputs.step.reduce((s, r) => s + r.value, 0) })}</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: { name: "x" } });
    expect(result.status).toBe("finished");
    expect(order).toEqual(["a", "b", "c"]);
    expect(result.output).toEqual({ total: 3 });
    const db = new FlowDb(api.db);
    const rows = await db.listOutputs(result.runId, outputs.step);
    expect(rows.map((r) => [r.nodeId, r.value])).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    const run = await db.requireRun(result.runId);
    expect(run.status).toBe("finished");
    expect(run.output).toEqual({ total: 3 });
    expect(run.workflowName).toBe("seq");
    expect(run.ownerId).toBeNull();
  });

  it("records every change as an event with a contiguous per-run seq", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const seen: FlowEvent[] = [];
    const wf = flow(() => (
      <Workflow name="events">
        <Task id="a" output={outputs.step}>{{ value: 1 }}</Task>
        <Task id="b" output={outputs.step} skipIf>{{ value: 2 }}</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: { name: "x" }, onProgress: (e) => seen.push(e) });
    const stored = await new FlowDb(api.db).listEvents(result.runId);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(stored.map((e) => e.type)).toEqual(["RunStarted", "FrameCommitted", "TaskStarted", "TaskFinished", "TaskSkipped", "RunFinished"]);
    expect(seen.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
    const nodes = await new FlowDb(api.db).listNodes(result.runId);
    expect(nodes.find((n) => n.nodeId === "b")?.state).toBe("skipped");
  });

  it("runs Parallel children together within maxConcurrency and the run limit", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, outputs } = api;
    let running = 0;
    let peakGroup = 0;
    let peakAll = 0;
    const work = (group: boolean) => async () => {
      running++;
      if (group) peakGroup = Math.max(peakGroup, running);
      peakAll = Math.max(peakAll, running);
      await tick(15);
      running--;
      return { value: 1 };
    };
    const ids = Array.from({ length: 8 }, (_, i) => `t${i}`);
    const limited = flow(() => (
      <Workflow name="par">
        <Parallel maxConcurrency={2}>
          {ids.map((id) => (
            <Task key={id} id={id} output={outputs.step}>
              {work(true)}
            </Task>
          ))}
        </Parallel>
      </Workflow>
    ));
    expect((await runWorkflow(limited, { input: { name: "x" } })).status).toBe("finished");
    expect(peakGroup).toBe(2);
    peakAll = 0;
    const unlimited = flow(() => (
      <Workflow name="par2">
        <Parallel>
          {ids.map((id) => (
            <Task key={id} id={id} output={outputs.step}>
              {work(false)}
            </Task>
          ))}
        </Parallel>
      </Workflow>
    ));
    expect((await runWorkflow(unlimited, { input: { name: "x" }, maxConcurrency: 3 })).status).toBe("finished");
    expect(peakAll).toBe(3);
  });

  it("takes the then or else side of a Branch, and re-renders when an output it read changes", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Branch, outputs } = api;
    const wf = flow((ctx) => {
      const first = ctx.outputMaybe(outputs.step, { nodeId: "first" });
      return (
        <Workflow name="branch">
          <Task id="first" output={outputs.step}>{() => ({ value: ctx.input.count ?? 0 })}</Task>
          <Branch
            if={(first?.value ?? 0) > 5}
            then={<Task id="big" output={outputs.note}>{{ text: "big", ok: true }}</Task>}
            else={<Task id="small" output={outputs.note}>{{ text: "small", ok: null }}</Task>}
          />
        </Workflow>
      );
    });
    const big = await runWorkflow(wf, { input: { name: "x", count: 9 } });
    const small = await runWorkflow(wf, { input: { name: "x", count: 1 } });
    const db = new FlowDb(api.db);
    expect((await db.listOutputs(big.runId, outputs.note)).map((r) => r.text)).toEqual(["big"]);
    const smallRows = await db.listOutputs(small.runId, "note");
    expect(smallRows.map((r) => [r.text, r.ok])).toEqual([["small", null]]);
    // The first render (before "first" ran) showed the else side; no task of it ran for "big".
    expect((await db.listNodes(big.runId)).find((n) => n.nodeId === "small")?.state).toBe("cancelled");
  });

  it("passes deps, needs and dependsOn to tasks and waits for them", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, outputs } = api;
    const order: string[] = [];
    const wf = flow(() => (
      <Workflow name="deps">
        <Parallel>
          <Task id="sum" output={outputs.output} deps={{ left: outputs.step, right: outputs.step }} needs={{ right: "r" }}>
            {(deps) => (order.push("sum"), { total: deps.left.value + deps.right.value })}
          </Task>
          <Task id="left" output={outputs.step} dependsOn={["r"]}>{async () => (await tick(5), order.push("left"), { value: 40 })}</Task>
          <Task id="r" output={outputs.step}>{async () => (await tick(10), order.push("r"), { value: 2 })}</Task>
        </Parallel>
      </Workflow>
    ));
    // deps key "left" resolves to the task with the same id; "right" through needs to "r".
    const result = await runWorkflow(wf, { input: { name: "x" } });
    expect(result).toMatchObject({ status: "finished", output: { total: 42 } });
    expect(order).toEqual(["r", "left", "sum"]);
  });

  it("validates the input against the input table and stores it", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="input">
        <Task id="a" output={outputs.note}>{() => ({ text: `${ctx.input.name}:${String(ctx.input.count)}`, ok: true })}</Task>
      </Workflow>
    ));
    await expect(runWorkflow(wf, { input: { count: 1 } as never })).rejects.toMatchObject({ code: "INPUT_INVALID" });
    await expect(runWorkflow(wf, { input: { name: 3 } as never })).rejects.toMatchObject({ code: "INPUT_INVALID" });
    await expect(runWorkflow(wf, {} as never)).rejects.toMatchObject({ code: "INPUT_INVALID" });
    const ok = await runWorkflow(wf, { input: { name: "n", extra: true } as never });
    // Not parsed: no default written back, unknown keys kept in ctx.input.
    expect((await new FlowDb(api.db).listOutputs(ok.runId, "note"))[0]?.text).toBe("n:undefined");
    const stored = await new FlowDb(api.db).store.query(`SELECT * FROM input WHERE run_id = ?`, [ok.runId]);
    expect(stored).toEqual([expect.objectContaining({ run_id: ok.runId, name: "n", count: null })]);
  });

  it("checks the input's refinements (email, enum, positive) and stores the input as given", async () => {
    const { api } = await backend.open({
      input: z.object({ email: z.string().email(), plan: z.enum(["free", "team"]), seats: z.number().int().positive(), tag: z.string().default("none") }),
      note: z.object({ text: z.string(), ok: z.boolean().nullable() }),
    });
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="refined">
        <Task id="a" output={outputs.note}>{() => ({ text: `${ctx.input.email}/${ctx.input.plan}/${ctx.input.seats}/${String(ctx.input.tag)}`, ok: true })}</Task>
      </Workflow>
    ));
    const refused = await runWorkflow(wf, { input: { email: "not-an-email", plan: "gold", seats: -2 } as never }).then(() => undefined, (e: unknown) => e);
    expect(isFlowError(refused, "INPUT_INVALID")).toBe(true);
    const problems = (refused as { details: { problems: string[] } }).details.problems;
    expect(problems).toHaveLength(3);
    expect(problems.map((p) => p.split(":")[0]).sort()).toEqual(["email", "plan", "seats"]);
    expect(await new FlowDb(api.db).listRuns()).toEqual([]);
    const ok = await runWorkflow(wf, { input: { email: "a@b.co", plan: "team", seats: 3 } });
    // Stored and seen as given: the default of `tag` is not written back.
    expect((await new FlowDb(api.db).listOutputs(ok.runId, "note"))[0]?.text).toBe("a@b.co/team/3/undefined");
    expect((await new FlowDb(api.db).requireRun(ok.runId)).input).toEqual({ email: "a@b.co", plan: "team", seats: 3 });
  });

  it("fails a task whose row does not match its schema, without retrying a static row", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow(() => (
      <Workflow name="bad">
        <Task id="bad" output={outputs.step}>{{ value: "nope" } as unknown as { value: number }}</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: { name: "x" } });
    expect(result.status).toBe("failed");
    expect(result.error?.code).toBe("TASK_OUTPUT_INVALID");
    expect(result.error?.message).toContain("value");
    expect(await new FlowDb(api.db).listAttempts(result.runId, "bad")).toHaveLength(1);
  });

  it("fails the run with RENDER_FAILED on a duplicate id, a missing output or a prompt without agent", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const dup = flow(() => (
      <Workflow name="dup">
        <Task id="a" output={outputs.step}>{{ value: 1 }}</Task>
        <Task id="a" output={outputs.step}>{{ value: 2 }}</Task>
      </Workflow>
    ));
    const r1 = await runWorkflow(dup, { input: { name: "x" } });
    expect(r1).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED" } });
    expect(r1.error?.message).toContain('"a"');
    const noAgent = flow(() => (
      <Workflow name="prompt">
        <Task id="p" output={outputs.note}>Write a poem</Task>
      </Workflow>
    ));
    expect((await runWorkflow(noAgent, { input: { name: "x" } })).error?.message).toContain("no agent");
    const unknown = flow(() => (
      <Workflow name="unknown">
        <Task id="u" output={"nope" as unknown as "step"}>{{ value: 1 }}</Task>
      </Workflow>
    ));
    expect((await runWorkflow(unknown, { input: { name: "x" } })).error?.code).toBe("RENDER_FAILED");
  });

  it("hands a prompt to the task's agent and stores the JSON it answers", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const prompts: string[] = [];
    const agent: AgentLike = {
      id: "echo",
      async generate(args) {
        prompts.push(String(args?.prompt));
        return { text: 'Sure! ```json\n{"text": "hi from agent", "ok": true}\n```' };
      },
    };
    const wf = flow((ctx) => (
      <Workflow name="agent">
        <Task id="ask" output={outputs.note} agent={agent}>
          {`Greet ${ctx.input.name}`}
        </Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: { name: "Ada" } });
    expect(result.status).toBe("finished");
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("Greet Ada");
    expect((await new FlowDb(api.db).listOutputs(result.runId, outputs.note))[0]).toMatchObject({ text: "hi from agent", ok: true });
    const attempts = await new FlowDb(api.db).listAttempts(result.runId, "ask");
    expect(attempts[0]?.meta).toMatchObject({ agentId: "echo" });
  });

  it("lets components read the context with useCtx and exposes Drizzle tables", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs, useCtx } = api;
    function Greeting() {
      const ctx = useCtx();
      return (
        <Task id="g" output={outputs.note}>
          {{ text: `hello ${ctx.input.name}`, ok: true }}
        </Task>
      );
    }
    const wf = flow(() => (
      <Workflow name="ctx">
        <Greeting />
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: { name: "Lin" } });
    expect(r.status).toBe("finished");
    expect(() => useCtx()).toThrow(/outside a workflow render/);
    const rows = await new FlowDb(api.db).listOutputs(r.runId, outputs.note);
    expect(rows[0]?.text).toBe("hello Lin");
  });

  it("gives ctx accessors: outputs in both forms, output, outputMaybe, latestArray, resolveTableName, resolveRow", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const seen: Record<string, unknown> = {};
    const wf = flow((ctx) => {
      if (ctx.outputMaybe(outputs.step, { nodeId: "a" })) {
        seen.callable = ctx.outputs("step").length;
        seen.property = ctx.outputs.step.length;
        seen.output = ctx.output(outputs.step, { nodeId: "a" }).value;
        seen.resolveRow = ctx.resolveRow("step", { nodeId: "a" })?.value;
        seen.tableName = ctx.resolveTableName(outputs.step);
        seen.latestArray = ctx.latestArray('[{"value":1},{"value":"x"},{"value":3}]', outputs.step);
        try {
          ctx.output(outputs.step, { nodeId: "missing" });
        } catch (e) {
          seen.missing = isFlowError(e, "OUTPUT_NOT_FOUND");
        }
      }
      return (
        <Workflow name="acc">
          <Task id="a" output={outputs.step}>{{ value: 7 }}</Task>
          <Task id="b" output={outputs.step}>{{ value: 8 }}</Task>
        </Workflow>
      );
    });
    await runWorkflow(wf, { input: { name: "x" } });
    expect(seen).toEqual({ callable: 2, property: 2, output: 7, resolveRow: 7, tableName: "step", latestArray: [{ value: 1 }, { value: 3 }], missing: true });
  });

  it("exposes auth to the build and stores annotations; initialIterations seeds loops from a Map", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, outputs } = api;
    const seen: unknown[] = [];
    const wf = flow((ctx) => {
      seen.push(ctx.auth?.triggeredBy);
      return (
        <Workflow name="auth">
          <Loop id="l" until={ctx.iterationCount(outputs.step, "t") >= 1} maxIterations={10}>
            <Task id="t" output={outputs.step}>{() => ({ value: ctx.iterations.l ?? -1 })}</Task>
          </Loop>
        </Workflow>
      );
    });
    const auth = { triggeredBy: "cron:gateway", scopes: ["*"], role: "system", createdAt: "2026-11-22T00:00:00.000Z" };
    const r = await runWorkflow(wf, { input: { name: "x" }, auth, annotations: { team: "core", priority: 2 }, initialIterations: new Map([["l", 3]]) });
    expect(r.status).toBe("finished");
    expect(seen[0]).toBe("cron:gateway");
    const db = new FlowDb(api.db);
    expect((await db.requireRun(r.runId)).annotations).toEqual({ team: "core", priority: 2 });
    expect((await db.listOutputs(r.runId, outputs.step)).map((row) => [row.iteration, row.value])).toEqual([[3, 3]]);
  });

  it("renders again after outputs change only when requireRerenderOnOutputChange allows it", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Branch, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="rerender">
        <Task id="first" output={outputs.step}>{{ value: 9 }}</Task>
        <Branch
          if={(ctx.outputMaybe(outputs.step, { nodeId: "first" })?.value ?? 0) > 5}
          then={<Task id="big" output={outputs.note}>{{ text: "big", ok: true }}</Task>}
          else={<Task id="small" output={outputs.note}>{{ text: "small", ok: true }}</Task>}
        />
      </Workflow>
    ));
    const db = new FlowDb(api.db);
    const eager = await runWorkflow(wf, { input: { name: "x" } });
    expect((await db.listOutputs(eager.runId, "note")).map((r) => r.text)).toEqual(["big"]);
    const lazy = await runWorkflow(wf, { input: { name: "x" }, requireRerenderOnOutputChange: false });
    expect((await db.listOutputs(lazy.runId, "note")).map((r) => r.text)).toEqual(["small"]);
  });

  it("refuses a second run with the same id, and resuming an unknown run", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow(() => (
      <Workflow name="ids">
        <Task id="a" output={outputs.step}>{{ value: 1 }}</Task>
      </Workflow>
    ));
    await runWorkflow(wf, { runId: "fixed", input: { name: "x" } });
    await expect(runWorkflow(wf, { runId: "fixed", input: { name: "x" } })).rejects.toMatchObject({ code: "RUN_EXISTS" });
    await expect(runWorkflow(wf, { runId: "nope", resume: true })).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });

  it("stores frames only when the tree changes, as deltas that rebuild the full snapshot", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="frames">
        {ctx.outputs.step.map((r) => (
          <Task key={r.nodeId} id={`echo-${r.nodeId}`} output={outputs.note}>
            {{ text: String(r.value), ok: true }}
          </Task>
        ))}
        <Task id="a" output={outputs.step}>{{ value: 1 }}</Task>
        <Task id="b" output={outputs.step}>{{ value: 2 }}</Task>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: { name: "x" } });
    expect(r.status).toBe("finished");
    const db = new FlowDb(api.db);
    const frames = (await db.listEvents(r.runId)).filter((e) => e.type === "FrameCommitted");
    // Three distinct trees: before a, after a, after b. A render that changes nothing writes none.
    expect(frames).toHaveLength(3);
    const last = await db.getFrame(r.runId);
    expect(last?.frameNo).toBe(3);
    expect(last?.tasks.map((t) => t.nodeId)).toEqual(["echo-a", "echo-b", "a", "b"]);
    expect(last?.xml).toMatchObject({ kind: "element", tag: "flow:workflow", props: { name: "frames" } });
    const first = await db.getFrame(r.runId, 1);
    expect(first?.tasks.map((t) => t.nodeId)).toEqual(["a", "b"]);
  });
});

function tick(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
