/**
 * @module core/components/library/aspects
 * Aspects: cross-cutting limits on the tasks inside it, a token budget and a latency SLO,
 * checked at every render from the finished attempts' usage (agents report tokens; latency is
 * an attempt's duration). See docs/components.md, "Aspects".
 */
import type { AspectTotals } from "../../engine/internal.js";
import { renderViewOf } from "../../jsx/index.js";
import { createElement, type FlowNode, useRenderCtx } from "../../jsx/index.js";
import { TAGS } from "../../protocol.js";
import { failStep } from "./common.js";

export interface AspectsProps {
  /** Default `aspects`; give each block of a workflow its own (beyond SPEC.md). */
  id?: string;
  /** Tokens the tasks inside may use in all (`max`) and each (`perTask`). `onExceeded`: `fail` (default), `warn`, or `skip-remaining` (tasks not started yet are dropped). */
  tokenBudget?: { max: number; perTask?: number; onExceeded?: "fail" | "warn" | "skip-remaining" };
  /** Milliseconds the finished attempts may take in all (`maxMs`) and each (`perTask`). `onExceeded`: `fail` (default) or `warn`. */
  latencySlo?: { maxMs: number; perTask?: number; onExceeded?: "fail" | "warn" };
  /** Show the totals on the block in frames (`tokens`, `latencyMs` props). */
  tracking?: { tokens?: boolean; latency?: boolean };
  children?: FlowNode;
}

/**
 * Which limit the totals exceed, if any.
 * @example
 * exceededLimit({ tokens: 200, maxTaskTokens: 100, latencyMs: 0, maxTaskLatencyMs: 0, tasks: 2 }, { tokenBudget: { max: 150 } }); // { kind: "tokens", used: 200, limit: 150, onExceeded: "fail" }
 */
export function exceededLimit(t: AspectTotals, props: AspectsProps): { kind: "tokens" | "latency"; used: number; limit: number; onExceeded: "fail" | "warn" | "skip-remaining" } | undefined {
  const b = props.tokenBudget;
  if (b) {
    const onExceeded = b.onExceeded ?? "fail";
    if (t.tokens > b.max) return { kind: "tokens", used: t.tokens, limit: b.max, onExceeded };
    if (b.perTask !== undefined && t.maxTaskTokens > b.perTask) return { kind: "tokens", used: t.maxTaskTokens, limit: b.perTask, onExceeded };
  }
  const s = props.latencySlo;
  if (s) {
    const onExceeded = s.onExceeded ?? "fail";
    if (t.latencyMs > s.maxMs) return { kind: "latency", used: t.latencyMs, limit: s.maxMs, onExceeded };
    if (s.perTask !== undefined && t.maxTaskLatencyMs > s.perTask) return { kind: "latency", used: t.maxTaskLatencyMs, limit: s.perTask, onExceeded };
  }
  return undefined;
}

/**
 * Runs its children under a token budget and a latency SLO. Exceeded with `fail`, the run fails
 * with ASPECT_LIMIT_EXCEEDED (after the running tasks finish); with `skip-remaining`, tasks not
 * started yet are dropped (cancelled) and the run goes on; with `warn`, a warning is logged once.
 * @example
 * <Aspects id="research" tokenBudget={{ max: 200_000, perTask: 50_000, onExceeded: "skip-remaining" }} latencySlo={{ maxMs: 600_000, onExceeded: "warn" }} tracking={{ tokens: true }}>
 *   <Task id="search" agent={searcher} output={outputs.notes}>Find sources</Task>
 * </Aspects>
 */
export function Aspects(props: AspectsProps): FlowNode {
  const id = props.id ?? "aspects";
  const view = renderViewOf(useRenderCtx(), `Aspects "${id}"`);
  const totals = view.aspectTotals(id);
  const over = exceededLimit(totals, props);
  const shown: Record<string, unknown> = { id };
  if (props.tracking?.tokens) shown.tokens = totals.tokens;
  if (props.tracking?.latency) shown.latencyMs = totals.latencyMs;
  let children: FlowNode = props.children;
  if (over) {
    const message = `Aspects "${id}" exceeded its ${over.kind === "tokens" ? "token budget" : "latency SLO"}: ${over.used} > ${over.limit}`;
    shown.exceeded = over.kind;
    // Once per block and limit: the figures in the message grow as tasks finish.
    if (over.onExceeded === "warn") view.warn(message, { aspectsId: id, kind: over.kind, used: over.used, limit: over.limit }, `aspects:${id}:${over.kind}`);
    else if (over.onExceeded === "skip-remaining") children = null;
    else children = failStep(`${id}:exceeded`, "ASPECT_LIMIT_EXCEEDED", `${message}; raise the limit or use onExceeded "skip-remaining" or "warn".`, { aspectsId: id, kind: over.kind, used: over.used, limit: over.limit });
  }
  return createElement(TAGS.aspects, { ...shown, children });
}
