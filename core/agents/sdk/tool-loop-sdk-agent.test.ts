import { describe, expect, it } from "vitest";
import { tool } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import { z } from "zod";
import { defineTool, ToolLoopSdkAgent } from "durable-flow/core";
import type { AgentEvent } from "durable-flow/core";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const stop = { unified: "stop", raw: "stop" } as const;
const toolCalls = { unified: "tool-calls", raw: "tool_calls" } as const;

/** A mock model that answers each call with the next scripted content. */
function scripted(turns: Array<{ content: any[]; finishReason: typeof stop | typeof toolCalls }>) {
  const calls: any[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      calls.push(options);
      const turn = turns[calls.length - 1]!;
      return { content: turn.content, finishReason: turn.finishReason, usage: usage(10, 5), warnings: [] };
    },
  });
  return { model, calls };
}

describe("ToolLoopSdkAgent", () => {
  it("runs a two-step tool loop through a Flow tool and an AI SDK tool", async () => {
    const seen: unknown[] = [];
    const add = defineTool({ name: "add", schema: z.object({ a: z.number(), b: z.number() }), execute: ({ a, b }, ctx) => (seen.push(ctx.nodeId), a + b) });
    const shout = tool({ description: "upper-case", inputSchema: z.object({ s: z.string() }), execute: async ({ s }) => s.toUpperCase() });
    const { model, calls } = scripted([
      {
        content: [
          { type: "tool-call", toolCallId: "c1", toolName: "add", input: JSON.stringify({ a: 2, b: 3 }) },
          { type: "tool-call", toolCallId: "c2", toolName: "shout", input: JSON.stringify({ s: "hi" }) },
        ],
        finishReason: toolCalls,
      },
      { content: [{ type: "text", text: "2+3=5 and HI" }], finishReason: stop },
    ]);
    const agent = new ToolLoopSdkAgent(model, { id: "calc", instructions: "Use tools.", tools: { add, shout } });
    const result = await agent.generate({ prompt: "add 2 and 3, shout hi", taskContext: { runId: "r1", nodeId: "sum", iteration: 0, attempt: 1 } });
    expect(result.text).toBe("2+3=5 and HI");
    expect(calls).toHaveLength(2);
    expect(calls[0].tools.map((t: any) => t.name).sort()).toEqual(["add", "shout"]);
    const toolResults = calls[1].prompt.filter((m: any) => m.role === "tool").flatMap((m: any) => m.content);
    expect(toolResults.map((p: any) => p.output.value)).toEqual([5, "HI"]);
    expect(seen).toEqual(["sum"]);
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 10, totalTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
    expect(result.steps).toHaveLength(2);
    expect(calls[0].prompt[0]).toEqual({ role: "system", content: "Use tools." });
  });

  it("asks the provider for its JSON schema format when native structured output is on", async () => {
    const { model, calls } = scripted([{ content: [{ type: "text", text: '{"passed":12}' }], finishReason: stop }]);
    const agent = new ToolLoopSdkAgent(model, {}, true);
    const result = await agent.generate({ prompt: "count", outputSchema: z.object({ passed: z.number() }) });
    expect(calls[0].responseFormat.type).toBe("json");
    expect(calls[0].responseFormat.schema.properties).toEqual({ passed: { type: "number" } });
    expect(result.output).toEqual({ passed: 12 });
  });

  it("sends no schema format when native structured output is off", async () => {
    const { model, calls } = scripted([{ content: [{ type: "text", text: "hello" }], finishReason: stop }]);
    const agent = new ToolLoopSdkAgent(model, { nativeStructuredOutput: false });
    expect(agent.supportsNativeStructuredOutput).toBe(false);
    const result = await agent.generate({ prompt: "hi", outputSchema: z.object({ a: z.string() }) });
    expect(calls[0].responseFormat?.type ?? "text").toBe("text");
    expect(result.output).toBeUndefined();
  });

  it("streams text deltas to onStdout, tool calls and each step's usage to onEvent when the caller listens", async () => {
    let call = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        call++;
        const chunks: any[] =
          call === 1
            ? [{ type: "tool-call", toolCallId: "t1", toolName: "echo", input: '{"s":"x"}' }, { type: "finish", finishReason: toolCalls, usage: usage(3, 1) }]
            : [
                { type: "text-start", id: "a" },
                { type: "text-delta", id: "a", delta: "Hel" },
                { type: "text-delta", id: "a", delta: "lo" },
                { type: "text-end", id: "a" },
                { type: "finish", finishReason: stop, usage: usage(4, 2) },
              ];
        return { stream: simulateReadableStream({ chunks }) };
      },
    });
    const echo = tool({ inputSchema: z.object({ s: z.string() }), execute: async ({ s }) => s });
    const agent = new ToolLoopSdkAgent(model, { tools: { echo } });
    const out: string[] = [];
    const events: AgentEvent[] = [];
    const result = await agent.generate({ prompt: "go", onStdout: (t) => out.push(t), onEvent: (e) => events.push(e) });
    expect(out).toEqual(["Hel", "lo"]);
    expect(result.text).toBe("Hello");
    expect(events.map((e) => (e.type === "action" ? `${e.phase}:${e.action.title}` : e.type))).toEqual(["started:echo", "completed:echo", "usage", "text", "text", "usage"]);
    // Each step's usage as it ends (a live sum while the tool loop runs), then the whole.
    expect(events.filter((e) => e.type === "usage").map((e) => e.type === "usage" && e.usage.totalTokens)).toEqual([4, 6]);
    expect(result.usage?.totalTokens).toBe(10);
  });

  it("moves system messages of a conversation into the instructions", async () => {
    const { model, calls } = scripted([{ content: [{ type: "text", text: "ok" }], finishReason: stop }]);
    const agent = new ToolLoopSdkAgent(model, { instructions: "Base." });
    await agent.generate({ messages: [{ role: "system", content: "Extra." }, { role: "user", content: "q" }, { role: "assistant", content: "a" }, { role: "user", content: "q2" }] });
    expect(calls[0].prompt[0]).toEqual({ role: "system", content: "Base.\n\nExtra." });
    expect(calls[0].prompt.slice(1).map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
  });
});
