/**
 * @module core/engine/status
 * The run lifecycle as one table of legal moves; anything else is an INVALID_TRANSITION.
 *
 *            ┌──────────── resume ─────────────┐
 *            v                                 │
 *   (new) ─> running ─┬─> finished             │
 *            │  ^     ├─> failed ──────────────┤
 *            │  │     ├─> cancelled ───────────┤
 *            │  │     ├─> paused ──────────────┤
 *            │  │     ├─> continued            │
 *            │  │     └─> waiting-* ───────────┘
 *            └──┘ (takeover of a dead owner's run)
 */
import { FlowError } from "../errors.js";
import type { RunStatus } from "./types.js";

const WAITING: RunStatus[] = ["waiting-approval", "waiting-event", "waiting-timer", "waiting-quota"];

const ALLOWED: Record<RunStatus, readonly RunStatus[]> = {
  running: ["running", "finished", "failed", "cancelled", "paused", "continued", ...WAITING],
  "waiting-approval": ["running", "cancelled"],
  "waiting-event": ["running", "cancelled"],
  "waiting-timer": ["running", "cancelled"],
  "waiting-quota": ["running", "cancelled"],
  paused: ["running", "cancelled"],
  failed: ["running"],
  cancelled: ["running"],
  // A finished run moves again only when a task of it is reset (retryTask, time travel).
  finished: ["running"],
  continued: [],
};

/** Every run status, in lifecycle order (for listing and validating a status filter). */
export const RUN_STATUSES: readonly RunStatus[] = Object.keys(ALLOWED) as RunStatus[];

/** Statuses a run never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["finished", "continued"]);

/** Throws INVALID_TRANSITION unless `from -> to` is in the table. */
export function assertTransition(runId: string, from: RunStatus, to: RunStatus): void {
  if (!ALLOWED[from]?.includes(to)) {
    throw new FlowError("INVALID_TRANSITION", `Run ${runId} cannot go from "${from}" to "${to}".`, { runId, from, to });
  }
}
