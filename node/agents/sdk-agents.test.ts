/**
 * The SDK agents with the real AI SDK providers against local servers that speak each
 * provider's wire protocol (JSON and SSE streaming, tool calls, structured output, errors).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAnthropic } from "@ai-sdk/anthropic";
import { z } from "zod";
import { defineTool, HostedChatAgent, HostedMessagesAgent, isFlowError, LocalServerAgent, runAgentTask, SessionCliAgent } from "durable-flow";
import { installFakeClis } from "./testing/fake-cli.js";
import type { AgentLike, AgentTaskInput, TaskDescriptor } from "durable-flow";
import { startProviderServer } from "./testing/provider-server.js";
import type { ProviderServer, ScriptedTurn } from "./testing/provider-server.js";

const servers: ProviderServer[] = [];
async function server(turns: ScriptedTurn[]) {
  const s = await startProviderServer(turns);
  servers.push(s);
  return s;
}
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const calls: string[] = [];
const lookup = defineTool({ name: "lookup", schema: z.object({ city: z.string() }), execute: ({ city }) => (calls.push(city), { tempC: 21 }) });
const toolLoop: ScriptedTurn[] = [{ toolCalls: [{ id: "call_1", name: "lookup", args: { city: "Oslo" } }] }, { text: "It is 21 C in Oslo." }];
const schema = z.object({ city: z.string(), tempC: z.number() });

function agentTask(agent: AgentLike | AgentLike[]): AgentTaskInput {
  const desc: TaskDescriptor = { nodeId: "weather", ordinal: 0, iteration: 0, outputTable: "weather", outputTableName: "weather", outputSchema: schema, needsApproval: false, skipIf: false, retries: 0, timeoutMs: null, heartbeatTimeoutMs: null, continueOnFail: false, agent };
  return { runId: "r", desc, attempt: 1, prompt: "Weather in Oslo?", runtime: { runId: "r", nodeId: "weather", iteration: 0, attempt: 1, signal: new AbortController().signal, heartbeat() {} }, preflighted: new WeakSet() };
}

describe("HostedChatAgent (OpenAI wire protocols)", () => {
  it("runs a streamed two-step tool loop over chat completions on a compatible endpoint", async () => {
    const s = await server(toolLoop);
    const agent = new HostedChatAgent({ model: "gpt-test", baseURL: s.url, apiKey: "sk-test", tools: { lookup } });
    const deltas: string[] = [];
    const result = await agent.generate({ prompt: "Weather in Oslo?", onStdout: (t) => deltas.push(t) });
    expect(result.text).toBe("It is 21 C in Oslo.");
    expect(deltas.join("")).toBe("It is 21 C in Oslo.");
    expect(s.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"]);
    expect(s.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(s.requests[0]!.body).toMatchObject({ model: "gpt-test", stream: true, tools: [{ type: "function", function: { name: "lookup" } }] });
    const toolMsg = s.requests[1]!.body.messages.find((m: any) => m.role === "tool");
    expect(toolMsg).toMatchObject({ tool_call_id: "call_1" });
    expect(JSON.parse(toolMsg.content)).toEqual({ tempC: 21 });
    expect(calls).toContain("Oslo");
    expect(result.usage).toMatchObject({ inputTokens: 22, outputTokens: 14 });
  });

  it("uses the Responses API with the provider's JSON schema format for native structured output", async () => {
    const s = await server([{ json: { city: "Oslo", tempC: 21 } }]);
    const agent = new HostedChatAgent({ model: "gpt-test", baseURL: s.url, apiKey: "sk-test", api: "responses" });
    const result = await agent.generate({ prompt: "Weather?", outputSchema: schema });
    expect(s.requests[0]!.path).toBe("/v1/responses");
    expect(s.requests[0]!.body.text.format).toMatchObject({ type: "json_schema", strict: true, schema: { properties: { city: { type: "string" }, tempC: { type: "number" } } } });
    expect(result.output).toEqual({ city: "Oslo", tempC: 21 });
  });

  it("runs a streamed tool loop over the Responses API", async () => {
    const s = await server(toolLoop);
    const agent = new HostedChatAgent({ model: "gpt-test", baseURL: s.url, apiKey: "sk-test", api: "responses", tools: { lookup } });
    const result = await agent.generate({ prompt: "Weather?", onEvent: () => {} });
    expect(result.text).toBe("It is 21 C in Oslo.");
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.body.input.find((i: any) => i.type === "function_call_output")).toMatchObject({ call_id: "call_1" });
  });

  it("rejects baseURL with a prebuilt model instance", () => {
    const model = createAnthropic({ apiKey: "x" })("claude-sonnet-4-5");
    expect(() => new HostedChatAgent({ model, baseURL: "http://127.0.0.1:1/v1" })).toThrow(expect.objectContaining({ code: "AGENT_CONFIG_INVALID" }));
  });
});

describe("HostedMessagesAgent (Anthropic Messages protocol)", () => {
  it("runs a streamed two-step tool loop with a string model read from the environment", async () => {
    const s = await server(toolLoop);
    vi.stubEnv("ANTHROPIC_BASE_URL", s.url);
    vi.stubEnv("ANTHROPIC_API_KEY", "ak-test");
    const agent = new HostedMessagesAgent({ model: "claude-sonnet-4-5", tools: { lookup }, instructions: "Be brief." });
    const result = await agent.generate({ prompt: "Weather?", onStdout: () => {} });
    expect(result.text).toBe("It is 21 C in Oslo.");
    expect(s.requests[0]!.path).toBe("/v1/messages");
    expect(s.requests[0]!.headers["x-api-key"]).toBe("ak-test");
    expect(s.requests[0]!.body).toMatchObject({ model: "claude-sonnet-4-5", stream: true, system: [{ type: "text", text: "Be brief." }] });
    const toolResult = s.requests[1]!.body.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: "tool_result", tool_use_id: "call_1" });
  });

  it("gets native structured output from a prebuilt model instance, non-streamed", async () => {
    const s = await server([{ json: { city: "Oslo", tempC: 21 } }]);
    const agent = new HostedMessagesAgent({ model: createAnthropic({ baseURL: s.url, apiKey: "ak" })("claude-test") });
    const result = await agent.generate({ prompt: "Weather?", outputSchema: schema });
    expect(result.output).toEqual({ city: "Oslo", tempC: 21 });
    const body = s.requests[0]!.body;
    // Models without the native output format get a forced `json` tool; known ones get output_config.
    expect(body.output_config?.format?.type ?? body.tool_choice?.name).toMatch(/json_schema|json/);
  });
});

describe("LocalServerAgent (OpenAI-compatible local server)", () => {
  it("defaults to model hermes, reads the address from the environment and falls back to the literal key", async () => {
    const s = await server([{ text: '{"city":"Oslo","tempC":21}' }]);
    vi.stubEnv("FLOW_LOCAL_BASE_URL", s.url);
    vi.stubEnv("FLOW_LOCAL_API_KEY", undefined);
    const agent = new LocalServerAgent();
    expect(agent.supportsNativeStructuredOutput).toBe(false);
    await agent.generate({ prompt: "hi" });
    expect(s.requests[0]!.body.model).toBe("hermes");
    expect(s.requests[0]!.headers.authorization).toBe("Bearer hermes");
  });

  it("fails with AGENT_CONFIG_INVALID without a base URL", () => {
    expect(() => new LocalServerAgent({ env: {} })).toThrow(expect.objectContaining({ code: "AGENT_CONFIG_INVALID" }));
  });

  it("extracts the row from free text and re-asks once with the validation error", async () => {
    const s = await server([{ text: "Sure! ```json\n{\"city\":\"Oslo\"}\n```" }, { text: '{"city":"Oslo","tempC":21}' }]);
    const agent = new LocalServerAgent({ baseURL: s.url, apiKey: "local-key" });
    const { raw, meta } = await runAgentTask(agentTask(agent));
    expect(raw).toEqual({ city: "Oslo", tempC: 21 });
    expect(s.requests).toHaveLength(2);
    expect(s.requests[0]!.body.response_format).toBeUndefined();
    expect(s.requests[0]!.body.messages.at(-1).content).toContain("**REQUIRED OUTPUT**");
    const retry = s.requests[1]!.body.messages;
    expect(retry.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(retry[2].content).toMatch(/tempC/);
    expect(meta).toMatchObject({ calls: 2, schemaRetries: 1, usage: { inputTokens: 22, outputTokens: 14, totalTokens: 36 } });
  });
});

describe("native structured output: correction rounds", () => {
  it("re-asks a native agent with the field-level problems after a wrong answer (streamed, chat completions)", async () => {
    const s = await server([{ json: { city: "Oslo" } }, { json: { city: "Oslo", tempC: 21 } }]);
    const agent = new HostedChatAgent({ model: "gpt-test", baseURL: s.url, apiKey: "sk" });
    const { raw, meta } = await runAgentTask(agentTask(agent));
    expect(raw).toEqual({ city: "Oslo", tempC: 21 });
    expect(s.requests).toHaveLength(2);
    expect(s.requests[0]!.body.response_format).toMatchObject({ type: "json_schema" });
    const retry = s.requests[1]!.body;
    expect(retry.response_format).toMatchObject({ type: "json_schema" });
    expect(retry.messages.map((m: any) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(retry.messages[1].content).toBe('{"city":"Oslo"}');
    expect(retry.messages[2].content).toMatch(/- tempC: /);
    expect(meta).toMatchObject({ calls: 2, schemaRetries: 1 });
  });

  it("re-asks after a wrong type over the Responses API, non-streamed", async () => {
    const s = await server([{ json: { city: "Oslo", tempC: "warm" } }, { json: { city: "Oslo", tempC: 21 } }]);
    const agent = new HostedChatAgent({ model: "gpt-test", baseURL: s.url, apiKey: "sk", api: "responses" });
    const first = await agent.generate({ prompt: "Weather?", outputSchema: schema });
    expect(first.output).toBeUndefined();
    expect(first.text).toBe('{"city":"Oslo","tempC":"warm"}');
    expect(first.usage).toMatchObject({ inputTokens: 11, outputTokens: 7 });
    const { raw } = await runAgentTask(agentTask(agent));
    expect(raw).toEqual({ city: "Oslo", tempC: 21 });
  });

  it("fails with TASK_OUTPUT_INVALID naming the field after the last correction", async () => {
    const wrong = { json: { city: "Oslo", tempC: "warm" } };
    const s = await server([wrong, wrong, wrong]);
    const agent = new HostedChatAgent({ id: "gpt", model: "gpt-test", baseURL: s.url, apiKey: "sk" });
    const err = await runAgentTask({ ...agentTask(agent), maxSchemaRetries: 2 }).catch((e) => e);
    expect(isFlowError(err, "TASK_OUTPUT_INVALID")).toBe(true);
    expect(err.message).toMatch(/after 2 correction\(s\): tempC: /);
    expect(err.message).not.toMatch(/No object generated/);
    expect(err.details.problems).toEqual([expect.stringMatching(/^tempC: /)]);
    expect(s.requests).toHaveLength(3);
    expect(s.requests[2]!.body.messages.at(-1).content).toMatch(/- tempC: /);
  });
});

describe("failover across providers", () => {
  it("fails over from a provider error to the next agent of the chain", async () => {
    const down = await server([{ status: 503, message: "overloaded" }]);
    const up = await server([{ json: { city: "Oslo", tempC: 21 } }]);
    const primary = new HostedMessagesAgent({ id: "primary", model: createAnthropic({ baseURL: down.url, apiKey: "ak" })("claude-test") });
    const backup = new HostedChatAgent({ id: "backup", model: "gpt-test", baseURL: up.url, apiKey: "sk" });
    const { raw, meta } = await runAgentTask(agentTask([primary, backup]));
    expect(raw).toEqual({ city: "Oslo", tempC: 21 });
    expect(meta.agentId).toBe("backup");
    expect(meta.failover).toEqual([expect.objectContaining({ agentId: "primary", kind: "other", message: expect.stringContaining("overloaded") })]);
  });

  it("parks on AGENT_QUOTA_EXCEEDED with the reset time from the 429 headers when every agent is rate limited", async () => {
    const a = await server([{ status: 429, headers: { "retry-after": "90" }, message: "rate limit exceeded" }]);
    const b = await server([{ status: 429, headers: { "retry-after-ms": "5000" }, message: "rate limit exceeded" }]);
    const now = 5_000_000;
    const input = { ...agentTask([new HostedChatAgent({ id: "a", model: "m", baseURL: a.url, apiKey: "k" }), new LocalServerAgent({ id: "b", baseURL: b.url })]), now: () => now };
    const err = await runAgentTask(input).catch((e) => e);
    expect(isFlowError(err, "AGENT_QUOTA_EXCEEDED")).toBe(true);
    expect(err.details.retryAtMs).toBe(now + 5000);
    expect(a.requests).toHaveLength(1);
    expect(b.requests).toHaveLength(1);
  });

  it("names an agent without an id by its model in the error, and a CLI agent's default id by its engine", async () => {
    const down = await server([{ status: 503, message: "overloaded" }]);
    const err = await runAgentTask(agentTask([new HostedChatAgent({ model: "gpt-test", baseURL: down.url, apiKey: "sk" })])).catch((e) => e);
    expect(err.message).toMatch(/^Agent \(gpt-test\) failed on task "\S+": .*overloaded/);
    // A CLI agent's default id is a random UUID (docs/agents.md): the message gives its engine and the id's start.
    const fakes = installFakeClis();
    const coder = new SessionCliAgent({ env: fakes.env() });
    const cliErr = await runAgentTask({ ...agentTask([coder]), maxSchemaRetries: 0 }).catch((e) => e);
    expect(cliErr.message).toMatch(new RegExp(`^Agent claude-code ${coder.id.slice(0, 8)} gave no valid`));
  });
});
