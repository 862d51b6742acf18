import { describe, expect, it } from "vitest";
import { APICallError } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { z } from "zod";
import { FlowError, isFlowError, runAgentTask, ToolLoopSdkAgent } from "durable-flow/core";
import type { AgentGenerateOptions, AgentLike, AgentTaskInput, TaskDescriptor } from "durable-flow/core";

const schema = z.object({ passed: z.number() });
const usage = { inputTokens: { total: 7, noCache: 7, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 3, text: 3, reasoning: 0 } };

function task(agent: AgentLike | AgentLike[], extra: Partial<TaskDescriptor> = {}): TaskDescriptor {
  return { nodeId: "count", ordinal: 0, iteration: 0, outputTable: "result", outputTableName: "result", outputSchema: schema, needsApproval: false, skipIf: false, retries: 3, timeoutMs: null, heartbeatTimeoutMs: null, continueOnFail: false, agent, ...extra };
}

function input(desc: TaskDescriptor, extra: Partial<AgentTaskInput> = {}): AgentTaskInput & { beats: number } {
  const box = { beats: 0 };
  return Object.assign(box, {
    runId: "run-1",
    desc,
    attempt: 1,
    prompt: "Count the tests.",
    runtime: { runId: "run-1", nodeId: desc.nodeId, iteration: 0, attempt: 1, signal: new AbortController().signal, heartbeat: () => void box.beats++ },
    preflighted: new WeakSet<AgentLike>(),
    ...extra,
  });
}

/** A plain agent that records its calls and answers with the next scripted reply. */
function recorder(id: string, replies: Array<unknown | Error>, extra: Partial<AgentLike> = {}) {
  const calls: AgentGenerateOptions[] = [];
  const agent: AgentLike = {
    id,
    async generate(o) {
      calls.push(o!);
      o?.onStdout?.("working");
      const r = replies[Math.min(calls.length - 1, replies.length - 1)];
      if (r instanceof Error) throw r;
      return r;
    },
    ...extra,
  };
  return { agent, calls };
}

/** A mock model answering each call (streamed, as the engine listens for heartbeats) with the next text. */
function textModel(texts: string[]) {
  const prompts: any[] = [];
  const model = new MockLanguageModelV3({
    doStream: async (o) => {
      prompts.push(o.prompt);
      const text = texts[prompts.length - 1]!;
      const chunks: any[] = [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage },
      ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
  return { model, prompts };
}

/** A mock model whose every call fails with `error`. */
const failingModel = (error: Error) => new MockLanguageModelV3({ doStream: async () => { throw error; } });

const apiError = (status: number, headers: Record<string, string> = {}) =>
  new APICallError({ message: `HTTP ${status}`, url: "http://127.0.0.1/v1/messages", requestBodyValues: {}, statusCode: status, responseHeaders: headers, responseBody: "{}" });

describe("runAgentTask", () => {
  it("extracts JSON from free text, re-asks once with the validation error, and sums usage", async () => {
    const { model, prompts } = textModel(['Here you go: {"passed": "twelve"}', 'Sorry. {"passed": 12}']);
    const agent = new ToolLoopSdkAgent(model, { id: "local" }, false);
    const inp = input(task(agent));
    const { raw, meta } = await runAgentTask(inp);
    expect(raw).toEqual({ passed: 12 });
    expect(prompts).toHaveLength(2);
    const first = prompts[0].at(-1).content[0].text as string;
    expect(first).toMatch(/^Respond by outputting only a raw JSON object/);
    expect(first).toContain("**REQUIRED OUTPUT**");
    const second = prompts[1];
    expect(second.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(second[2].content[0].text).toMatch(/passed: .*expected number/i);
    expect(meta).toMatchObject({ agentId: "local", agentIndex: 0, calls: 2, schemaRetries: 1, usage: { inputTokens: 14, outputTokens: 6, totalTokens: 20 } });
    expect(meta.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it("fails with TASK_OUTPUT_INVALID when the output stays invalid after the schema retries", async () => {
    const { agent, calls } = recorder("stubborn", [{ text: "no json here" }]);
    const err = await runAgentTask(input(task(agent), { maxSchemaRetries: 2 })).catch((e) => e);
    expect(isFlowError(err, "TASK_OUTPUT_INVALID")).toBe(true);
    expect(calls).toHaveLength(3);
    expect(calls[1]!.schemaRetry).toBe(1);
    expect(calls[2]!.schemaRetry).toBe(2);
  });

  it("resumes the agent's own session for a schema correction when it reports one", async () => {
    const { agent, calls } = recorder("cli", [{ text: "nope", sessionId: "s-1" }, { text: '{"passed":1}', sessionId: "s-1" }]);
    const { meta } = await runAgentTask(input(task(agent)));
    expect(calls[1]).toMatchObject({ resumeSession: "s-1", schemaRetry: 1 });
    expect(calls[1]!.prompt).toContain("did not satisfy the required output schema");
    expect(meta.sessionId).toBe("s-1");
  });

  it("passes the schema natively and skips the prompt block for agents with native structured output", async () => {
    const { agent, calls } = recorder("native", [{ text: "", output: { passed: 3 } }], { supportsNativeStructuredOutput: true });
    const { raw } = await runAgentTask(input(task(agent)));
    expect(raw).toEqual({ passed: 3 });
    expect(calls[0]!.prompt).toBe("Count the tests.");
    expect(calls[0]!.outputSchema).toBe(schema);
  });

  it("fails over to the next agent on a provider error without burning a retry", async () => {
    const failing = new ToolLoopSdkAgent(failingModel(apiError(500)), { id: "primary" }, true);
    const { agent: backup, calls } = recorder("backup", [{ text: '{"passed":5}' }]);
    const { raw, meta } = await runAgentTask(input(task([failing, backup])));
    expect(raw).toEqual({ passed: 5 });
    expect(calls).toHaveLength(1);
    expect(meta.agentId).toBe("backup");
    expect(meta.agentIndex).toBe(1);
    expect(meta.failover).toEqual([expect.objectContaining({ agentId: "primary", agentIndex: 0, kind: "other" })]);
  });

  it("throws AGENT_QUOTA_EXCEEDED with the earliest reset time when every agent hit its quota", async () => {
    const now = 1_000_000;
    const a = new ToolLoopSdkAgent(failingModel(apiError(429, { "retry-after": "120" })), { id: "a" });
    const { agent: b } = recorder("b", [new FlowError("AGENT_QUOTA_EXCEEDED", "usage limit", { retryAtMs: now + 30_000 })]);
    const err = await runAgentTask(input(task([a, b]), { now: () => now })).catch((e) => e);
    expect(isFlowError(err, "AGENT_QUOTA_EXCEEDED")).toBe(true);
    expect(err.details.retryAtMs).toBe(now + 30_000);
    expect(err.details.failures.map((f: any) => f.kind)).toEqual(["quota", "quota"]);

    // Until the reset, the agent is skipped without being called again.
    const { agent: c, calls } = recorder("c", [{ text: '{"passed":1}' }]);
    const { meta } = await runAgentTask(input(task([a, c]), { now: () => now + 1000 }));
    expect(meta.agentId).toBe("c");
    expect(calls).toHaveLength(1);
    expect(meta.failover?.[0]).toMatchObject({ agentId: "a", kind: "quota" });
  });

  it("runs preflight once per run, and a rejected preflight fails without failover", async () => {
    let preflights = 0;
    const { agent } = recorder("p", [{ text: '{"passed":1}' }], { preflight: async () => void preflights++ });
    const preflighted = new WeakSet<AgentLike>();
    await runAgentTask(input(task(agent), { preflighted }));
    await runAgentTask(input(task(agent), { preflighted, attempt: 2 }));
    expect(preflights).toBe(1);

    const { agent: bad } = recorder("bad", [{ text: '{"passed":1}' }], { preflight: async () => { throw new FlowError("AGENT_CONFIG_INVALID", "cli not installed"); } });
    const { agent: next, calls } = recorder("next", [{ text: '{"passed":1}' }]);
    const err = await runAgentTask(input(task([bad, next]))).catch((e) => e);
    expect(isFlowError(err, "AGENT_PREFLIGHT_FAILED")).toBe(true);
    expect(err.details.causeCode).toBe("AGENT_CONFIG_INVALID");
    expect(calls).toHaveLength(0);
  });

  it("starts a fork from the source task's session when the agent matches, and retries resume their own", async () => {
    const { agent, calls } = recorder("cli", [{ text: '{"passed":1}', sessionId: "new" }]);
    const sessions: Record<string, any> = { plan: { agentId: "cli", sessionId: "plan-session" }, count: { agentId: "cli", sessionId: "count-1" } };
    await runAgentTask(input(task(agent, { forkSource: "plan" }), { lookupSession: (id) => sessions[id] }));
    expect(calls[0]!.resumeSession).toBe("plan-session");
    await runAgentTask(input(task(agent, { forkSource: "plan" }), { attempt: 2, lookupSession: (id) => sessions[id] }));
    expect(calls[1]!.resumeSession).toBe("count-1");
    const { agent: other, calls: otherCalls } = recorder("other", [{ text: '{"passed":1}' }]);
    await runAgentTask(input(task(other, { forkSource: "plan" }), { lookupSession: (id) => sessions[id] }));
    expect(otherCalls[0]!.resumeSession).toBeUndefined();
  });

  it("drops a lost session and starts a new one with the same agent", async () => {
    const { agent, calls } = recorder("cli", [new FlowError("AGENT_SESSION_LOST", "No conversation found"), { text: '{"passed":2}', sessionId: "fresh" }]);
    const { raw, meta } = await runAgentTask(input(task(agent, { forkSource: "plan" }), { lookupSession: () => ({ agentId: "cli", sessionId: "gone" }) }));
    expect(raw).toEqual({ passed: 2 });
    expect(calls.map((c) => c.resumeSession)).toEqual(["gone", undefined]);
    expect(meta.sessionId).toBe("fresh");
  });

  it("hands CLI options through: allowTools, timeout, rootDir, output cap, task context, heartbeats", async () => {
    const { agent, calls } = recorder("cli", [{ text: '{"passed":1}' }]);
    const inp = input(task(agent, { timeoutMs: 5000 }), { cliAgentToolsDefault: "explicit-only", rootDir: "/work", maxOutputBytes: 1234 });
    await runAgentTask(inp);
    expect(calls[0]).toMatchObject({ allowTools: [], timeout: { totalMs: 5000 }, rootDir: "/work", maxOutputBytes: 1234, taskContext: { runId: "run-1", nodeId: "count", iteration: 0, attempt: 1 } });
    expect(inp.beats).toBe(1);
    await runAgentTask(input(task(agent, { allowTools: ["Read"] }), { cliAgentToolsDefault: "explicit-only" }));
    expect(calls[1]!.allowTools).toEqual(["Read"]);
    await runAgentTask(input(task(agent)));
    expect(calls[2]!.allowTools).toBeUndefined();
  });

  it("stops at once when the task is aborted instead of failing over", async () => {
    const controller = new AbortController();
    const reason = new FlowError("TASK_TIMEOUT", "timed out");
    const { agent: slow } = recorder("slow", [new Error("aborted")], { generate: async () => { controller.abort(reason); throw new Error("aborted"); } });
    const { agent: next, calls } = recorder("next", [{ text: '{"passed":1}' }]);
    const inp = input(task([slow, next]));
    inp.runtime = { ...inp.runtime, signal: controller.signal };
    await expect(runAgentTask(inp)).rejects.toBe(reason);
    expect(calls).toHaveLength(0);
  });
});
