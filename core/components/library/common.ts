/**
 * @module core/components/library/common
 * What the library components (docs/components.md, "Library components") share: an agent or
 * a function as a step, a Task for such a step whose prompt is built when it starts (so it sees
 * the rows stored since the last render), the rows of a loop's current pass, and JSON for
 * prompts. Every library component is plain composition of Task, Loop, Parallel, Sequence,
 * Approval, HumanTask and Timer: durable, resumable and visible in frames like hand-written trees.
 */
import { type AgentLike, isAgentLike } from "../../agents/index.js";
import type { FlowCtx } from "../../engine/index.js";
import { passStartKey } from "../../protocol.js";
import { FlowError } from "../../errors.js";
import { createElement, type FlowElement, type FlowNode, useRenderCtx } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import type { OutputTarget, TaskRuntime } from "../types.js";

/** One agent, or a failover chain tried in order. */
export type AgentOrChain = AgentLike | AgentLike[];

/** A step done by an agent (prompted) or by a function (its result is the row). */
export type AgentOrFunction<Row = Record<string, unknown>> = AgentOrChain | ((task: TaskRuntime) => Row | Promise<Row>);

/** An output row as the library components read it. */
export type LibraryRow = Record<string, unknown> & { nodeId: string; iteration: number };

/** Task props a library component passes through to the tasks it creates. */
export interface StepTaskProps {
  continueOnFail?: boolean;
  timeoutMs?: number;
  heartbeatTimeoutMs?: number;
  retries?: number;
  label?: string;
  skipIf?: boolean;
  needsApproval?: boolean;
  noRetry?: boolean;
  meta?: Record<string, unknown>;
  dependsOn?: string[];
  scorers?: unknown;
}

/** True for an agent or a non-empty chain of agents. */
export function isAgentOrChain(value: unknown): value is AgentOrChain {
  return isAgentLike(value) || (Array.isArray(value) && value.length > 0 && value.every(isAgentLike));
}

/** The render context, for a library component (it must render inside a workflow). */
export function libraryCtx(component: string): FlowCtx {
  try {
    return useRenderCtx<FlowCtx>();
  } catch {
    throw new FlowError("RENDER_FAILED", `${component} rendered outside a workflow run; put it inside <Workflow>.`);
  }
}

/**
 * A Task for a step: an agent gets the prompt `prompt()` computed when the attempt starts; a
 * function is run and its result is the row.
 */
export function stepTask(id: string, output: OutputTarget, step: AgentOrFunction<unknown>, prompt: () => string, extra: StepTaskProps = {}): FlowElement {
  const props: Record<string, unknown> = { id, output, ...stripUndefined(extra) };
  if (typeof step === "function") props.children = (task: TaskRuntime) => step(task);
  else {
    props.agent = step;
    props.children = () => prompt();
  }
  return createElement(TAGS.task, props, id);
}

/** A Parallel group `id` of `children`, at most `maxConcurrency` at once when given. */
export function parallelGroup(id: string, maxConcurrency: number | undefined, children: FlowNode[]): FlowElement {
  return createElement(TAGS.parallel, { id, ...(maxConcurrency ? { maxConcurrency } : {}), children });
}

/** A node that fails the run with `code` when reached (after what precedes it in a sequence). */
export function failStep(id: string, code: string, message: string, details: Record<string, unknown> = {}): FlowElement {
  return createElement(TAGS.fail, { id, error: { code, message, details } }, id);
}

/**
 * The rows of `nodeId` stored in the current pass of loop `loopId`: all of them at top level;
 * in a nested loop, those from where its current pass began (nested-loops.ts). Oldest first.
 */
export function passRows(ctx: FlowCtx, loopId: string, table: OutputTarget, nodeId: string): LibraryRow[] {
  const start = (ctx.iterations as Record<string, number | undefined>)[passStartKey(loopId)] ?? 0;
  return (ctx.outputs(table as never) as unknown as LibraryRow[]).filter((r) => r.nodeId === nodeId && r.iteration >= start).sort((a, b) => a.iteration - b.iteration);
}

/** 0 for the first iteration of the current pass of loop `loopId` (nested-loops.ts), 1 for the next, ... */
export function passIndex(ctx: FlowCtx, loopId: string): number {
  const its = ctx.iterations as Record<string, number | undefined>;
  return (its[loopId] ?? 0) - (its[passStartKey(loopId)] ?? 0);
}

/** The row of `nodeId` at its latest iteration, read when called (not at render). */
export function latestRow(ctx: FlowCtx, table: OutputTarget, nodeId: string): LibraryRow | undefined {
  return ctx.latest(table as never, nodeId) as LibraryRow | undefined;
}

/** A row without its key columns, as JSON for a prompt. */
export function rowJson(row: Record<string, unknown> | undefined): string {
  if (!row) return "null";
  const { runId: _r, nodeId: _n, iteration: _i, ...fields } = row;
  return JSON.stringify(fields);
}

/** Requires a prop to be present, with a message naming the component. */
export function required<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new FlowError("RENDER_FAILED", `${what} is required.`);
  return value;
}

function stripUndefined(o: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out;
}
