/**
 * @module core/engine/execute
 * Runs one task attempt: a static row, a compute function, a deps-aware function or an agent
 * prompt; enforces `timeoutMs` and `heartbeatTimeoutMs`; validates the row against the output
 * schema. Never throws: the outcome says what happened.
 */
import { extractAgentOutput } from "../agents/output.js";
import type { AgentLike } from "../agents/types.js";
import type { TaskRuntime } from "../components/types.js";
import { FlowError, isFlowError } from "../errors.js";
import { isFlowElement } from "../jsx/element.js";
import { textOf } from "../jsx/host.js";
import { renderNodes } from "../jsx/render.js";
import type { AnyObjectSchema } from "../schema/columns.js";
import type { TaskDescriptor } from "./types.js";
import type { ClockPort } from "./world.js";

export type AttemptOutcome = { ok: true; row: Record<string, unknown>; meta?: Record<string, unknown> } | { ok: false; error: FlowError };

export interface AttemptInput {
  runId: string;
  desc: TaskDescriptor;
  attempt: number;
  /** Schema the stored row must satisfy. */
  schema: AnyObjectSchema;
  deps: Record<string, unknown>;
  clock: ClockPort;
  /** Aborted when the run is cancelled or the task leaves the tree. */
  signal: AbortSignal;
  /** Agents whose preflight already ran in this run. */
  preflighted: WeakSet<AgentLike>;
  onHeartbeat?(data?: unknown): void;
}

/** Runs the attempt to its outcome. */
export async function executeAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  const { desc, clock } = input;
  const controller = new AbortController();
  const abort = (reason: FlowError) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const onRunAbort = () => abort(new FlowError("TASK_CANCELLED", `Task "${desc.nodeId}" was cancelled.`, { nodeId: desc.nodeId }));
  if (input.signal.aborted) onRunAbort();
  input.signal.addEventListener("abort", onRunAbort, { once: true });

  const timers: unknown[] = [];
  if (desc.timeoutMs !== null) {
    timers.push(
      clock.setTimeout(
        () => abort(new FlowError("TASK_TIMEOUT", `Task "${desc.nodeId}" timed out after ${desc.timeoutMs} ms (attempt ${input.attempt}).`, { nodeId: desc.nodeId, timeoutMs: desc.timeoutMs })),
        desc.timeoutMs,
      ),
    );
  }
  let heartbeatTimer: unknown;
  const armHeartbeat = () => {
    if (desc.heartbeatTimeoutMs === null) return;
    if (heartbeatTimer !== undefined) clock.clearTimeout(heartbeatTimer);
    heartbeatTimer = clock.setTimeout(
      () =>
        abort(
          new FlowError("TASK_HEARTBEAT_TIMEOUT", `Task "${desc.nodeId}" sent no heartbeat for ${desc.heartbeatTimeoutMs} ms.`, {
            nodeId: desc.nodeId,
            heartbeatTimeoutMs: desc.heartbeatTimeoutMs,
          }),
        ),
      desc.heartbeatTimeoutMs,
    );
  };
  armHeartbeat();

  const runtime: TaskRuntime = {
    runId: input.runId,
    nodeId: desc.nodeId,
    iteration: desc.iteration,
    attempt: input.attempt,
    signal: controller.signal,
    heartbeat(data) {
      armHeartbeat();
      input.onHeartbeat?.(data);
    },
  };
  const aborted = new Promise<never>((_, reject) => {
    if (controller.signal.aborted) reject(controller.signal.reason);
    controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);

  try {
    const produced = await Promise.race([produce(input, runtime), aborted]);
    if (controller.signal.aborted) throw controller.signal.reason;
    const parsed = input.schema.safeParse(produced.raw);
    if (!parsed.success) {
      throw new FlowError(
        "TASK_OUTPUT_INVALID",
        `Task "${desc.nodeId}" produced a row that does not match its "${desc.outputTable}" schema: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ")}`,
        { nodeId: desc.nodeId, issues: parsed.error.issues as unknown as Record<string, unknown>[] },
      );
    }
    return produced.meta ? { ok: true, row: parsed.data as Record<string, unknown>, meta: produced.meta } : { ok: true, row: parsed.data as Record<string, unknown> };
  } catch (error) {
    return { ok: false, error: asTaskError(error, desc) };
  } finally {
    input.signal.removeEventListener("abort", onRunAbort);
    for (const t of timers) clock.clearTimeout(t);
    if (heartbeatTimer !== undefined) clock.clearTimeout(heartbeatTimer);
  }
}

async function produce(input: AttemptInput, runtime: TaskRuntime): Promise<{ raw: unknown; meta?: Record<string, unknown> }> {
  const { desc } = input;
  if (desc.staticPayload !== undefined && !desc.agent) return { raw: desc.staticPayload };
  let value: unknown = desc.prompt;
  if (desc.computeFn) value = desc.depsAware ? await desc.computeFn(input.deps, runtime) : await desc.computeFn(runtime);
  if (!desc.agent) return { raw: value };
  const prompt = typeof value === "string" ? value : isFlowElement(value) ? textOf(renderNodes(value, undefined)) : JSON.stringify(value);
  return runAgent(input, runtime, prompt);
}

async function runAgent(input: AttemptInput, runtime: TaskRuntime, prompt: string): Promise<{ raw: unknown; meta: Record<string, unknown> }> {
  const { desc } = input;
  const chain = Array.isArray(desc.agent) ? desc.agent : [desc.agent!];
  // A failover chain: attempt n uses the n-th agent, the last one for every later attempt.
  const agent = chain[Math.min(input.attempt - 1, chain.length - 1)]!;
  const options = {
    prompt,
    abortSignal: runtime.signal,
    outputSchema: desc.outputSchema,
    isRetry: input.attempt > 1,
    retryAttempt: input.attempt - 1,
    taskContext: { runId: input.runId, nodeId: desc.nodeId, iteration: desc.iteration, attempt: input.attempt },
    onStdout: () => runtime.heartbeat(),
    onStderr: () => runtime.heartbeat(),
    onEvent: () => runtime.heartbeat(),
  };
  if (agent.preflight && !input.preflighted.has(agent)) {
    try {
      await agent.preflight(options);
    } catch (cause) {
      throw new FlowError("AGENT_PREFLIGHT_FAILED", `Agent ${agent.id ?? "(unnamed)"} preflight failed for task "${desc.nodeId}": ${(cause as Error)?.message ?? cause}`, { nodeId: desc.nodeId }, { cause });
    }
    input.preflighted.add(agent);
  }
  let result: unknown;
  try {
    result = await agent.generate(options);
  } catch (cause) {
    if (isFlowError(cause)) throw cause;
    throw new FlowError("AGENT_FAILED", `Agent ${agent.id ?? "(unnamed)"} failed on task "${desc.nodeId}": ${(cause as Error)?.message ?? cause}`, { nodeId: desc.nodeId }, { cause });
  }
  return { raw: extractAgentOutput(result), meta: { agentId: agent.id ?? null } };
}

function asTaskError(error: unknown, desc: TaskDescriptor): FlowError {
  if (isFlowError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new FlowError("TASK_FAILED", `Task "${desc.nodeId}" failed: ${message}`, { nodeId: desc.nodeId, iteration: desc.iteration }, { cause: error });
}
