import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type AgentLike, aggregateScores, createScorer, defineTool, FlowDb, type FlowEvent, FlowError, runWorkflow, type ToolContextFactory } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  answer: z.object({ text: z.string() }),
};

describe.each(testBackends)("what agent tasks get from their run, on $name", (backend) => {
  it("parks in waiting-quota without burning a retry, then continues by itself when the quota resets", async () => {
    const { api } = await backend.open(schemas);
    let calls = 0;
    const agent: AgentLike = {
      id: "limited",
      async generate() {
        calls++;
        if (calls === 1) throw new FlowError("AGENT_QUOTA_EXCEEDED", "usage limit reached", { retryAtMs: Date.now() + 150 });
        return { text: JSON.stringify({ text: "after the reset" }) };
      },
    };
    const wf = api.flow(() => (
      <api.Workflow name="quota">
        <api.Task id="ask" output={api.outputs.answer} agent={agent} retries={0}>
          Say something.
        </api.Task>
      </api.Workflow>
    ));
    const db = new FlowDb(api.db);
    const events: FlowEvent[] = [];
    const running = runWorkflow(wf, { input: {}, onProgress: (e) => events.push(e) });
    let sawWaiting = false;
    for (let i = 0; i < 100 && !sawWaiting; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const runs = await db.listRuns({ status: "waiting-quota" });
      sawWaiting = runs.length > 0;
    }
    const r = await running;
    expect(sawWaiting).toBe(true);
    expect(r.status).toBe("finished");
    expect(calls).toBe(2);
    expect(events).toContainEqual(expect.objectContaining({ type: "RunWaiting", status: "waiting-quota", waitingOn: ["ask"] }));
    const attempts = await db.listAttempts(r.runId, "ask");
    expect(attempts.map((a) => [a.state, a.error?.code ?? null])).toEqual([
      ["failed", "AGENT_QUOTA_EXCEEDED"],
      ["finished", null],
    ]);
    expect((await db.requireRun(r.runId)).status).toBe("finished");
  });

  it("records side-effecting tool calls before they run and warns a retry that they already happened", async () => {
    const { api } = await backend.open(schemas);
    const sent: string[] = [];
    const notify = defineTool({
      name: "notify",
      schema: z.object({ to: z.string() }),
      sideEffect: true,
      execute: async (args: { to: string }, ctx) => {
        sent.push(`${args.to}#${ctx.attempt}`);
        return "sent";
      },
    });
    const warnings: Array<string | undefined> = [];
    const prompts: string[] = [];
    const agent: AgentLike = {
      id: "notifier",
      async generate(args) {
        prompts.push(String(args?.prompt));
        const tools = args?.toolCalls as ToolContextFactory;
        const { warning } = await tools.callTool(notify, { to: "ops" });
        warnings.push(warning);
        if (args?.isRetry !== true) throw new Error("model crashed after the tool call");
        return { text: JSON.stringify({ text: "done" }) };
      },
    };
    const wf = api.flow(() => (
      <api.Workflow name="tools">
        <api.Task id="alert" output={api.outputs.answer} agent={agent} retries={1}>
          Tell ops.
        </api.Task>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r.status).toBe("finished");
    expect(sent).toEqual(["ops#1", "ops#2"]);
    expect(warnings[0]).toBeUndefined();
    expect(warnings[1]).toMatch(/already called by an earlier attempt/);
    expect(prompts[1]).toMatch(/notify/);
    const rows = await new FlowDb(api.db).store.query<{ attempt: number; tool_name: string; idempotency_key: string }>(
      `SELECT attempt, tool_name, idempotency_key FROM _flow_tool_calls WHERE run_id = ? ORDER BY attempt`,
      [r.runId],
    );
    expect(rows.map((row) => [Number(row.attempt), row.tool_name])).toEqual([
      [1, "notify"],
      [2, "notify"],
    ]);
    // The same call in every attempt has the same idempotency key.
    expect(rows[0]!.idempotency_key).toBe(rows[1]!.idempotency_key);
  });

  it("grades each finished attempt with the task's scorers, without failing the task when a scorer throws", async () => {
    const { api } = await backend.open(schemas);
    const length = createScorer({ id: "length", name: "Length", description: "longer is better", score: async ({ output }) => ({ score: Math.min(1, String((output as { text: string }).text).length / 10) }) });
    const broken = createScorer({ id: "broken", name: "Broken", description: "throws", score: async () => {
      throw new Error("scorer bug");
    } });
    const wf = api.flow(() => (
      <api.Workflow name="scored">
        <api.Task id="short" output={api.outputs.answer} scorers={{ length: { scorer: length }, broken: { scorer: broken } }}>
          {{ text: "hey" }}
        </api.Task>
        <api.Task id="long" output={api.outputs.answer} scorers={{ length: { scorer: length } }}>
          {{ text: "a much longer answer" }}
        </api.Task>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r.status).toBe("finished");
    const [agg] = await aggregateScores(api.db, { runId: r.runId, scorerId: "length" });
    expect(agg).toMatchObject({ scorerId: "length", count: 2, min: 0.3, max: 1 });
    expect(agg!.mean).toBeCloseTo(0.65);
  });

  it("gives the agent remember and recall tools when the task's memory has tools", async () => {
    const { api } = await backend.open(schemas);
    const seen: string[] = [];
    const agent: AgentLike = {
      id: "notes",
      async generate(args) {
        const tools = args?.tools as Record<string, Parameters<ToolContextFactory["callTool"]>[0]>;
        expect(Object.keys(tools).sort()).toEqual(["recall", "remember"]);
        const calls = args?.toolCalls as ToolContextFactory;
        if (String(args?.prompt).includes("Remember")) await calls.callTool(tools.remember!, { content: "The deploy freeze starts on Friday" });
        const { output } = await calls.callTool<string>(tools.recall!, { query: "deploy freeze" });
        seen.push(String(output));
        return { text: JSON.stringify({ text: "ok" }) };
      },
    };
    const wf = (prompt: string) =>
      api.flow(() => (
        <api.Workflow name="memory-tools">
          <api.Task id="t" output={api.outputs.answer} agent={agent} memory={{ bank: "agent:ops", tools: true, recall: false }}>
            {prompt}
          </api.Task>
        </api.Workflow>
      ));
    expect((await runWorkflow(wf("Remember the freeze."), { input: {} })).status).toBe("finished");
    expect((await runWorkflow(wf("When is the freeze?"), { input: {} })).status).toBe("finished");
    expect(seen[1]).toContain("The deploy freeze starts on Friday");
  });

  it("recalls a bank's memories into the prompt and retains the task's answer on completion", async () => {
    const { api } = await backend.open(schemas);
    const prompts: string[] = [];
    const agent: AgentLike = {
      id: "support",
      async generate(args) {
        prompts.push(String(args?.prompt));
        return { text: JSON.stringify({ text: `The refund window for orders is 30 days (run ${prompts.length})` }) };
      },
    };
    const wf = api.flow(() => (
      <api.Workflow name="memory">
        <api.Task id="answer" output={api.outputs.answer} agent={agent} memory={{ bank: "agent:support", retain: "on-complete", recall: "refund window orders" }}>
          What is the refund window for orders?
        </api.Task>
      </api.Workflow>
    ));
    expect((await runWorkflow(wf, { input: {} })).status).toBe("finished");
    expect((await runWorkflow(wf, { input: {} })).status).toBe("finished");
    expect(prompts[0]).not.toContain("30 days (run 1)");
    expect(prompts[1]).toContain("30 days (run 1)");
  });
});
