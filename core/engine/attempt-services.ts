/**
 * @module core/engine/attempt-services
 * What a task attempt gets from its run: the tool-context factory (with the side-effecting
 * calls of earlier attempts still in place, for the retry warning), current around the task's
 * own code so the tools it calls are bound to the attempt; and for agents the session of
 * earlier attempts (retries and `fork` resume it), task memory (recalled into the prompt,
 * retained on completion) and live scoring after each finished attempt. Everything here is
 * best-effort around the task except recording tool calls, which is durable before the tool
 * runs.
 */
import { TABLES } from "../protocol.js";
import type { AgentSessionRef, AgentTaskInput } from "../agents/index.js";
import { AttemptTranscript, type TranscriptSink } from "../agents/index.js";
import { memoryEngineOf, prepareTaskMemory, retainTaskMemory } from "../memory/index.js";
import { scoreAttempt } from "../scorers/index.js";
import { effectKey, settledEffectKeys } from "./travel/intent.js";
import type { CurrentAttempt } from "../tools/index.js";
import { createToolContextFactory, type ToolCallRecord, type ToolContextFactory } from "../tools/index.js";
import type { StoreBinding } from "../binding.js";
import type { RunOptions, TaskDescriptor } from "./types.js";

export interface AttemptScope {
  runId: string;
  desc: TaskDescriptor;
  attempt: number;
  rootDir: string;
  signal: AbortSignal;
}

export class AttemptServices {
  private readonly pendingScores = new Set<Promise<unknown>>();

  constructor(
    private readonly binding: StoreBinding,
    private readonly opts: RunOptions,
    private readonly transcripts?: TranscriptSink,
  ) {}

  /**
   * The attempt as tools see it: its tool-context factory, made on the first call (a task that
   * calls no tool costs nothing) and shared by the task's code and its agent.
   */
  attemptOf(scope: AttemptScope): CurrentAttempt {
    let made: Promise<ToolContextFactory> | undefined;
    return { toolCalls: () => (made ??= this.toolCallsOf(scope)) };
  }

  /** Runs a task's own code with its attempt current, so the tools it calls are bound to it. */
  runTaskCode<T>(attempt: CurrentAttempt, code: () => T): T {
    const port = this.binding.env.attemptContext;
    return port ? port.run(attempt, code) : code();
  }

  /** The extra inputs of `runAgentTask` for one attempt, and the prompt with memory and the retry notice. */
  async forAgent(scope: AttemptScope, current: CurrentAttempt, prompt: string): Promise<{ extras: Partial<AgentTaskInput>; prompt: string }> {
    const { env } = this.binding;
    const { runId, desc, attempt } = scope;
    const toolCalls = await current.toolCalls();
    let full = toolCalls.retryNotice ? `${toolCalls.retryNotice}\n\n${prompt}` : prompt;
    let memoryTools: Record<string, unknown> = {};
    if (desc.memoryConfig) {
      const memory = await prepareTaskMemory(memoryEngineOf(this.binding), desc.memoryConfig, full, { runId, nodeId: desc.nodeId, iteration: desc.iteration, warn: env.warn });
      full = memory.prompt;
      memoryTools = memory.tools;
    }
    return {
      prompt: full,
      extras: {
        now: () => env.clock.now(),
        rootDir: scope.rootDir,
        maxOutputBytes: this.opts.maxOutputBytes ?? 200_000,
        ...(this.opts.cliAgentToolsDefault ? { cliAgentToolsDefault: this.opts.cliAgentToolsDefault } : {}),
        toolCalls,
        extraTools: memoryTools,
        lookupSession: (nodeId) => this.lookupSession(runId, nodeId),
        ...(this.opts.prices ? { prices: this.opts.prices } : {}),
        ...(this.transcripts
          ? {
              transcript: new AttemptTranscript({
                nodeId: desc.nodeId,
                iteration: desc.iteration,
                attempt,
                sink: this.transcripts,
                now: () => env.clock.now(),
                maxBytes: this.opts.maxOutputBytes ?? 200_000,
                ...(this.opts.prices ? { prices: this.opts.prices } : {}),
              }),
            }
          : {}),
      },
    };
  }

  /**
   * The tool-context factory of one attempt: the side-effecting calls of earlier attempts (for
   * the retry warning) without those a time travel reverted, since their effects are gone; each
   * call journaled in `_flow_tool_calls` before it runs.
   */
  private async toolCallsOf(scope: AttemptScope): Promise<ToolContextFactory> {
    const { store, env } = this.binding;
    const { runId, desc, attempt } = scope;
    const prior = attempt > 1 ? await this.priorCalls(runId, desc, attempt) : [];
    return createToolContextFactory({
      runId,
      nodeId: desc.nodeId,
      iteration: desc.iteration,
      attempt,
      rootDir: scope.rootDir,
      allowNetwork: this.opts.allowNetwork ?? false,
      maxOutputBytes: this.opts.maxOutputBytes ?? 200_000,
      timeoutMs: this.opts.toolTimeoutMs ?? 60_000,
      signal: scope.signal,
      warn: env.warn,
      priorCalls: prior,
      recordCall: async (c: ToolCallRecord) => {
        await store.execute(
          `INSERT INTO ${TABLES.toolCalls} (run_id, node_id, iteration, attempt, seq, tool_name, idempotency_key, side_effect, idempotent, called_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
          [runId, desc.nodeId, desc.iteration, c.attempt, c.seq, c.toolName, c.idempotencyKey, c.sideEffect, c.idempotent, env.clock.now()],
        );
      },
    });
  }

  /** Calls of earlier attempts of the task iteration whose effects are still in place. */
  private async priorCalls(runId: string, desc: TaskDescriptor, attempt: number): Promise<ToolCallRecord[]> {
    const [rows, reverted] = await Promise.all([
      this.binding.store.query<Record<string, unknown>>(
        `SELECT attempt, seq, tool_name, idempotency_key, side_effect, idempotent FROM ${TABLES.toolCalls} WHERE run_id = ? AND node_id = ? AND iteration = ? AND attempt < ?`,
        [runId, desc.nodeId, desc.iteration, attempt],
      ),
      settledEffectKeys(this.binding, runId, ["reverted"]),
    ]);
    return rows
      .map((r) => ({
        attempt: Number(r.attempt),
        seq: Number(r.seq),
        toolName: String(r.tool_name),
        idempotencyKey: String(r.idempotency_key),
        sideEffect: r.side_effect === true || r.side_effect === 1,
        idempotent: r.idempotent === true || r.idempotent === 1,
      }))
      .filter((c) => !reverted.has(effectKey({ nodeId: desc.nodeId, iteration: desc.iteration, attempt: c.attempt, seq: c.seq })));
  }

  /** After a finished attempt: retain task memory and grade it (never fails the task). */
  afterSuccess(scope: Omit<AttemptScope, "signal" | "rootDir">, io: { input: unknown; output: Record<string, unknown>; latencyMs: number }): void {
    const { desc, runId, attempt } = scope;
    const { env, store } = this.binding;
    const work: Promise<unknown>[] = [];
    if (desc.memoryConfig) {
      work.push(
        retainTaskMemory(memoryEngineOf(this.binding), desc.memoryConfig, { prompt: typeof io.input === "string" ? io.input : JSON.stringify(io.input ?? null), output: io.output }, { runId, nodeId: desc.nodeId, iteration: desc.iteration, warn: env.warn }),
      );
    }
    if (desc.scorers) {
      work.push(
        scoreAttempt(
          { store, clock: env.clock, warn: env.warn },
          { runId, nodeId: desc.nodeId, iteration: desc.iteration, attempt, input: io.input, output: io.output, latencyMs: io.latencyMs, ...(desc.outputSchema ? { outputSchema: desc.outputSchema } : {}), scorers: desc.scorers },
        ),
      );
    }
    for (const p of work) {
      const tracked = p.catch((error: unknown) => env.warn(`After-task work of "${desc.nodeId}" failed: ${String(error)}`)).finally(() => this.pendingScores.delete(tracked));
      this.pendingScores.add(tracked);
    }
  }

  /** Waits for scoring and retention still running (before the run reports its end). */
  async settle(): Promise<void> {
    while (this.pendingScores.size) await Promise.all([...this.pendingScores]);
  }

  private async lookupSession(runId: string, nodeId: string): Promise<AgentSessionRef | undefined> {
    const rows = await this.binding.store.query<{ meta_json: string | null; error_json: string | null }>(
      // Settled attempts only: the attempt asking is already recorded, in progress, without a session.
      `SELECT meta_json, error_json FROM ${TABLES.attempts} WHERE run_id = ? AND node_id = ? AND state <> 'in-progress' ORDER BY started_at_ms DESC, attempt DESC LIMIT 1`,
      [runId, nodeId],
    );
    const row = rows[0];
    if (!row) return undefined;
    // A finished attempt's meta names its session; a failed one's names it in its error (its meta
    // holds only what it spent).
    const meta = row.meta_json ? (JSON.parse(row.meta_json) as Record<string, unknown>) : {};
    const source = typeof meta.sessionId === "string" ? meta : row.error_json ? ((JSON.parse(row.error_json) as { details?: Record<string, unknown> }).details ?? {}) : {};
    if (typeof source.sessionId !== "string") return undefined;
    return {
      sessionId: source.sessionId,
      ...(typeof source.agentId === "string" ? { agentId: source.agentId } : {}),
      ...(typeof source.engine === "string" ? { engine: source.engine } : {}),
    };
  }
}
