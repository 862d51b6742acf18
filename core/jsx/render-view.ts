/**
 * @module core/jsx/render-view
 * What components may see of the engine's state while the tree renders, beyond FlowCtx:
 * whether a wait node was resolved and with what data (a Signal renders its children from
 * it), whether a Saga or TryCatchFinally scope failed, and a node's state. Kept off the public
 * FlowCtx type: only the built-in components read it. The engine attaches it to the render
 * context; it lives here, beside the renderer, so the components need not import the engine
 * (docs/architecture.md, "No cycles").
 */
import type { FlowErrorJson } from "../errors.js";
import { FlowError } from "../errors.js";
import type { NodeState } from "../engine/index.js";
import type { AspectTotals } from "../engine/internal.js";

export interface WaitData {
  resolved: boolean;
  value?: unknown;
}

/** A Saga or TryCatchFinally whose body failed: the error, and (sagas) the steps that had completed. */
export interface ScopeFailure {
  error: FlowErrorJson;
  completedSteps?: string[];
}

export interface RenderView {
  waitData(nodeId: string): WaitData;
  /** Tokens and latency of the finished tasks of an Aspects block. */
  aspectTotals(aspectsId: string): AspectTotals;
  /**
   * A warning of a component, logged once per `onceKey` (default: the message). A component whose
   * message carries a changing figure gives a stable key, so a re-render does not warn again.
   */
  warn(message: string, details?: Record<string, unknown>, onceKey?: string): void;
  scopeFailure(scopeId: string): ScopeFailure | undefined;
  nodeState(nodeId: string): NodeState | undefined;
}

const VIEW = Symbol.for("durable-flow.render-view");

/** Attaches the engine's view to a render context. */
export function attachRenderView(ctx: object, view: RenderView): void {
  Object.defineProperty(ctx, VIEW, { value: view, enumerable: false });
}

/** The engine's view from inside a component; throws outside a run. */
export function renderViewOf(ctx: unknown, what: string): RenderView {
  const view = (ctx as Record<symbol, RenderView | undefined>)?.[VIEW];
  if (!view) throw new FlowError("RENDER_FAILED", `${what} rendered outside a workflow run.`);
  return view;
}
