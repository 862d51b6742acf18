/**
 * @module core/agents/transcript-view
 * A task's transcript read back from the run's events (docs/agents.md, "Transcripts"): per
 * attempt, its generations with prompt, streamed text, tool calls joined with their results,
 * model, usage and cost. One reader for `FlowDb.getTranscript`, `flow runs --node` and the
 * app's node panel, so a reload mid-generation shows what a live watcher saw. An attempt
 * cancelled as `interrupted` (its process died; core/engine/session-open.ts) keeps what it
 * recorded, and its unfinished generation says `interrupted`.
 */
import type { FlowEvent } from "../engine/index.js";
import type { AgentUsage } from "./types.js";
import { addUsage } from "./usage.js";

/** One tool call and its result (absent while it runs). */
export interface TranscriptToolCall {
  callId: string;
  toolName: string;
  input?: unknown;
  ok?: boolean;
  output?: unknown;
  error?: { code?: string; message: string };
  durationMs?: number | null;
  sideEffect?: boolean;
  idempotent?: boolean;
  truncated?: boolean;
}

/** One generation: ordered `parts` interleave text and tool calls as they happened. */
export interface TranscriptGeneration {
  generation: number;
  agentId: string | null;
  engine: string | null;
  prompt?: string;
  messages?: { role: string; content: unknown }[];
  schemaRetry?: number;
  parts: ({ kind: "text"; text: string } | { kind: "tool"; call: TranscriptToolCall })[];
  /** `running` until its end is recorded; `interrupted` when its process died first. */
  status: "running" | "finished" | "failed" | "interrupted";
  model?: string | null;
  provider?: string | null;
  /** What it spent: its whole once finished; while running, its model steps' so far (`AgentStepUsage`). */
  usage?: AgentUsage;
  costUsd?: number;
  durationMs?: number;
  error?: { code?: string; message: string };
  truncated?: boolean;
}

export interface TranscriptAttempt {
  nodeId: string;
  iteration: number;
  attempt: number;
  interrupted: boolean;
  generations: TranscriptGeneration[];
  usage?: AgentUsage;
  costUsd?: number;
}

/**
 * Builds the transcripts of a run's events (optionally one task's), oldest attempt first.
 * @example
 * const [attempt] = buildTranscripts(await db.listEvents(runId), "fix");
 * console.log(attempt.generations[0].parts);
 */
export function buildTranscripts(events: readonly FlowEvent[], nodeId?: string): TranscriptAttempt[] {
  const attempts = new Map<string, TranscriptAttempt>();
  const gens = new Map<string, TranscriptGeneration>();
  const calls = new Map<string, TranscriptToolCall>();
  const attemptOf = (e: { nodeId: string; iteration: number; attempt: number }) => {
    const key = `${e.nodeId}@${e.iteration}#${e.attempt}`;
    let a = attempts.get(key);
    if (!a) attempts.set(key, (a = { nodeId: e.nodeId, iteration: e.iteration, attempt: e.attempt, interrupted: false, generations: [] }));
    return a;
  };
  const genKey = (e: { nodeId: string; iteration: number; attempt: number; generation: number }) => `${e.nodeId}@${e.iteration}#${e.attempt}/${e.generation}`;
  for (const e of events) {
    if (!("nodeId" in e) || (nodeId !== undefined && e.nodeId !== nodeId)) continue;
    switch (e.type) {
      case "AgentGenerationStarted": {
        const g: TranscriptGeneration = {
          generation: e.generation,
          agentId: e.agentId,
          engine: e.engine,
          parts: [],
          status: "running",
          ...(e.prompt !== undefined ? { prompt: e.prompt } : {}),
          ...(e.messages ? { messages: e.messages } : {}),
          ...(e.schemaRetry ? { schemaRetry: e.schemaRetry } : {}),
          ...(e.truncated ? { truncated: true } : {}),
        };
        gens.set(genKey(e), g);
        attemptOf(e).generations.push(g);
        break;
      }
      case "AgentTextDelta": {
        const g = gens.get(genKey(e));
        if (!g) break;
        const last = g.parts[g.parts.length - 1];
        if (last?.kind === "text") last.text += e.text;
        else g.parts.push({ kind: "text", text: e.text });
        if (e.truncated) g.truncated = true;
        break;
      }
      case "AgentToolCall": {
        const call: TranscriptToolCall = { callId: e.callId, toolName: e.toolName, ...(e.input !== undefined ? { input: e.input } : {}), ...(e.truncated ? { truncated: true } : {}) };
        calls.set(`${genKey(e)}:${e.callId}`, call);
        gens.get(genKey(e))?.parts.push({ kind: "tool", call });
        break;
      }
      case "AgentToolResult": {
        const call = calls.get(`${genKey(e)}:${e.callId}`);
        if (!call) break;
        Object.assign(call, {
          ok: e.ok,
          durationMs: e.durationMs,
          ...(e.output !== undefined ? { output: e.output } : {}),
          ...(e.error ? { error: e.error } : {}),
          ...(e.sideEffect !== undefined ? { sideEffect: e.sideEffect, idempotent: e.idempotent } : {}),
          ...(e.truncated ? { truncated: true } : {}),
        });
        break;
      }
      case "AgentGenerationFinished": {
        const g = gens.get(genKey(e));
        if (!g) break;
        Object.assign(g, {
          status: e.ok ? "finished" : "failed",
          model: e.model,
          provider: e.provider,
          durationMs: e.durationMs,
          ...(e.usage ? { usage: e.usage } : {}),
          ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
          ...(e.error ? { error: e.error } : {}),
        });
        break;
      }
      case "AgentStepUsage": {
        // A running generation's spend so far; its end replaces it with the whole.
        const g = gens.get(genKey(e));
        if (!g || g.status !== "running") break;
        g.usage = addUsage(g.usage, e.usage);
        if (e.costUsd !== undefined) g.costUsd = (g.costUsd ?? 0) + e.costUsd;
        break;
      }
      case "TaskCancelled": {
        if (e.reason !== "interrupted" || e.attempt === undefined) break;
        const a = attempts.get(`${e.nodeId}@${e.iteration}#${e.attempt}`);
        if (!a) break;
        a.interrupted = true;
        for (const g of a.generations) if (g.status === "running") g.status = "interrupted";
        break;
      }
    }
  }
  // Each attempt's spend: its generations', finished or so far.
  for (const a of attempts.values()) {
    for (const g of a.generations) {
      a.usage = addUsage(a.usage, g.usage);
      if (g.costUsd !== undefined) a.costUsd = (a.costUsd ?? 0) + g.costUsd;
    }
  }
  return [...attempts.values()];
}
