/**
 * @module core/tracing/run-tracer
 * OpenTelemetry spans for a run, built from its events (docs/tracing.md): a span per execution
 * of the run, a child per task attempt, a grandchild per agent generation (`invoke_agent`) and
 * one per tool call under it (`execute_tool`), with the GenAI semantic conventions' `gen_ai.*`
 * attributes and `flow.*` attributes that name the run, node, iteration and attempt. Only
 * `@opentelemetry/api` (runtime-neutral) is used; the engine loads this module only when
 * tracing is on, so runs without it load nothing and do no per-event work.
 *
 * Spans start and end at the events' own timestamps, so the at-most-50-ms delay with which
 * agent events are flushed does not shift them.
 */
import { context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import type { FlowEvent, RunResult } from "../engine/index.js";

/** Attribute names: the GenAI semantic conventions (1.45) and Flow's own. */
export const TRACE_ATTRS = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  system: "gen_ai.system",
  agentId: "gen_ai.agent.id",
  agentName: "gen_ai.agent.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  conversationId: "gen_ai.conversation.id",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  errorType: "error.type",
  runId: "flow.run.id",
  workflow: "flow.workflow.name",
  runStatus: "flow.run.status",
  nodeId: "flow.node.id",
  iteration: "flow.iteration",
  attempt: "flow.attempt",
  generation: "flow.generation",
  engine: "flow.agent.engine",
  costUsd: "flow.cost_usd",
} as const;

/** How a run is traced: an OpenTelemetry tracer, and what to flush when the run's execution ends. */
export interface RunTracing {
  tracer: Tracer;
  /** Called after the run span ends (an exporter's `forceFlush`), so short-lived processes send their spans. */
  flush?(): Promise<void>;
}

/** The spans of one execution of a run, fed its events in `seq` order. */
export interface RunTracer {
  onEvent(event: FlowEvent): void;
  /** Ends what is still open, then the run span, with the execution's result (or the error it threw). */
  end(outcome: { result?: RunResult; error?: unknown }): Promise<void>;
}

/**
 * Starts the run span and returns the observer of the run's events.
 * @example
 * const t = startRunTracer({ tracer: trace.getTracer("durable-flow") }, { runId, workflowName: "triage" }, Date.now());
 */
export function startRunTracer(tracing: RunTracing, run: { runId: string; workflowName: string | null }, startMs: number): RunTracer {
  const { tracer } = tracing;
  const base = { [TRACE_ATTRS.runId]: run.runId };
  const runSpan = tracer.startSpan(`run ${run.workflowName ?? run.runId}`, { startTime: startMs, attributes: { ...base, ...(run.workflowName ? { [TRACE_ATTRS.workflow]: run.workflowName } : {}) } });
  const open = new Map<string, Span>();
  const child = (parent: Span | undefined, name: string, kind: SpanKind, at: number, attributes: Record<string, string | number>) =>
    tracer.startSpan(name, { kind, startTime: at, attributes: { ...base, ...attributes } }, trace.setSpan(context.active(), parent ?? runSpan));
  const close = (key: string, at: number, failure?: { code?: string; message: string }) => {
    const span = open.get(key);
    if (!span) return;
    open.delete(key);
    if (failure) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      span.setAttribute(TRACE_ATTRS.errorType, failure.code ?? "error");
    }
    span.end(at);
  };

  return {
    onEvent(e) {
      switch (e.type) {
        case "TaskStarted": {
          const key = attemptKey(e.nodeId, e.iteration, e.attempt);
          open.set(key, child(undefined, `task ${e.nodeId}`, SpanKind.INTERNAL, e.timestampMs, { [TRACE_ATTRS.nodeId]: e.nodeId, [TRACE_ATTRS.iteration]: e.iteration, [TRACE_ATTRS.attempt]: e.attempt }));
          return;
        }
        case "TaskFinished":
          return close(attemptKey(e.nodeId, e.iteration, e.attempt), e.timestampMs);
        case "TaskFailed":
          return close(attemptKey(e.nodeId, e.iteration, e.attempt), e.timestampMs, e.error);
        case "TaskCancelled":
          if (e.attempt !== undefined) open.get(attemptKey(e.nodeId, e.iteration, e.attempt))?.setAttribute("flow.cancel_reason", e.reason);
          if (e.attempt !== undefined) close(attemptKey(e.nodeId, e.iteration, e.attempt), e.timestampMs);
          return;
        case "AgentGenerationStarted": {
          const name = e.agentId ?? e.engine ?? "agent";
          const attrs: Record<string, string | number> = {
            [TRACE_ATTRS.operation]: "invoke_agent",
            [TRACE_ATTRS.agentName]: name,
            [TRACE_ATTRS.nodeId]: e.nodeId,
            [TRACE_ATTRS.iteration]: e.iteration,
            [TRACE_ATTRS.attempt]: e.attempt,
            [TRACE_ATTRS.generation]: e.generation,
          };
          if (e.agentId) attrs[TRACE_ATTRS.agentId] = e.agentId;
          if (e.engine) attrs[TRACE_ATTRS.engine] = e.engine;
          const parent = open.get(attemptKey(e.nodeId, e.iteration, e.attempt));
          open.set(generationKey(e), child(parent, `invoke_agent ${name}`, SpanKind.CLIENT, e.timestampMs, attrs));
          return;
        }
        case "AgentGenerationFinished": {
          const span = open.get(generationKey(e));
          if (span) span.setAttributes(generationAttributes(e));
          return close(generationKey(e), e.timestampMs, e.ok ? undefined : (e.error ?? { message: "generation failed" }));
        }
        case "AgentToolCall": {
          const parent = open.get(generationKey(e));
          const attrs = { [TRACE_ATTRS.operation]: "execute_tool", [TRACE_ATTRS.toolName]: e.toolName, [TRACE_ATTRS.toolCallId]: e.callId, [TRACE_ATTRS.toolType]: "function", [TRACE_ATTRS.nodeId]: e.nodeId, [TRACE_ATTRS.attempt]: e.attempt };
          open.set(toolKey(e), child(parent, `execute_tool ${e.toolName}`, SpanKind.INTERNAL, e.timestampMs, attrs));
          return;
        }
        case "AgentToolResult": {
          const span = open.get(toolKey(e));
          if (span && e.sideEffect !== undefined) span.setAttribute("flow.tool.side_effect", e.sideEffect);
          if (span && e.idempotent !== undefined) span.setAttribute("flow.tool.idempotent", e.idempotent);
          if (span && e.durationMs !== null) span.setAttribute("flow.tool.duration_ms", e.durationMs);
          return close(toolKey(e), e.timestampMs, e.ok ? undefined : (e.error ?? { message: "tool call failed" }));
        }
        case "RunFailed":
          runSpan.setStatus({ code: SpanStatusCode.ERROR, message: e.error.message });
          runSpan.setAttribute(TRACE_ATTRS.errorType, e.error.code);
          return;
        case "RunResumed":
          runSpan.setAttribute("flow.run.resumed", true);
          return;
        default:
          return;
      }
    },
    async end({ result, error }) {
      const at = Date.now();
      // Spans left open (a throw, a pause that stopped an attempt) end with the execution.
      for (const key of [...open.keys()].reverse()) close(key, at, error ? { message: String(error) } : undefined);
      if (result) runSpan.setAttribute(TRACE_ATTRS.runStatus, result.status);
      if (error) runSpan.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      runSpan.end(at);
      await tracing.flush?.();
    },
  };
}

function attemptKey(nodeId: string, iteration: number, attempt: number): string {
  return `${nodeId}\u0000${iteration}\u0000${attempt}`;
}
function generationKey(e: { nodeId: string; iteration: number; attempt: number; generation: number }): string {
  return `${attemptKey(e.nodeId, e.iteration, e.attempt)}\u0000g${e.generation}`;
}
function toolKey(e: { nodeId: string; iteration: number; attempt: number; generation: number; callId: string }): string {
  return `${generationKey(e)}\u0000t${e.callId}`;
}

/** `gen_ai.*` attributes of a finished generation: model, provider, usage, finish reason, session. */
function generationAttributes(e: Extract<FlowEvent, { type: "AgentGenerationFinished" }>): Record<string, string | number | string[]> {
  const a: Record<string, string | number | string[]> = {};
  if (e.model) {
    a[TRACE_ATTRS.requestModel] = e.model;
    a[TRACE_ATTRS.responseModel] = e.model;
  }
  if (e.provider) {
    // AI SDK provider ids are `openai.chat`, `anthropic.messages`: the conventions name the vendor.
    const vendor = e.provider.split(".")[0]!;
    a[TRACE_ATTRS.provider] = vendor;
    a[TRACE_ATTRS.system] = vendor;
  }
  const u = e.usage;
  if (u) {
    if (u.inputTokens !== undefined) a[TRACE_ATTRS.inputTokens] = u.inputTokens;
    if (u.outputTokens !== undefined) a[TRACE_ATTRS.outputTokens] = u.outputTokens;
    if (u.cacheReadTokens !== undefined) a[TRACE_ATTRS.cacheReadTokens] = u.cacheReadTokens;
    if (u.cacheWriteTokens !== undefined) a[TRACE_ATTRS.cacheWriteTokens] = u.cacheWriteTokens;
    if (u.reasoningTokens !== undefined) a[TRACE_ATTRS.reasoningTokens] = u.reasoningTokens;
  }
  if (e.costUsd !== undefined) a[TRACE_ATTRS.costUsd] = e.costUsd;
  if (e.finishReason) a[TRACE_ATTRS.finishReasons] = [e.finishReason];
  if (e.sessionId) a[TRACE_ATTRS.conversationId] = e.sessionId;
  return a;
}
