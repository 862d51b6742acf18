/**
 * Each CLI variant's real output format, printed by its fake executable, read into the same
 * transcript records as SDK agents: tool calls with arguments and results, streamed or final
 * text, usage and the cost a CLI reports.
 */
import { describe, expect, it } from "vitest";
import {
  AttemptTranscript,
  BudgetCliAgent,
  ConversationCliAgent,
  ExecCliAgent,
  ExtendedHarnessCliAgent,
  GatewayRelayCliAgent,
  IsolatedShareCliAgent,
  LegacyConversationCliAgent,
  LocalPresetCliAgent,
  MinimalHarnessCliAgent,
  runAgentTask,
  SessionCliAgent,
  StepEventCliAgent,
  ThreadCliAgent,
  WorkflowCliAgent,
} from "durable-flow";
import type { AgentLike, EventInit, TaskDescriptor } from "durable-flow";
import { installFakeClis } from "../testing/fake-cli.js";

const fakes = installFakeClis();
const env = fakes.env();

type Case = [string, AgentLike, { tool?: [string, unknown, unknown]; text: string; usage?: Record<string, number>; costUsd?: number }];
const cases: Case[] = [
  ["claude", new SessionCliAgent({ env }), { tool: ["Bash", { command: "npm test" }, "12 passing"], text: '{"passed":12}', usage: { inputTokens: 1840, cacheReadTokens: 1200 }, costUsd: 0.0132 }],
  ["codex", new ExecCliAgent({ env }), { tool: ["bash -lc 'ls src'", { command: "bash -lc 'ls src'" }, undefined], text: '{"files":3}', usage: { inputTokens: 5120, cacheReadTokens: 4096 } }],
  ["agy", new ConversationCliAgent({ env }), { text: "Build is green." }],
  ["gemini", new LegacyConversationCliAgent({ env }), { text: "Done.", usage: { inputTokens: 790 } }],
  ["pi", new MinimalHarnessCliAgent({ env, mode: "json" }), { tool: ["bash", { command: "ls" }, [{ type: "text", text: "src\n" }]], text: "One folder: src.", usage: { inputTokens: 930 } }],
  ["omp", new ExtendedHarnessCliAgent({ env }), { tool: ["bash", { command: "ls" }, [{ type: "text", text: "src\n" }]], text: "One folder: src.", usage: { inputTokens: 930 } }],
  ["kimi", new IsolatedShareCliAgent({ env }), { tool: ["Shell", { command: "ls" }, "README.md\nsrc"], text: "The repo has README.md and src/." }],
  ["forge", new WorkflowCliAgent({ env }), { text: "Renamed parseCfg" }],
  ["amp", new ThreadCliAgent({ env }), { text: "Added the missing index.", usage: { inputTokens: 700 } }],
  ["vibe", new BudgetCliAgent({ env }), { text: "No lint errors found." }],
  ["opencode", new StepEventCliAgent({ env }), { tool: ["bash", { command: "ls" }, "src\n"], text: "The project has one folder, src.", usage: { inputTokens: 1210 } }],
  ["openclaw", new GatewayRelayCliAgent({ env }), { text: "Ticket triaged as P2." }],
  ["hermes", new LocalPresetCliAgent({ env }), { text: "Summary: 4 open PRs" }],
];

function task(agent: AgentLike) {
  const desc: TaskDescriptor = { nodeId: "cli", ordinal: 0, iteration: 0, outputTable: "t", outputTableName: "t", needsApproval: false, skipIf: false, retries: 0, timeoutMs: null, heartbeatTimeoutMs: null, continueOnFail: false, agent };
  const events: EventInit[] = [];
  const transcript = new AttemptTranscript({ nodeId: "cli", iteration: 0, attempt: 1, sink: { push: (e) => events.push(e) }, now: Date.now, maxBytes: 200_000 });
  const input = { runId: "r", desc, attempt: 1, prompt: "Do it.", runtime: { runId: "r", nodeId: "cli", iteration: 0, attempt: 1, signal: new AbortController().signal, heartbeat() {} }, preflighted: new WeakSet<AgentLike>(), transcript };
  return { input, events };
}

describe("CLI agent transcripts", () => {
  it.each(cases)("reads %s's output format into transcript records", async (_name, agent, want) => {
    const { input, events } = task(agent);
    await runAgentTask(input);
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("AgentGenerationStarted");
    expect(types.at(-1)).toBe("AgentGenerationFinished");
    expect(events[0]).toMatchObject({ prompt: "Do it.", engine: (agent as { engine?: string }).engine });
    const text = events.flatMap((e) => (e.type === "AgentTextDelta" ? [e.text] : [])).join("");
    expect(text).toContain(want.text);
    const calls = events.filter((e) => e.type === "AgentToolCall");
    const results = events.filter((e) => e.type === "AgentToolResult");
    if (want.tool) {
      const [name, args, output] = want.tool;
      expect(calls).toEqual([expect.objectContaining({ toolName: name, input: args })]);
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ ok: true, toolName: name, callId: (calls[0] as { callId: string }).callId });
      if (output !== undefined) expect((results[0] as { output?: unknown }).output).toEqual(output);
    } else expect(calls).toEqual([]);
    const finished = events.at(-1) as Extract<EventInit, { type: "AgentGenerationFinished" }>;
    expect(finished).toMatchObject({ ok: true, provider: (agent as { engine?: string }).engine });
    if (want.usage) expect(finished.usage).toMatchObject(want.usage);
    if (want.costUsd !== undefined) expect(finished.costUsd).toBe(want.costUsd);
  });

  it("records a failed generation with its error code", async () => {
    const { input, events } = task(new SessionCliAgent({ env: fakes.env({ stdout: [{ type: "result", subtype: "error_during_execution", is_error: true, result: "tool crashed", session_id: "s" }] }) }));
    await expect(runAgentTask(input)).rejects.toThrow();
    expect(events.at(-1)).toMatchObject({ type: "AgentGenerationFinished", ok: false, error: { code: "AGENT_CLI_ERROR" } });
  });
});
