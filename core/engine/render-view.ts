/**
 * @module core/engine/waits/render-data
 * Lets a component see, while the tree renders, whether a wait node was resolved and with
 * what data (a Signal renders its children from it). Kept off the public FlowCtx type.
 */
import { FlowError } from "../../errors.js";

export interface WaitData {
  resolved: boolean;
  value?: unknown;
}

const WAIT_DATA = Symbol.for("durable-flow.wait-data");

/** Attaches the lookup to a render context. */
export function attachWaitData(ctx: object, lookup: (nodeId: string) => WaitData): void {
  Object.defineProperty(ctx, WAIT_DATA, { value: lookup, enumerable: false });
}

/** The resolution of the wait node `nodeId` as seen by this render. */
export function waitDataOf(ctx: unknown, nodeId: string): WaitData {
  const lookup = (ctx as Record<symbol, ((id: string) => WaitData) | undefined>)?.[WAIT_DATA];
  if (!lookup) throw new FlowError("RENDER_FAILED", `Signal "${nodeId}" rendered outside a workflow run.`, { nodeId });
  return lookup(nodeId);
}
