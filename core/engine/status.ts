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
 *
 *   any but continued ── time travel ──> paused (reason "rewind": waits for a person)
 *
 * waiting-quota is the exception among the waits: the process keeps the run (its quota retry
 * timer runs there), so it ends as a running run does.
 *
 * Every change of a run's status is written by `statusChange` (core/engine/run-sql.ts), which
 * checks this table first; core/engine/status-writes.test.ts fails on a status written elsewhere.
 */
import { FlowError } from "../errors.js";
import type { RunStatus } from "./types.js";

const WAITING: RunStatus[] = ["waiting-approval", "waiting-event", "waiting-timer", "waiting-quota"];

const FROM_RUNNING: RunStatus[] = ["running", "finished", "failed", "cancelled", "paused", "continued", ...WAITING];

const ALLOWED: Record<RunStatus, readonly RunStatus[]> = {
  running: FROM_RUNNING,
  "waiting-approval": ["running", "cancelled", "paused"],
  "waiting-event": ["running", "cancelled", "paused"],
  "waiting-timer": ["running", "cancelled", "paused"],
  "waiting-quota": FROM_RUNNING,
  paused: ["running", "cancelled", "paused"],
  failed: ["running", "paused"],
  cancelled: ["running", "paused"],
  // A finished run moves again only when a task of it is reset: retryTask (-> running) or
  // time travel (-> paused, waiting for a person to resume it; so from every status).
  finished: ["running", "paused"],
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
