/**
 * Agent transcripts in real runs (SQLite): the real AI SDK providers against the scripted
 * provider server stream text and tool calls (a Flow tool and a refused sandbox escape) into
 * the run's events log while the agent works; every CLI variant's real output format is read
 * into the same records.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import { createFlow, defineTool, FlowDb, HostedChatAgent, HostedMessagesAgent, LocalServerAgent, read, runWorkflow } from "durable-flow";
import type { AgentLike, FlowEvent } from "durable-flow";
import { startProviderServer } from "./testing/provider-server.js";
import type { ProviderServer, ScriptedTurn } from "./testing/provider-server.js";

const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));
const tmp = () => mkdtempSync(join(tmpdir(), "flow-transcript-"));

const lookup = defineTool({ name: "lookup", schema: z.object({ city: z.string() }), execute: () => ({ tempC: 21 }) });
const answer = '{"city":"Oslo","tempC":21}';
const turns: ScriptedTurn[] = [
  {
    toolCalls: [
      { id: "call_1", name: "lookup", args: { city: "Oslo" } },
      { id: "call_2", name: "read", args: { path: "../../../etc/passwd" } },
      // Input the tool's schema refuses: the AI SDK refuses it before the tool runs.
      { id: "call_3", name: "lookup", args: { town: "Oslo" } },
    ],
  },
  { text: answer },
];
const schemas = { input: z.object({}), weather: z.object({ city: z.string(), tempC: z.number() }) };

const providers: [string, (url: string) => AgentLike, string][] = [
  ["@ai-sdk/openai chat completions", (url) => new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: url, apiKey: "k", api: "chat", tools: { lookup, read } }), "openai.chat"],
  ["@ai-sdk/openai responses", (url) => new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: url, apiKey: "k", api: "responses", tools: { lookup, read } }), "openai.responses"],
  ["@ai-sdk/anthropic messages", (url) => new HostedMessagesAgent({ id: "w", model: createAnthropic({ baseURL: url, apiKey: "k" })("claude-haiku-4-5"), tools: { lookup, read } }), "anthropic.messages"],
  ["@ai-sdk/openai-compatible", (url) => new LocalServerAgent({ id: "w", baseURL: url, apiKey: "k", model: "gpt-4o-mini", tools: { lookup, read } }), "local"],
];

function of<T extends FlowEvent["type"]>(events: FlowEvent[], type: T): Extract<FlowEvent, { type: T }>[] {
  return events.filter((e): e is Extract<FlowEvent, { type: T }> => e.type === type);
}

describe("SDK agent transcripts", () => {
  it.each(providers)("records prompt, tool calls, refusals, streamed text, usage and cost live over %s", async (_name, make, provider) => {
    const s = await startProviderServer(turns);
    servers.push(s);
    const dir = tmp();
    const { flow, Workflow, Task, outputs, db } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="weather">
        <Task id="ask" output={outputs.weather} agent={make(s.url)} retries={0}>
          Weather in Oslo?
        </Task>
      </Workflow>
    ));
    const live: FlowEvent[] = [];
    const result = await runWorkflow(wf, { input: {}, rootDir: dir, onProgress: (e) => live.push(e), prices: { "gpt-4o-mini": { input: 1, output: 2 }, "claude-haiku-4-5": { input: 1, output: 2 } } });
    expect(result.status).toBe("finished");
    const events = await new FlowDb(db).listEvents(result.runId);
    // Live: the transcript reached onProgress before the task finished, in the log's order.
    const finishedAt = live.findIndex((e) => e.type === "TaskFinished");
    expect(live.findIndex((e) => e.type === "AgentToolCall")).toBeGreaterThan(-1);
    expect(live.findIndex((e) => e.type === "AgentToolCall")).toBeLessThan(finishedAt);
    expect(live.map((e) => e.seq)).toEqual(events.map((e) => e.seq));

    const [started] = of(events, "AgentGenerationStarted");
    expect(started).toMatchObject({ nodeId: "ask", iteration: 0, attempt: 1, generation: 1, agentId: "w", agentIndex: 0 });
    expect(started!.prompt).toContain("Weather in Oslo?");
    const calls = of(events, "AgentToolCall");
    expect(calls.map((c) => [c.callId, c.toolName, c.input])).toEqual([
      ["call_1", "lookup", { city: "Oslo" }],
      ["call_2", "read", { path: "../../../etc/passwd" }],
      ["call_3", "lookup", { town: "Oslo" }],
    ]);
    const results = of(events, "AgentToolResult");
    expect(results.find((r) => r.callId === "call_1")).toMatchObject({ toolName: "lookup", ok: true, output: { tempC: 21 }, sideEffect: false, idempotent: true });
    const refused = results.find((r) => r.callId === "call_2")!;
    expect(refused).toMatchObject({ toolName: "read", ok: false, sideEffect: false });
    expect(refused.error?.code).toMatch(/^TOOL_/);
    expect(typeof refused.durationMs).toBe("number");
    // Refused by the SDK: what the tool itself would say, in one line, not the issues as indented JSON.
    expect(results.find((r) => r.callId === "call_3")).toMatchObject({
      toolName: "lookup",
      ok: false,
      error: { code: "TOOL_INPUT_INVALID", message: 'Tool "lookup" got invalid input: city: Invalid input: expected string, received undefined. Call it again with input matching its schema.' },
    });
    const deltas = of(events, "AgentTextDelta");
    expect(deltas.map((d) => d.text).join("")).toBe(answer);
    const [finished] = of(events, "AgentGenerationFinished");
    expect(finished).toMatchObject({ ok: true, usage: { inputTokens: 22, outputTokens: 14 } });
    expect(finished!.provider).toContain(provider);
    expect(finished!.model).toMatch(/gpt-4o-mini|claude-haiku-4-5/);
    expect(finished!.costUsd).toBeCloseTo((22 * 1 + 14 * 2) / 1e6, 12);
    // The transcript comes before TaskFinished; the attempt's meta carries the same cost.
    expect(events.findIndex((e) => e.type === "AgentGenerationFinished")).toBeLessThan(events.findIndex((e) => e.type === "TaskFinished"));
    const [attempt] = await new FlowDb(db).listAttempts(result.runId, "ask");
    expect(attempt!.meta).toMatchObject({ costUsd: finished!.costUsd });
  });

  it("batches a word-by-word stream into a few events, one per flush, never one per token", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    const s = await startProviderServer([{ text: `{"city":"${words}","tempC":1}`, everyMs: 5 }]);
    servers.push(s);
    const dir = tmp();
    const { flow, Workflow, Task, outputs, db } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="stream">
        <Task id="ask" output={outputs.weather} agent={new HostedChatAgent({ model: "m", baseURL: s.url, apiKey: "k", api: "chat" })}>
          Go.
        </Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {}, rootDir: dir });
    expect(result.status).toBe("finished");
    const deltas = of(await new FlowDb(db).listEvents(result.runId), "AgentTextDelta");
    expect(deltas.map((d) => d.text).join("")).toContain("w39");
    expect(deltas.length).toBeGreaterThan(1); // ~200 ms of streaming spans several flushes
    expect(deltas.length).toBeLessThan(20); // 41 deltas arrived
  });

  it("records nothing when no agent runs", async () => {
    const dir = tmp();
    const { flow, Workflow, Task, outputs, db } = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="plain">
        <Task id="a" output={outputs.weather}>{() => ({ city: "x", tempC: 1 })}</Task>
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {} });
    const events = await new FlowDb(db).listEvents(result.runId);
    expect(events.filter((e) => e.type.startsWith("Agent"))).toEqual([]);
  });
});
