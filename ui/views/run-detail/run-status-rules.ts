/**
 * @module ui/views/run-detail/run-status-rules
 * Which action a run's status allows, and in words why not when it does not. One place, so
 * the buttons and their reasons never disagree with what the Gateway accepts.
 */
import type { GatewayRunRow } from "../../../core/data/index.js";

const ENDED = new Set(["finished", "failed", "cancelled", "continued"]);

/**
 * True once the run can change no more by itself (finished, failed, cancelled, continued).
 * @example
 * isEnded("failed"); // true
 */
export function isEnded(status: string): boolean {
  return ENDED.has(status);
}

/**
 * Why a run-level action is off for this status (undefined when it is allowed).
 * @example
 * whyNot("pause", "paused"); // "The run is paused already."
 */
export function whyNot(action: "cancel" | "pause" | "resume", status: GatewayRunRow["status"]): string | undefined {
  if (action === "cancel") return isEnded(status) ? `The run already ended (${status}); there is nothing to cancel.` : undefined;
  if (action === "pause") {
    if (status === "running") return undefined;
    if (status === "paused") return "The run is paused already.";
    if (status.startsWith("waiting-")) return `The run is parked (${status}); nothing runs until what it waits on arrives.`;
    return `Only a running run can be paused; this one is ${status}.`;
  }
  return status === "paused" ? undefined : `Only a paused run can be resumed; this one is ${status}.`;
}

/**
 * Why a task cannot be retried now (undefined when it can).
 * @example
 * whyNotRetry("failed", "running"); // "The run is executing; pause or cancel it first."
 */
export function whyNotRetry(nodeState: string, runStatus: string): string | undefined {
  if (nodeState !== "failed" && nodeState !== "cancelled") return `Only a failed or cancelled task can be retried; this one is ${nodeState}. Rewind to an attempt to run it again.`;
  if (runStatus === "running") return "The run is executing; pause or cancel it first.";
  return undefined;
}

/**
 * Why the run cannot be rewound now (undefined when it can).
 * @example
 * whyNotRewind("running"); // "The run is executing; pause or cancel it before rewinding."
 */
export function whyNotRewind(runStatus: string): string | undefined {
  return runStatus === "running" ? "The run is executing; pause or cancel it before rewinding." : undefined;
}
