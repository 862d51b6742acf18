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
 *
 * A task's (node's) state has its own table, below the run's; `nodeChange` (run-sql.ts) writes
 * every node row and checks it first:
 *
 *   (new) ─> pending ─┬─> in-progress ─┬─> finished
 *   (new) ─> finished │                ├─> failed
 *                     │                ├─> cancelled
 *                     │                └─> pending (a retry, a quota wait)
 *                     ├─> waiting-* ──> in-progress (a gate passed), finished, skipped, failed, cancelled
 *                     └─> finished (cache hit, settled wait), skipped, failed (failWith), cancelled
 *
 *   any ── reset (resume, retryTask, time travel) ──> pending
 *
 * A finished, failed or skipped task moves again only by a reset. A cancelled one that is in
 * the tree again in the same session (it left it, then came back) is scheduled as a pending
 * one is, so it moves as pending does.
 */
import { FlowError } from "../errors.js";
import type { NodeState, RunStatus } from "./types.js";

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

/**
 * A run table: for each status, the statuses a run may move to from it.
 * @example
 * const moves: RunMoves = RUN_MOVES;
 */
export type RunMoves = Readonly<Record<RunStatus, readonly RunStatus[]>>;

/**
 * The run lifecycle table drawn above, read-only: what a console derives the actions it offers
 * from (ui/views/run-detail/run-status-rules.ts), so they change with it.
 * @example
 * RUN_MOVES.paused.includes("running"); // true: a paused run can be resumed
 */
export const RUN_MOVES: RunMoves = Object.freeze(ALLOWED);

/** Every run status, in lifecycle order (for listing and validating a status filter). */
export const RUN_STATUSES: readonly RunStatus[] = Object.keys(ALLOWED) as RunStatus[];

/**
 * The statuses in which a process executes a run: those it can finish from (a run finishes
 * only while a process executes it): `running`, and `waiting-quota`, whose process keeps it.
 * @example
 * executingStatuses(); // ["running", "waiting-quota"]
 */
export function executingStatuses(moves: RunMoves = RUN_MOVES): RunStatus[] {
  return (Object.keys(moves) as RunStatus[]).filter((from) => moves[from].includes("finished"));
}

/** The statuses in which a process executes a run, from the table: `running`, `waiting-quota`. */
export const EXECUTING_STATUSES: readonly RunStatus[] = executingStatuses();

/**
 * Whether a process executes a run in `status` (EXECUTING_STATUSES): its owner keeps it, and
 * another process asks that owner rather than taking the run.
 * @example
 * isExecuting("waiting-quota"); // true: its quota retry timer runs in its process
 */
export function isExecuting(status: string): boolean {
  return (EXECUTING_STATUSES as readonly string[]).includes(status);
}

/** Statuses a run never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<RunStatus> = new Set(["finished", "continued"]);

/** What another process, a person or a console may ask of a run: cancel it or pause it. */
export type RunStopRequest = "cancel" | "pause";

const STOPPED: Record<RunStopRequest, RunStatus> = { cancel: "cancelled", pause: "paused" };

/**
 * Checks a request to stop a run in status `from` against the table (stopRun, the cancelRun
 * RPC): true when the run already is where the request leads (answered as it is, nothing
 * written); INVALID_TRANSITION when the table has no move there (an ended run: there is
 * nothing to stop); else false (the stop goes on).
 * @example
 * checkStop("r1", "cancelled", "cancel"); // true
 * checkStop("r1", "finished", "cancel"); // throws INVALID_TRANSITION
 */
export function checkStop(runId: string, from: RunStatus, request: RunStopRequest): boolean {
  const move = stopMoveOf(from, request);
  if (move === "none") {
    throw new FlowError("INVALID_TRANSITION", `Run ${runId} already ended (status ${from}); there is nothing to ${request}.`, { runId, status: from, from, to: STOPPED[request] });
  }
  return move === "already";
}

/**
 * Where a stop request from `from` stands in a run table (`checkStop`'s rule, which a console
 * offers its Cancel and Pause by): `already` (the run is where it leads), `none` (the table
 * has no move there: the run ended), else `move`.
 * @example
 * stopMoveOf("finished", "cancel"); // "none"
 */
export function stopMoveOf(from: RunStatus, request: RunStopRequest, moves: RunMoves = RUN_MOVES): "already" | "none" | "move" {
  const to = STOPPED[request];
  if (from === to) return "already";
  return moves[from]?.includes(to) ? "move" : "none";
}

/**
 * A node's state as a console shows it: a task still `pending` once its run ended (finished,
 * failed, cancelled, continued: the table no longer moves it to `cancelled`) reads `not run`,
 * since nothing runs it unless the run is resumed, retried or rewound; every other state as it is.
 * @example
 * shownNodeState("pending", "cancelled"); // "not run"
 * shownNodeState("pending", "waiting-approval"); // "pending"
 */
export function shownNodeState(nodeState: string, runStatus: string): string {
  return nodeState === "pending" && stopMoveOf(runStatus as RunStatus, "cancel") !== "move" ? "not run" : nodeState;
}

/** Throws INVALID_TRANSITION unless `from -> to` is in the table. */
export function assertTransition(runId: string, from: RunStatus, to: RunStatus): void {
  if (!ALLOWED[from]?.includes(to)) {
    throw new FlowError("INVALID_TRANSITION", `Run ${runId} cannot go from "${from}" to "${to}".`, { runId, from, to });
  }
}

const NODE_WAITING: NodeState[] = ["waiting-approval", "waiting-event", "waiting-timer"];

/** Where a task that waits goes: on (its gate passed, or settled), or it ends; a reset makes it pending. */
const FROM_NODE_WAITING: NodeState[] = ["pending", "in-progress", "finished", "skipped", "failed", "cancelled", ...NODE_WAITING];

const NODE_ALLOWED: Record<NodeState, readonly NodeState[]> = {
  pending: ["pending", "in-progress", "finished", "skipped", "failed", "cancelled", ...NODE_WAITING],
  "in-progress": ["pending", "finished", "failed", "cancelled"],
  "waiting-approval": FROM_NODE_WAITING,
  "waiting-event": FROM_NODE_WAITING,
  "waiting-timer": FROM_NODE_WAITING,
  finished: ["pending"],
  failed: ["pending"],
  skipped: ["pending"],
  // Scheduled again when it is back in the tree (the session does not reset it first).
  cancelled: ["pending", "in-progress", "finished", "skipped", "failed", ...NODE_WAITING],
};

/** Every node (task) state, in lifecycle order. */
export const NODE_STATES: readonly NodeState[] = Object.keys(NODE_ALLOWED) as NodeState[];

/** The states a node row is first written with: pending (rendered), finished (a seeded or carried output). */
const NODE_FIRST: readonly NodeState[] = ["pending", "finished"];

/** A node of a run, as errors name it. */
export interface NodeRef {
  runId: string;
  nodeId: string;
  iteration: number;
}

/**
 * Throws INVALID_TRANSITION unless a node may go `from -> to` (`from` null: the row is new).
 * @example
 * assertNodeTransition({ runId: "r1", nodeId: "a", iteration: 0 }, "finished", "failed"); // throws
 */
export function assertNodeTransition(node: NodeRef, from: NodeState | null, to: NodeState): void {
  if (from === null ? !NODE_FIRST.includes(to) : !NODE_ALLOWED[from]?.includes(to)) {
    const { runId, nodeId, iteration } = node;
    throw new FlowError("INVALID_TRANSITION", `Task ${nodeId} (iteration ${iteration}) of run ${runId} cannot go from ${from === null ? "nothing" : `"${from}"`} to "${to}".`, { runId, nodeId, iteration, from, to });
  }
}
