/**
 * @module ui/views/run-detail/run-status-rules
 * Which action a run's status allows, and in words why not when it does not. Derived from the
 * engine's run table (`RUN_MOVES`, core/engine/status.ts) through the rule the Gateway checks
 * a stop with (`stopMoveOf`), so the buttons change when the table does:
 * - Cancel: the table moves the run to `cancelled` (a run that cannot be cancelled has ended);
 * - Pause: the table moves it to `paused` and a process executes it (a pause is asked of that
 *   process: `executingStatuses`, the statuses a run can finish from);
 * - Resume: a paused run the table moves back to `running`;
 * - retry a task, rewind: not while a process executes the run.
 */
import { executingStatuses, RUN_MOVES, type RunMoves, stopMoveOf } from "../../../core/engine/internal.js";
import type { GatewayRunRow } from "../../../core/data/index.js";

type Status = GatewayRunRow["status"];

/** A run-level action of the run page. */
export type RunAction = "cancel" | "pause" | "resume";

/** The rules of one run table. */
export interface RunStatusRules {
  isEnded(status: string): boolean;
  whyNot(action: RunAction, status: Status): string | undefined;
  whyNotRetry(nodeState: string, runStatus: string): string | undefined;
  whyNotRewind(runStatus: string): string | undefined;
}

/**
 * The rules a run table gives (the app uses the engine's, `RUN_MOVES`).
 * @example
 * runStatusRules(RUN_MOVES).whyNot("resume", "paused"); // undefined
 */
export function runStatusRules(moves: RunMoves): RunStatusRules {
  const executing = new Set<string>(executingStatuses(moves));
  const isEnded = (status: string) => stopMoveOf(status as Status, "cancel", moves) !== "move";
  const whyNot = (action: RunAction, status: Status): string | undefined => {
    if (action === "cancel") return isEnded(status) ? `The run already ended (${status}); there is nothing to cancel.` : undefined;
    if (action === "pause") {
      const move = stopMoveOf(status, "pause", moves);
      if (move === "already") return "The run is paused already.";
      if (move === "move" && executing.has(status)) return undefined;
      if (move === "move" && status.startsWith("waiting-")) return `The run is parked (${status}); nothing runs until what it waits on arrives.`;
      return `Only a running run can be paused; this one is ${status}.`;
    }
    return status === "paused" && moves.paused.includes("running") ? undefined : `Only a paused run can be resumed; this one is ${status}.`;
  };
  const whyNotRetry = (nodeState: string, runStatus: string): string | undefined => {
    if (nodeState !== "failed" && nodeState !== "cancelled") return `Only a failed or cancelled task can be retried; this one is ${nodeState}. Rewind to an attempt to run it again.`;
    if (executing.has(runStatus)) return "The run is executing; pause or cancel it first.";
    return undefined;
  };
  const whyNotRewind = (runStatus: string): string | undefined => (executing.has(runStatus) ? "The run is executing; pause or cancel it before rewinding." : undefined);
  return { isEnded, whyNot, whyNotRetry, whyNotRewind };
}

const RULES = runStatusRules(RUN_MOVES);

/**
 * True once the run can change no more by itself: the table no longer moves it to cancelled
 * (finished, failed, cancelled, continued).
 * @example
 * isEnded("failed"); // true
 */
export function isEnded(status: string): boolean {
  return RULES.isEnded(status);
}

/**
 * Why a run-level action is off for this status (undefined when it is allowed).
 * @example
 * whyNot("pause", "paused"); // "The run is paused already."
 */
export function whyNot(action: RunAction, status: Status): string | undefined {
  return RULES.whyNot(action, status);
}

/**
 * Why a task cannot be retried now (undefined when it can).
 * @example
 * whyNotRetry("failed", "running"); // "The run is executing; pause or cancel it first."
 */
export function whyNotRetry(nodeState: string, runStatus: string): string | undefined {
  return RULES.whyNotRetry(nodeState, runStatus);
}

/**
 * Why the run cannot be rewound now (undefined when it can).
 * @example
 * whyNotRewind("running"); // "The run is executing; pause or cancel it before rewinding."
 */
export function whyNotRewind(runStatus: string): string | undefined {
  return RULES.whyNotRewind(runStatus);
}
