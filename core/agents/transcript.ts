/**
 * @module core/agents/transcript
 * The durable transcript of one task attempt (docs/agents.md, "Transcripts"): what run-agent
 * sees of each generation (the prompt or messages, streamed text, tool calls with their
 * arguments, results or refusals, durations and side-effect flags, model, provider, usage and
 * cost) becomes `Agent*` events (core/engine/events.ts) handed to a sink. The engine's sink
 * batches them into the run's next flush, so they are events like any other (DESIGN.md,
 * performance rules); without a sink nothing is recorded and nothing is spent.
 */
import type { AgentGenerationFinishedEvent, AgentGenerationStartedEvent, EventInit } from "../engine/index.js";
import { getDefinedToolMetadata } from "../tools/index.js";
import { costOf } from "./prices.js";
import type { PriceTable } from "./prices.js";
import type { AgentEvent, AgentGenerateOptions, AgentLike, AgentUsage } from "./types.js";

/** Where transcript events go (the engine batches them per flush). */
export interface TranscriptSink {
  push(event: EventInit): void;
}

/** Options of {@link AttemptTranscript}. */
export interface AttemptTranscriptOptions {
  nodeId: string;
  iteration: number;
  attempt: number;
  sink: TranscriptSink;
  now: () => number;
  /** Bound of one payload (prompt, tool arguments or result, the streamed text of a generation). */
  maxBytes: number;
  prices?: PriceTable;
}

/** What a generation ended with, as run-agent read it. */
export interface GenerationEnd {
  ok: boolean;
  model?: string;
  provider?: string;
  usage?: AgentUsage;
  finishReason?: string;
  sessionId?: string;
  error?: unknown;
  /** The answer text: recorded when the agent streamed none (CLIs that print only the answer). */
  text?: string;
}

/**
 * Records the generations of one attempt.
 * @example
 * const t = new AttemptTranscript({ nodeId: "fix", iteration: 0, attempt: 1, sink, now: Date.now, maxBytes: 200_000 });
 * const gen = t.begin(agent, 0, options);
 * await agent.generate({ ...options, onEvent: gen.onEvent });
 * gen.end({ ok: true, model: "gpt-4o", usage });
 */
export class AttemptTranscript {
  private generations = 0;

  constructor(private readonly o: AttemptTranscriptOptions) {}

  /** Starts a generation: records its prompt and returns the handler of its agent events. */
  begin(agent: AgentLike, agentIndex: number, call: AgentGenerateOptions): GenerationRecorder {
    const generation = ++this.generations;
    const prompt = call.messages?.length ? undefined : bound(call.prompt ?? "", this.o.maxBytes);
    const messages = call.messages?.length ? bound(call.messages.map((m) => ({ role: m.role, content: m.content })), this.o.maxBytes) : undefined;
    const started: Omit<AgentGenerationStartedEvent, "runId" | "timestampMs" | "seq"> = {
      type: "AgentGenerationStarted",
      ...this.ref(generation),
      agentId: agent.id ?? null,
      agentIndex,
      engine: agent.capabilities?.engine ?? null,
      ...(call.schemaRetry ? { schemaRetry: call.schemaRetry } : {}),
      ...(call.resumeSession ? { resumeSession: call.resumeSession } : {}),
      ...(prompt ? { prompt: prompt.value as string } : {}),
      ...(messages ? { messages: messages.value as { role: string; content: unknown }[] } : {}),
      ...(prompt?.truncated || messages?.truncated ? { truncated: true } : {}),
    };
    this.o.sink.push(started);
    return new GenerationRecorder(this.o, this.ref(generation), agent, this.o.now());
  }

  private ref(generation: number) {
    return { nodeId: this.o.nodeId, iteration: this.o.iteration, attempt: this.o.attempt, generation };
  }
}

/** One generation's recorder: `onEvent` takes the agent's events, `end` closes it. */
export class GenerationRecorder {
  private readonly toolStarts = new Map<string, { at: number; name: string }>();
  private textBytes = 0;
  private textCut = false;

  constructor(
    private readonly o: AttemptTranscriptOptions,
    private readonly ref: { nodeId: string; iteration: number; attempt: number; generation: number },
    private readonly agent: AgentLike,
    private readonly startedAt: number,
  ) {}

  readonly onEvent = (e: AgentEvent): void => {
    if (e.type === "text") this.text(e.delta);
    else if (e.type === "action" && e.entryType === "message" && e.message) this.text(e.message);
    else if (e.type === "action" && (e.action.kind === "tool" || e.action.kind === "command")) this.tool(e);
    else if (e.type === "usage") this.stepUsage(e.usage, e.model);
  };

  /** A model step's usage and cost as it ends: what the generation has spent so far, live. */
  private stepUsage(usage: AgentUsage, model: string | undefined): void {
    const cost = costOf(model, usage, this.o.prices);
    this.o.sink.push({ type: "AgentStepUsage", ...this.ref, usage, ...(cost !== undefined ? { costUsd: cost } : {}) });
  }

  /** Records the generation's end: model, provider, usage and cost, or the error. */
  end(r: GenerationEnd): void {
    if (r.ok && this.textBytes === 0 && !this.textCut && r.text) this.text(r.text);
    const cost = costOf(r.model, r.usage, this.o.prices);
    const finished: Omit<AgentGenerationFinishedEvent, "runId" | "timestampMs" | "seq"> = {
      type: "AgentGenerationFinished",
      ...this.ref,
      ok: r.ok,
      durationMs: this.o.now() - this.startedAt,
      model: r.model ?? null,
      provider: r.provider ?? this.agent.capabilities?.engine ?? null,
      ...(r.usage ? { usage: r.usage } : {}),
      ...(cost !== undefined ? { costUsd: cost } : {}),
      ...(r.finishReason ? { finishReason: r.finishReason } : {}),
      ...(r.sessionId ? { sessionId: r.sessionId } : {}),
      ...(r.ok ? {} : { error: errorOf(r.error) }),
    };
    this.o.sink.push(finished);
  }

  private text(delta: string): void {
    if (this.textCut || !delta) return;
    const size = byteLength(delta);
    if (this.textBytes + size > this.o.maxBytes) {
      this.textCut = true;
      const room = Math.max(0, this.o.maxBytes - this.textBytes);
      this.o.sink.push({ type: "AgentTextDelta", ...this.ref, text: cutString(delta, room), truncated: true });
      return;
    }
    this.textBytes += size;
    this.o.sink.push({ type: "AgentTextDelta", ...this.ref, text: delta });
  }

  private tool(e: Extract<AgentEvent, { type: "action" }>): void {
    const callId = e.action.id;
    if (!this.toolStarts.has(callId)) {
      // A CLI may report a call only once it is done (OpenCode, Codex): record the call first.
      this.toolStarts.set(callId, { at: this.o.now(), name: e.action.title });
      const input = e.input ?? e.action.detail;
      const b = input === undefined ? undefined : bound(input, this.o.maxBytes);
      this.o.sink.push({ type: "AgentToolCall", ...this.ref, callId, toolName: e.action.title, ...(b ? { input: b.value } : {}), ...(b?.truncated ? { truncated: true } : {}) });
    }
    if (e.phase !== "completed") return;
    const start = this.toolStarts.get(callId);
    const toolName = start?.name ?? e.action.title;
    const ok = e.ok !== false;
    const b = e.output === undefined ? undefined : bound(e.output, this.o.maxBytes);
    const meta = getDefinedToolMetadata(this.agent.tools?.[toolName]);
    this.o.sink.push({
      type: "AgentToolResult",
      ...this.ref,
      callId,
      toolName,
      ok,
      ...(b ? { output: b.value } : {}),
      ...(!ok ? { error: e.error ?? { message: e.message ?? "tool call failed" } } : {}),
      durationMs: start ? this.o.now() - start.at : null,
      ...(meta ? { sideEffect: meta.sideEffect, idempotent: meta.idempotent } : {}),
      ...(b?.truncated ? { truncated: true } : {}),
    });
  }
}

function errorOf(error: unknown): { code?: string; message: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return { ...(typeof code === "string" ? { code } : {}), message: error instanceof Error ? error.message : String(error) };
}

const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).length;
}

/** The longest prefix of `text` within `max` UTF-8 bytes, never splitting a character. */
function cutString(text: string, max: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/**
 * A payload within `max` bytes: a string is cut; any other value too large in JSON becomes
 * its JSON text, cut.
 */
export function bound(value: unknown, max: number): { value: unknown; truncated: boolean } {
  if (typeof value === "string") {
    const cut = cutString(value, max);
    return { value: cut, truncated: cut.length < value.length };
  }
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    json = String(value);
  }
  if (json === undefined || json.length <= max / 3 || byteLength(json) <= max) return { value, truncated: false };
  return { value: cutString(json, max), truncated: true };
}
