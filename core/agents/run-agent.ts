/**
 * @module core/agents/run-agent
 * How a task calls its agent (docs/agents.md, "How a task calls its agent"):
 *
 * - the `agent` array (plus `fallbackAgent`) is a failover chain walked inside one attempt: any
 *   failure of an agent (quota, provider error, CLI error, output that stays invalid) moves to
 *   the next one without burning a retry; cancellation and timeouts stop at once;
 * - `preflight` runs once per agent per run, before its first generation; a rejection fails the
 *   task without retry (`AGENT_PREFLIGHT_FAILED`);
 * - structured output: the task schema goes to agents with native structured output; the others
 *   get the REQUIRED OUTPUT prompt. Every reply (a native one that missed the schema included)
 *   is extracted and validated here, with up to `maxSchemaRetries` correction calls naming the
 *   fields (resuming the agent's session when it has one);
 * - when every agent of the chain hit a quota, the attempt fails with `AGENT_QUOTA_EXCEEDED`
 *   and `details.retryAtMs`, the earliest reset time, so the run can park in `waiting-quota`;
 * - usage (summed over every call), latency, the agent id and its native session id are
 *   returned as the attempt's meta.
 */
import type { TaskRuntime } from "../components/index.js";
import type { TaskDescriptor } from "../engine/index.js";
import { FlowError, isFlowError } from "../errors.js";
import { classifyAgentError } from "./failure.js";
import type { AgentFailureKind } from "./failure.js";
import { correctionPrompt, extractAgentOutput, withRequiredOutput } from "./output.js";
import { costOf } from "./prices.js";
import type { PriceTable } from "./prices.js";
import type { AttemptTranscript } from "./transcript.js";
import type { AgentEvent, AgentGenerateOptions, AgentLike, AgentMessage, AgentUsage } from "./types.js";
import { addUsage, normalizeUsage } from "./usage.js";

/** Correction calls made after an output fails its schema, unless the input says otherwise. */
export const DEFAULT_MAX_SCHEMA_RETRIES = 3;

/** What identifies an agent session recorded with an attempt (its meta, or its error details). */
export interface AgentSessionRef {
  agentId?: string | null;
  engine?: string | null;
  sessionId?: string | null;
}

/** The attempt metadata run-agent returns (stored as the attempt's meta). */
export interface AgentAttemptMeta extends AgentSessionRef {
  /** The directory the agent's session ran in, when it reported one (`AgentResult.sessionDir`): hijack reopens it there. */
  sessionDir?: string;
  /** Position of the agent that answered in the failover chain (0 = primary). */
  agentIndex: number;
  model?: string;
  usage?: AgentUsage;
  /** Cost in USD of every call of the attempt (reported by the agent, else from the price table). */
  costUsd?: number;
  /** Wall-clock time of every agent call of the attempt, failed ones included. */
  latencyMs: number;
  /** Number of generate calls (failover and schema corrections included). */
  calls: number;
  schemaRetries: number;
  /** Agents of the chain that failed before the one that answered. */
  failover?: { agentId: string | null; agentIndex: number; kind: AgentFailureKind; code?: string; message: string }[];
  [extra: string]: unknown;
}

export interface AgentTaskInput {
  runId: string;
  desc: TaskDescriptor;
  attempt: number;
  prompt: string;
  runtime: TaskRuntime;
  /** Agents whose preflight already ran in this run. */
  preflighted: WeakSet<AgentLike>;
  /** Clock for latency and quota times (default `Date.now`). */
  now?: () => number;
  /** Working directory handed to CLI agents without a `cwd` (RunOptions `rootDir`). */
  rootDir?: string;
  /** Output cap handed to CLI agents without their own (RunOptions `maxOutputBytes`). */
  maxOutputBytes?: number;
  /** RunOptions `cliAgentToolsDefault`: applies when the task has no `allowTools`. */
  cliAgentToolsDefault?: "all" | "explicit-only";
  /** Default {@link DEFAULT_MAX_SCHEMA_RETRIES}. */
  maxSchemaRetries?: number;
  /** The attempt's tool-context factory (core/tools `createToolContextFactory`), handed to SDK agents. */
  toolCalls?: unknown;
  /** Tools the run adds for this task (task memory's `remember` / `recall`), passed as `tools`. */
  extraTools?: Record<string, unknown>;
  /**
   * The agent session recorded with the latest attempt of a task of this run (its meta when it
   * finished, its error details when it failed). Used for `fork` and to resume on retries.
   */
  lookupSession?(nodeId: string): AgentSessionRef | undefined | Promise<AgentSessionRef | undefined>;
  /** Records each generation as transcript events (the engine's, batched per flush). */
  transcript?: AttemptTranscript;
  /** Prices per model, over Flow's defaults (RunOptions `prices`). */
  prices?: PriceTable;
}

/** Agents that hit a quota, until when (shared by all runs of this process: quotas are per account). */
const quotaUntil = new WeakMap<AgentLike, number>();

interface SchemaLike {
  safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
}

/**
 * Runs the task's agent chain; resolves to the raw candidate row and attempt metadata.
 * @example
 * const { raw, meta } = await runAgentTask({ runId, desc, attempt: 1, prompt, runtime, preflighted: new WeakSet() });
 */
export async function runAgentTask(input: AgentTaskInput): Promise<{ raw: unknown; meta: AgentAttemptMeta }> {
  const tally: Tally = { calls: 0 };
  // The calls made before the attempt failed were paid for all the same (agentSpendOf). An
  // attempt its timeout or a cancel cuts ends with its signal's reason before this call returns:
  // its spend is found by the signal.
  spentBy.set(input.runtime.signal, tally);
  try {
    return await runChain(input, tally);
  } catch (error) {
    if (typeof error === "object" && error !== null) spentBy.set(error, tally);
    throw error;
  }
}

/** What an agent attempt that failed had spent, by the error it failed with. */
export interface AgentSpend {
  calls: number;
  usage?: AgentUsage;
  costUsd?: number;
}

/** Each agent attempt's running tally, by the error it failed with and by its runtime's signal. */
const spentBy = new WeakMap<object, Tally>();

/**
 * The model calls (tokens, cost) of the agent attempt `error` (or an error it caused) ended, or
 * of the attempt whose runtime signal `error` is (one its timeout or a cancel cut: the calls
 * that had returned count their tokens): the engine records them as the attempt's meta, so a
 * run's and a workflow's cost count what failed and cancelled attempts spent. Undefined when no
 * call was made.
 * @example
 * const spent = agentSpendOf(error); // { calls: 4, usage: { inputTokens: 44, ... }, costUsd: 0.0001 }
 * const cut = agentSpendOf(runtime.signal); // the same, for an attempt its timeout ended
 */
export function agentSpendOf(error: unknown): AgentSpend | undefined {
  for (let e: unknown = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const spent = spentBy.get(e);
    if (spent?.calls) return { calls: spent.calls, ...(spent.usage ? { usage: { ...spent.usage } } : {}), ...(spent.costUsd !== undefined ? { costUsd: spent.costUsd } : {}) };
  }
  return undefined;
}

async function runChain(input: AgentTaskInput, tally: Tally): Promise<{ raw: unknown; meta: AgentAttemptMeta }> {
  const { desc, runtime } = input;
  const now = input.now ?? Date.now;
  const chain = Array.isArray(desc.agent) ? desc.agent : [desc.agent!];
  const started = now();
  const forkRef = desc.forkSource ? await input.lookupSession?.(desc.forkSource) : undefined;
  const retryRef = input.attempt > 1 ? await input.lookupSession?.(desc.nodeId) : undefined;
  const failures: NonNullable<AgentAttemptMeta["failover"]> = [];
  const errors: unknown[] = [];
  const quotaTimes: number[] = [];

  for (let index = 0; index < chain.length; index++) {
    const agent = chain[index]!;
    const blockedUntil = quotaUntil.get(agent);
    if (blockedUntil !== undefined && blockedUntil > now()) {
      quotaTimes.push(blockedUntil);
      failures.push({ agentId: agent.id ?? null, agentIndex: index, kind: "quota", code: "AGENT_QUOTA_EXCEEDED", message: `quota until ${new Date(blockedUntil).toISOString()}` });
      continue;
    }
    const base = baseOptions(input, agent);
    await preflightOnce(agent, base, input);
    let resume = sessionFor(agent, retryRef) ?? sessionFor(agent, forkRef);
    for (;;) {
      try {
        const answer = await generateValid(agent, index, { ...base, ...(resume ? { resumeSession: resume } : {}) }, input, tally);
        quotaUntil.delete(agent);
        const meta: AgentAttemptMeta = {
          agentId: agent.id ?? null,
          engine: agent.capabilities?.engine ?? null,
          sessionId: answer.sessionId ?? null,
          ...(answer.sessionDir ? { sessionDir: answer.sessionDir } : {}),
          agentIndex: index,
          latencyMs: now() - started,
          calls: tally.calls,
          schemaRetries: answer.schemaRetries,
          ...(answer.model ? { model: answer.model } : {}),
          ...(tally.usage ? { usage: tally.usage } : {}),
          ...(tally.costUsd !== undefined ? { costUsd: tally.costUsd } : {}),
          ...(failures.length ? { failover: failures } : {}),
        };
        return { raw: answer.raw, meta };
      } catch (error) {
        if (runtime.signal.aborted) throw runtime.signal.reason ?? error;
        const failure = classifyAgentError(error, now());
        if (failure.kind === "aborted") throw error;
        if (failure.kind === "session-lost" && resume) {
          resume = undefined; // the native session is gone: start a new one with the same agent
          continue;
        }
        if (failure.kind === "quota") {
          quotaUntil.set(agent, failure.retryAtMs!);
          quotaTimes.push(failure.retryAtMs!);
        }
        errors.push(error);
        failures.push({ agentId: agent.id ?? null, agentIndex: index, kind: failure.kind, ...(isFlowError(error) ? { code: error.code } : {}), message: messageOf(error) });
        break;
      }
    }
  }
  throw chainError(input, chain, failures, errors, quotaTimes);
}

function baseOptions(input: AgentTaskInput, agent: AgentLike): AgentGenerateOptions {
  const { desc, runtime } = input;
  const allowTools = desc.allowTools ?? (input.cliAgentToolsDefault === "explicit-only" ? [] : undefined);
  const beat = () => runtime.heartbeat();
  const native = agent.supportsNativeStructuredOutput === true;
  return {
    prompt: desc.outputSchema && !native ? withRequiredOutput(input.prompt, desc.outputSchema) : input.prompt,
    abortSignal: runtime.signal,
    ...(desc.outputSchema ? { outputSchema: desc.outputSchema } : {}),
    ...(desc.timeoutMs !== null ? { timeout: { totalMs: desc.timeoutMs } } : {}),
    ...(input.rootDir !== undefined ? { rootDir: input.rootDir } : {}),
    ...(input.maxOutputBytes !== undefined ? { maxOutputBytes: input.maxOutputBytes } : {}),
    ...(allowTools ? { allowTools } : {}),
    ...(input.toolCalls !== undefined ? { toolCalls: input.toolCalls } : {}),
    ...(input.extraTools && Object.keys(input.extraTools).length ? { tools: input.extraTools } : {}),
    retry: input.attempt > 1,
    isRetry: input.attempt > 1,
    retryAttempt: input.attempt - 1,
    taskContext: { runId: input.runId, nodeId: desc.nodeId, iteration: desc.iteration, attempt: input.attempt },
    onStdout: beat,
    onStderr: beat,
    onEvent: beat,
  };
}

async function preflightOnce(agent: AgentLike, options: AgentGenerateOptions, input: AgentTaskInput): Promise<void> {
  if (!agent.preflight || input.preflighted.has(agent)) return;
  try {
    await agent.preflight(options);
  } catch (cause) {
    throw new FlowError(
      "AGENT_PREFLIGHT_FAILED",
      `Agent ${agentName(agent)} preflight failed for task "${input.desc.nodeId}" (run ${input.runId}): ${messageOf(cause)}. Fix the agent's setup; the task is not retried.`,
      { nodeId: input.desc.nodeId, agentId: agent.id ?? null, ...(isFlowError(cause) ? { causeCode: cause.code } : {}) },
      { cause },
    );
  }
  input.preflighted.add(agent);
}

/** The session to resume for this agent: only a session the same agent (or engine) recorded. */
function sessionFor(agent: AgentLike, ref: AgentSessionRef | undefined): string | undefined {
  if (!ref?.sessionId) return undefined;
  const sameId = agent.id !== undefined && ref.agentId === agent.id;
  const sameEngine = agent.capabilities?.engine !== undefined && ref.engine === agent.capabilities.engine;
  return sameId || sameEngine ? ref.sessionId : undefined;
}

interface ValidAnswer {
  raw: unknown;
  sessionId?: string;
  sessionDir?: string;
  model?: string;
  schemaRetries: number;
}

interface Tally {
  usage?: AgentUsage;
  costUsd?: number;
  calls: number;
}

/** Adds `usage` and `cost` to what `tally` has spent. */
function addSpend(tally: Tally, usage: AgentUsage | undefined, cost: number | undefined): void {
  tally.usage = addUsage(tally.usage, usage);
  if (cost !== undefined) tally.costUsd = (tally.costUsd ?? 0) + cost;
}

/** One generate call, recorded in the attempt's transcript when there is one. */
async function generateOnce(agent: AgentLike, agentIndex: number, call: AgentGenerateOptions, input: AgentTaskInput, tally: Tally): Promise<unknown> {
  tally.calls++;
  const gen = input.transcript?.begin(agent, agentIndex, call);
  const listen = call.onEvent;
  // The steps that ended before the call failed (an SDK tool loop's) were paid for: a call that
  // fails reports no usage of its own, so theirs is what it spent.
  const stepped: Tally = { calls: 0 };
  const onEvent = (e: AgentEvent) => {
    if (e.type === "usage") addSpend(stepped, e.usage, costOf(e.model, e.usage, input.prices));
    listen?.(e);
    gen?.onEvent(e);
  };
  let result: unknown;
  try {
    result = await agent.generate(gen ? { ...call, onEvent } : call);
  } catch (error) {
    addSpend(tally, stepped.usage, stepped.costUsd);
    // A call its attempt's timeout or a cancel cut fails with whatever the SDK makes of the
    // aborted stream ("Failed to process successful response"): the transcript says why.
    const signal = input.runtime.signal;
    gen?.end({ ok: false, error: signal.aborted && signal.reason ? signal.reason : error });
    throw error;
  }
  const f = resultFields(result);
  addSpend(tally, f.usage, costOf(f.model, f.usage, input.prices));
  gen?.end({ ok: true, ...f, ...(f.sessionId || !call.resumeSession ? {} : { sessionId: call.resumeSession }) });
  return result;
}

/** One agent's answer, with schema correction calls until it validates or retries run out. */
async function generateValid(agent: AgentLike, agentIndex: number, options: AgentGenerateOptions, input: AgentTaskInput, tally: Tally): Promise<ValidAnswer> {
  const schema = input.desc.outputSchema as SchemaLike | undefined;
  const maxRetries = input.maxSchemaRetries ?? DEFAULT_MAX_SCHEMA_RETRIES;
  let messages: AgentMessage[] = [{ role: "user", content: options.prompt ?? "" }];
  let call = options;
  for (let retry = 0; ; retry++) {
    const result = await generateOnce(agent, agentIndex, call, input, tally);
    const fields = resultFields(result);
    const raw = extractAgentOutput(result);
    const problems = schema ? validate(schema, raw) : [];
    const sessionId = fields.sessionId ?? call.resumeSession;
    if (problems.length === 0) return { raw, schemaRetries: retry, ...(sessionId ? { sessionId } : {}), ...(fields.sessionDir ? { sessionDir: fields.sessionDir } : {}), ...(fields.model ? { model: fields.model } : {}) };
    if (retry >= maxRetries) {
      throw new FlowError(
        "TASK_OUTPUT_INVALID",
        `Agent ${agentName(agent)} gave no valid "${input.desc.outputTable}" row for task "${input.desc.nodeId}" after ${retry} correction(s): ${problems.join("; ")}`,
        { nodeId: input.desc.nodeId, agentId: agent.id ?? null, sessionId: sessionId ?? null, problems },
      );
    }
    const correction = correctionPrompt(problems, input.desc.outputSchema);
    messages = [...messages, { role: "assistant", content: fields.text ?? "" }, { role: "user", content: correction }];
    const { prompt: _prompt, resumeSession: _resume, ...rest } = options;
    // Resume the agent's own session when it has one (CLI agents keep their context there);
    // otherwise replay the conversation so far as messages.
    call = sessionId ? { ...rest, prompt: correction, resumeSession: sessionId, schemaRetry: retry + 1 } : { ...rest, messages, schemaRetry: retry + 1 };
  }
}

function validate(schema: SchemaLike, raw: unknown): string[] {
  if (raw === undefined) return ["no JSON object was found in the reply"];
  const parsed = schema.safeParse(raw);
  if (parsed.success) return [];
  return (parsed.error?.issues ?? []).map((i) => `${i.path.map(String).join(".") || "(row)"}: ${i.message}`);
}

function resultFields(result: unknown): { text?: string; sessionId?: string; sessionDir?: string; model?: string; provider?: string; finishReason?: string; usage?: AgentUsage } {
  if (!result || typeof result !== "object") return typeof result === "string" ? { text: result } : {};
  const r = result as Record<string, any>;
  const pick = (k: string) => {
    try {
      return r[k];
    } catch {
      return undefined;
    }
  };
  const text = pick("text");
  const sessionId = pick("sessionId");
  const sessionDir = pick("sessionDir");
  const model = pick("modelId") ?? pick("response")?.modelId;
  const usage = normalizeUsage(pick("totalUsage") ?? pick("usage"));
  const provider = pick("provider");
  const finishReason = pick("finishReason");
  return {
    ...(typeof provider === "string" ? { provider } : {}),
    ...(typeof finishReason === "string" ? { finishReason } : {}),
    ...(typeof text === "string" ? { text } : {}),
    ...(typeof sessionId === "string" ? { sessionId } : {}),
    ...(typeof sessionDir === "string" ? { sessionDir } : {}),
    ...(typeof model === "string" ? { model } : {}),
    ...(usage ? { usage } : {}),
  };
}

function chainError(input: AgentTaskInput, chain: AgentLike[], failures: NonNullable<AgentAttemptMeta["failover"]>, errors: unknown[], quotaTimes: number[]): FlowError {
  const nodeId = input.desc.nodeId;
  const agents = chain.map((a) => a.id ?? null);
  if (failures.length > 0 && failures.every((f) => f.kind === "quota")) {
    const retryAtMs = Math.min(...quotaTimes);
    return new FlowError(
      "AGENT_QUOTA_EXCEEDED",
      `Every agent of task "${nodeId}" (run ${input.runId}) hit a quota or rate limit; the run waits until ${new Date(retryAtMs).toISOString()} and continues by itself.`,
      { nodeId, agents, retryAtMs, failures },
    );
  }
  const last = errors[errors.length - 1];
  if (chain.length === 1 && isFlowError(last)) return last;
  const details = { nodeId, agents, failures, ...(isFlowError(last) ? last.details : {}) };
  const code = isFlowError(last) ? last.code : "AGENT_FAILED";
  const prefix = chain.length > 1 ? `All ${chain.length} agents of task "${nodeId}" failed; last: ` : `Agent ${agentName(chain[0]!)} failed on task "${nodeId}": `;
  return new FlowError(code, `${prefix}${messageOf(last)}`, details, { cause: last });
}

/**
 * How messages name an agent: its id; a CLI agent's default id (a random UUID) as its engine and
 * the id's first 8 characters ("claude-code bb8b6e95"); without an id, an SDK agent's model
 * (`ToolLoopSdkAgent.modelId`), else "(unnamed)".
 */
function agentName(agent: AgentLike): string {
  const engine = agent.capabilities?.engine;
  if (agent.id !== undefined && engine && UUID.test(agent.id)) return `${engine} ${agent.id.slice(0, 8)}`;
  const model = (agent as { modelId?: unknown }).modelId;
  return agent.id ?? (typeof model === "string" ? `(${model})` : "(unnamed)");
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
