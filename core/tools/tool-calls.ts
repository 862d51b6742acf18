/**
 * @module core/tools/tool-calls
 * Tool calls inside a task attempt, and what makes them replay-safe (SPEC.md "Tool retry
 * behavior"; docs/tools.md "Retries and resumes"). The engine creates one factory per attempt:
 *
 *   attempt 1: factory({ attempt: 1, priorCalls: [] })    -> recordCall(write #1, key K)
 *   (crash or failure)
 *   attempt 2: factory({ attempt: 2, priorCalls: [K...] }) -> write #1 gets key K again and a
 *              warning "already called" because K is in priorCalls
 *
 * Every call of a `sideEffect` tool is recorded through `recordCall` before the tool runs (the
 * engine stores it durably with the attempt), so a crash mid-call still leaves the record.
 */
import { FlowError } from "../errors.js";
import { buildToolContext, type ToolAttemptScope } from "./tool-context.js";
import type { AnyTool, ToolContext, ToolMetadata } from "./types.js";

/**
 * The durable record of one call of a `sideEffect` tool.
 * @example
 * const record: ToolCallRecord = { toolName: "write", attempt: 1, seq: 2, idempotencyKey: key, sideEffect: true, idempotent: false };
 */
export interface ToolCallRecord {
  toolName: string;
  /** The attempt that made the call. */
  attempt: number;
  seq: number;
  idempotencyKey: string;
  sideEffect: boolean;
  idempotent: boolean;
}

/**
 * Options of `createToolContextFactory`: the attempt's scope plus its durable call record.
 * @example
 * const options: ToolContextFactoryOptions = { runId, nodeId: "fix", iteration: 0, attempt: 2, priorCalls, recordCall };
 */
export interface ToolContextFactoryOptions extends ToolAttemptScope {
  /** Calls that earlier attempts of this task and iteration recorded (any order). */
  priorCalls?: readonly ToolCallRecord[];
  /** Stores a call durably; awaited before the tool runs. A rejection fails the call. */
  recordCall?(call: ToolCallRecord): void | Promise<void>;
}

/**
 * The result of `factory.callTool`: the tool's output, and the retry warning if any.
 * @example
 * const { output, warning }: ToolCallResult<string> = await calls.callTool(write, args);
 */
export interface ToolCallResult<O = unknown> {
  output: O;
  /** Set when a `sideEffect && !idempotent` call repeats a call of an earlier attempt. */
  warning?: string;
}

/**
 * Makes the context of each tool call of one task attempt.
 * @example
 * const calls: ToolContextFactory = createToolContextFactory({ runId, nodeId: "fix", iteration: 0, attempt: 1 });
 */
export interface ToolContextFactory {
  /** The context for the next call of `tool` (advances `seq` and the tool's call count). */
  next(tool: ToolMetadata): ToolContext;
  /**
   * Records (when `sideEffect`), warns on a repeated non-idempotent call, and runs the tool.
   * Fields set in `given` (a partial context a task's code passed to `execute`) win over the
   * attempt's.
   */
  callTool<O>(tool: AnyTool, args: unknown, given?: Partial<ToolContext>): Promise<ToolCallResult<O>>;
  /** The calls recorded by this attempt so far. */
  readonly calls: readonly ToolCallRecord[];
  /**
   * A note for the agent's prompt on a retry: which `sideEffect && !idempotent` tools earlier
   * attempts already called. Undefined on a first attempt or when there were none.
   */
  readonly retryNotice: string | undefined;
}

/**
 * Creates the tool-context factory of one task attempt. See docs/tools.md for the engine hook.
 * @example
 * const tools = createToolContextFactory({ runId, nodeId: "fix", iteration: 0, attempt: 2, rootDir, priorCalls, recordCall: (c) => store.save(c) });
 * const { output, warning } = await tools.callTool(write, { path: "a.txt", content: "hi" });
 */
export function createToolContextFactory(options: ToolContextFactoryOptions): ToolContextFactory {
  let seq = 0;
  const perTool = new Map<string, number>();
  const calls: ToolCallRecord[] = [];
  const prior = options.priorCalls ?? [];
  const priorKeys = new Set(prior.filter((c) => c.attempt < options.attempt).map((c) => c.idempotencyKey));
  const warn = options.warn ?? ((message: string, details?: Record<string, unknown>) => console.warn(`[flow] ${message}`, details ?? ""));

  const next = (tool: ToolMetadata): ToolContext => {
    seq += 1;
    const ordinal = (perTool.get(tool.name) ?? 0) + 1;
    perTool.set(tool.name, ordinal);
    return buildToolContext(options, tool, seq, ordinal);
  };

  return {
    next,
    calls,
    retryNotice: retryNoticeOf(prior, options.attempt),
    async callTool<O>(tool: AnyTool, args: unknown, given?: Partial<ToolContext>): Promise<ToolCallResult<O>> {
      const ctx = given ? withGiven(next(tool), given) : next(tool);
      let warning: string | undefined;
      if (tool.sideEffect && !tool.idempotent && priorKeys.has(ctx.idempotencyKey)) {
        warning = `Tool "${tool.name}" was already called by an earlier attempt of task "${ctx.nodeId}" (run ${ctx.runId}, idempotency key ${ctx.idempotencyKey}); its effect may already have happened. Check before repeating it.`;
        warn(warning, { toolName: tool.name, nodeId: ctx.nodeId, attempt: ctx.attempt, idempotencyKey: ctx.idempotencyKey });
      }
      if (tool.sideEffect) {
        const record: ToolCallRecord = { toolName: tool.name, attempt: ctx.attempt, seq: ctx.seq, idempotencyKey: ctx.idempotencyKey, sideEffect: tool.sideEffect, idempotent: tool.idempotent };
        try {
          await options.recordCall?.(record);
        } catch (cause) {
          throw new FlowError("TASK_FAILED", `Could not record the call of tool "${tool.name}" for task "${ctx.nodeId}" (run ${ctx.runId}); the tool did not run.`, { toolName: tool.name, nodeId: ctx.nodeId }, { cause });
        }
        calls.push(record);
      }
      const output = (await tool.execute(args, ctx)) as O;
      return warning === undefined ? { output } : { output, warning };
    },
  };
}

/** The attempt's context with the fields a caller set (undefined ones keep the attempt's). */
function withGiven(ctx: ToolContext, given: Partial<ToolContext>): ToolContext {
  const out: Record<string, unknown> = { ...ctx };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) out[key] = value;
  return out as unknown as ToolContext;
}

/** The prompt note listing the non-idempotent side effects of earlier attempts. */
function retryNoticeOf(prior: readonly ToolCallRecord[], attempt: number): string | undefined {
  const repeats = prior.filter((c) => c.attempt < attempt && c.sideEffect && !c.idempotent);
  if (repeats.length === 0) return undefined;
  const counts = new Map<string, number>();
  for (const c of repeats) counts.set(c.toolName, (counts.get(c.toolName) ?? 0) + 1);
  const list = [...counts].map(([name, n]) => `"${name}" (${n} call${n === 1 ? "" : "s"})`).join(", ");
  return `Note: this is a retry. Earlier attempts of this task already called ${list}, which change the world and are not idempotent. Their effects may already be in place: check the current state before calling them again.`;
}
