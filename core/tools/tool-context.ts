/**
 * @module core/tools/tool-context
 * How a `ToolContext` is made (docs/tools.md "Tool context"). The engine builds one factory per
 * task attempt with `createToolContextFactory`; each call of a tool gets the next context. The
 * idempotency key is a hash of (runId, nodeId, iteration, tool name, n) where n counts the calls
 * of that tool in the attempt, so the n-th call of a tool has the same key in every attempt.
 * (Counting per tool, not with the attempt-wide `seq`, keeps keys stable when a retry
 * interleaves read-only calls differently.)
 */
import { sha256Hex, stableStringify } from "../util/index.js";
import { TOOL_DEFAULTS, type ToolContext, type ToolMetadata } from "./types.js";

/**
 * Where the engine snapshots the working copy before an effect (`ctx.durabilitySnapshot`).
 * @example
 * const durability: ToolDurabilityHandle = { snapshot: (req) => vcs.commit(`before ${req.name}`) };
 */
export interface ToolDurabilityHandle {
  snapshot(request: ToolSnapshotRequest): unknown;
}

/**
 * What `ctx.durabilitySnapshot(name, toolUseId)` hands the engine.
 * @example
 * snapshot(req: ToolSnapshotRequest) { log(req.runId, req.nodeId, req.toolName, req.name); }
 */
export interface ToolSnapshotRequest {
  name: string;
  toolUseId: string;
  toolName: string;
  runId: string;
  nodeId: string;
  iteration: number;
  attempt: number;
  seq: number;
  idempotencyKey: string;
}

/**
 * The fields of a context that are the same for every call of one task attempt.
 * @example
 * const scope: ToolAttemptScope = { runId, nodeId: "fix", iteration: 0, attempt: 1, rootDir: "/work/repo" };
 */
export interface ToolAttemptScope {
  runId: string;
  nodeId: string;
  iteration: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** Default: the process working directory (`/` where there is none). */
  rootDir?: string;
  allowNetwork?: boolean;
  maxOutputBytes?: number;
  /** Default 60000; capped at one hour. */
  timeoutMs?: number;
  signal?: AbortSignal;
  durability?: ToolDurabilityHandle;
  /** Where a failed snapshot is reported (default `console.warn`). */
  warn?: (message: string, details?: Record<string, unknown>) => void;
}

/**
 * The idempotency key of the `ordinal`-th call (1-based) of `toolName` in a task iteration.
 * @example
 * toolIdempotencyKey({ runId: "r1", nodeId: "fix", iteration: 0 }, "write", 1); // 64 hex chars, same in every attempt
 */
export function toolIdempotencyKey(scope: { runId: string; nodeId: string; iteration: number }, toolName: string, ordinal: number): string {
  return sha256Hex(stableStringify(["flow.tool", scope.runId, scope.nodeId, scope.iteration, toolName, ordinal]));
}

/** The working directory of the host process, or `/` where there is none (browser). */
export function defaultRootDir(): string {
  const proc = (globalThis as { process?: { cwd?: () => string } }).process;
  return typeof proc?.cwd === "function" ? proc.cwd() : "/";
}

/** Builds the context of one call: `seq` and `ordinal` are counted by the caller. */
export function buildToolContext(scope: ToolAttemptScope, tool: ToolMetadata, seq: number, ordinal: number): ToolContext {
  const idempotencyKey = toolIdempotencyKey(scope, tool.name, ordinal);
  const warn = scope.warn ?? ((message: string, details?: Record<string, unknown>) => console.warn(`[flow] ${message}`, details ?? ""));
  const ctx: ToolContext = {
    idempotencyKey,
    toolName: tool.name,
    sideEffect: tool.sideEffect,
    idempotent: tool.idempotent,
    runId: scope.runId,
    nodeId: scope.nodeId,
    iteration: scope.iteration,
    attempt: scope.attempt,
    seq,
    rootDir: scope.rootDir ?? defaultRootDir(),
    allowNetwork: scope.allowNetwork ?? TOOL_DEFAULTS.allowNetwork,
    maxOutputBytes: scope.maxOutputBytes ?? TOOL_DEFAULTS.maxOutputBytes,
    timeoutMs: Math.min(scope.timeoutMs ?? TOOL_DEFAULTS.timeoutMs, TOOL_DEFAULTS.maxTimeoutMs),
    async durabilitySnapshot(name, toolUseId) {
      if (!scope.durability) return;
      const request: ToolSnapshotRequest = { name, toolUseId, toolName: tool.name, runId: scope.runId, nodeId: scope.nodeId, iteration: scope.iteration, attempt: scope.attempt, seq, idempotencyKey };
      try {
        await scope.durability.snapshot(request);
      } catch (error) {
        // SPEC: snapshot failures never fail the tool.
        warn(`Durability snapshot "${name}" of tool "${tool.name}" failed (task "${scope.nodeId}", run ${scope.runId}); the tool goes on.`, { error: String((error as Error)?.message ?? error) });
      }
    },
  };
  if (scope.signal) ctx.signal = scope.signal;
  return ctx;
}

/**
 * Completes a partial context given to `tool.execute(args, ctx)` outside a run: missing fields
 * get their defaults (empty run and node ids, iteration 0, attempt 1, seq 1).
 */
export function completeToolContext(tool: ToolMetadata, partial: Partial<ToolContext> | undefined): ToolContext {
  if (partial && isCompleteContext(partial, tool)) return partial;
  const scope: ToolAttemptScope = {
    runId: partial?.runId ?? "",
    nodeId: partial?.nodeId ?? "",
    iteration: partial?.iteration ?? 0,
    attempt: partial?.attempt ?? 1,
  };
  if (partial?.rootDir !== undefined) scope.rootDir = partial.rootDir;
  if (partial?.allowNetwork !== undefined) scope.allowNetwork = partial.allowNetwork;
  if (partial?.maxOutputBytes !== undefined) scope.maxOutputBytes = partial.maxOutputBytes;
  if (partial?.timeoutMs !== undefined) scope.timeoutMs = partial.timeoutMs;
  if (partial?.signal !== undefined) scope.signal = partial.signal;
  const seq = partial?.seq ?? 1;
  const ctx = buildToolContext(scope, tool, seq, seq);
  if (partial?.idempotencyKey !== undefined) ctx.idempotencyKey = partial.idempotencyKey;
  if (partial?.durabilitySnapshot !== undefined) ctx.durabilitySnapshot = partial.durabilitySnapshot;
  return ctx;
}

/** Whether `ctx` is a context made for `tool` (by a factory or `completeToolContext`), used as it is. */
export function isCompleteContext(ctx: Partial<ToolContext>, tool: ToolMetadata): ctx is ToolContext {
  return (
    ctx.toolName === tool.name &&
    typeof ctx.idempotencyKey === "string" &&
    typeof ctx.rootDir === "string" &&
    typeof ctx.maxOutputBytes === "number" &&
    typeof ctx.timeoutMs === "number" &&
    typeof ctx.durabilitySnapshot === "function"
  );
}
