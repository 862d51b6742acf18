/**
 * Aspects (docs/components.md, "Aspects"): a token budget and a latency SLO over the tasks
 * inside the block, from the usage agents report, kept across a resume.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type AgentLike, type FlowApi, FlowDb, type FlowNode, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = { note: z.object({ text: z.string() }) };

/** An agent that spends `tokens` per answer. */
const spender = (tokens: number, calls: string[]): AgentLike => ({
  id: "spender",
  generate: async (args) => {
    calls.push(String(args?.taskContext?.nodeId));
    return { text: JSON.stringify({ text: "ok" }), usage: { inputTokens: tokens / 2, outputTokens: tokens / 2, totalTokens: tokens } };
  },
});

/**
 * A workflow whose Aspects block "budget" (`skip-remaining` past `max` tokens, `latencySlo` where
 * given) holds `lead`'s tasks, then b and c, which spend 100 tokens each.
 */
function budgeted(a: FlowApi<typeof schemas>, name: string, max: number, calls: string[], lead: () => FlowNode, latencySlo?: { maxMs: number; perTask: number; onExceeded: "warn" }) {
  return a.flow(() => (
    <a.Workflow name={name}>
      <a.Aspects id="budget" tokenBudget={{ max, onExceeded: "skip-remaining" }} {...(latencySlo ? { latencySlo } : {})}>
        {lead()}
        <a.Task id="b" output={a.outputs.note} agent={spender(100, calls)}>Write.</a.Task>
        <a.Task id="c" output={a.outputs.note} agent={spender(100, calls)}>Write.</a.Task>
      </a.Aspects>
    </a.Workflow>
  ));
}

describe.each(testBackends)("Aspects on $name", (backend) => {
  it("fails the run when the token budget is exceeded, or skips the rest of the block", async () => {
    const { api } = await backend.open(schemas);
    for (const onExceeded of ["fail", "skip-remaining"] as const) {
      const calls: string[] = [];
      const agent = spender(100, calls);
      const wf = api.flow(() => (
        <api.Workflow name={`budget-${onExceeded}`}>
          <api.Aspects id="research" tokenBudget={{ max: 150, onExceeded }} tracking={{ tokens: true }}>
            {["a", "b", "c"].map((id) => (
              <api.Task key={id} id={id} output={api.outputs.note} agent={agent}>Write a note.</api.Task>
            ))}
          </api.Aspects>
          <api.Task id="after" output={api.outputs.note}>{{ text: "after" }}</api.Task>
        </api.Workflow>
      ));
      const r = await runWorkflow(wf, { input: {} });
      expect(calls).toEqual(["a", "b"]);
      const db = new FlowDb(api.db);
      if (onExceeded === "fail") {
        expect(r).toMatchObject({ status: "failed", error: { code: "ASPECT_LIMIT_EXCEEDED", details: { aspectsId: "research", kind: "tokens", used: 200, limit: 150 } } });
      } else {
        expect(r.status).toBe("finished");
        expect((await db.listNodes(r.runId)).find((n) => n.nodeId === "c")?.state).toBe("cancelled");
        expect((await db.listOutputs(r.runId, "note")).map((n) => n.nodeId)).toEqual(["a", "after", "b"]);
        const frame = await db.getFrame(r.runId);
        expect(JSON.stringify(frame!.xml)).toContain('"tokens":"200"');
      }
    }
  });

  it("keeps the usage across a resume, and warns once when a task misses the latency SLO", async () => {
    const warnings: string[] = [];
    const { api, location } = await backend.open(schemas, { env: { warn: (m) => void warnings.push(m) } });
    const calls: string[] = [];
    const pause = new AbortController();
    const make = (a: typeof api) =>
      budgeted(
        a,
        "resume",
        150,
        calls,
        () => (
          <>
            <a.Task id="slow" output={a.outputs.note}>{async () => (await new Promise((r) => setTimeout(r, 15)), { text: "slow" })}</a.Task>
            <a.Task id="a" output={a.outputs.note} agent={{ ...spender(100, calls), generate: async (args) => (pause.abort(), spender(100, calls).generate(args)) }}>Write.</a.Task>
          </>
        ),
        { maxMs: 60_000, perTask: 1, onExceeded: "warn" },
      );
    const first = await runWorkflow(make(api), { input: {}, pauseSignal: pause.signal });
    // Paused after a (100 tokens): within budget so far.
    expect(first.status).toBe("paused");
    expect(calls).toEqual(["a"]);
    expect(warnings.filter((w) => w.includes('Aspects "budget" exceeded its latency SLO'))).toHaveLength(1);
    const { api: again } = await backend.open(schemas, { sameStoreAs: location });
    const second = await runWorkflow(make(again), { runId: first.runId, resume: true });
    // The resumed process counts a's tokens from the store: after b the budget is spent.
    expect(second.status).toBe("finished");
    expect(calls).toEqual(["a", "b"]);
    expect((await new FlowDb(again.db).listNodes(first.runId)).find((n) => n.nodeId === "c")?.state).toBe("cancelled");
  });

  it("counts what finished attempts spent, not a failed one's, live and after a resume", async () => {
    const { api, location } = await backend.open(schemas);
    const calls: string[] = [];
    const pause = new AbortController();
    // a's first attempt answers no row four times (its corrections included): 400 tokens, which
    // the run's cost counts (docs/agents.md "Cost") and the budget does not. Its retry: 100.
    let asked = 0;
    const flaky: AgentLike = {
      id: "flaky",
      generate: async () => {
        calls.push("a");
        if (++asked === 5) pause.abort();
        return { text: asked <= 4 ? "no row" : JSON.stringify({ text: "ok" }), usage: { inputTokens: 50, outputTokens: 50, totalTokens: 100 } };
      },
    };
    const make = (a: typeof api) => budgeted(a, "failed-spend", 250, calls, () => <a.Task id="a" output={a.outputs.note} agent={flaky} retries={1}>Write.</a.Task>);
    const first = await runWorkflow(make(api), { input: {}, pauseSignal: pause.signal });
    expect(first.status).toBe("paused");
    expect(calls).toEqual(["a", "a", "a", "a", "a"]);
    const attempts = await new FlowDb(api.db).listAttempts(first.runId, "a");
    expect(attempts.map((x) => [x.state, (x.meta as { usage?: { totalTokens?: number } } | null)?.usage?.totalTokens])).toEqual([
      ["failed", 400],
      ["finished", 100],
    ]);
    const { api: again } = await backend.open(schemas, { sameStoreAs: location });
    const second = await runWorkflow(make(again), { runId: first.runId, resume: true });
    // 100 counted from the store, not 500: b and c fit in 250.
    expect(second.status).toBe("finished");
    expect(calls.slice(5)).toEqual(["b", "c"]);
  });
});
