/**
 * @module core/engine/run-control
 * Stopping a run from wherever you are. A run executed by a live process (another `flow up`,
 * a Gateway) is asked through the store: `requested_state` is set, the owner's claim heartbeat
 * reads it and the run stops as if its own signal had fired (cancelled: in-flight attempts
 * aborted; paused: they finish first). A run no live process executes (parked, paused, failed,
 * or left `running` by a process that is gone) is cancelled here, through its workflow, so the
 * engine records the cancellation with its events like any other. See docs/engine.md
 * ("Stopping a run from another process").
 */
import { FlowError } from "../errors.js";
import type { FlowDb, RunRecord } from "./flow-db.js";
import { runWorkflow } from "./run.js";
import { runSql } from "./run-sql.js";
import { checkStop, isExecuting, type RunStopRequest } from "./status.js";
import type { FlowWorkflow, RunStatus } from "./types.js";
import type { RuntimeEnv } from "./world.js";

/** Who executes a run: a live process, one that is gone (crashed, killed, heartbeat stale), or none. */
export type RunOwnerState = "live" | "gone" | null;

/**
 * Whether the process that executes a run (`running`, or `waiting-quota`, which its process
 * keeps) is still there: its claim heartbeat is fresh and (on this host) its pid lives. Null for
 * runs no process owns (parked, paused, ended).
 * @example
 * if (ownerStateOf(db.binding.env, run) === "gone") console.log("left running by a process that is gone");
 */
export function ownerStateOf(env: Pick<RuntimeEnv, "clock" | "claimStaleMs" | "isOwnerAlive">, run: Pick<RunRecord, "status" | "ownerId" | "heartbeatAtMs">): RunOwnerState {
  if (!isExecuting(run.status)) return null;
  if (!run.ownerId || run.heartbeatAtMs === null) return "gone";
  if (env.isOwnerAlive?.(run.ownerId) === false) return "gone";
  return env.clock.now() - run.heartbeatAtMs < env.claimStaleMs ? "live" : "gone";
}

export interface StopRunOptions {
  /** The run's workflow: needed to cancel a run no live process executes. */
  workflow?: FlowWorkflow;
  /** How long to wait for a live owner to stop the run (default: the claim stale time plus a heartbeat). */
  waitMs?: number;
}

export interface StopRunResult {
  runId: string;
  status: RunStatus;
  /** `requested`: a live process was asked and stopped the run; `stopped`: this call did it. */
  how: "requested" | "stopped";
}

/**
 * How a stop request reaches a run: `as-is` (it already is where the request leads: answered
 * from the row, nothing written), `ask-owner` (a live process executes it: asked through the
 * store) or `here` (no live process does: a cancel is recorded by resuming the run cancelled).
 */
export type StopPath = "as-is" | "ask-owner" | "here";

/**
 * The one check of a stop request, for every caller (stopRun, `flow cancel`/`flow pause`, the
 * cancelRun and pauseRun RPC methods): the request against the lifecycle table (`checkStop`,
 * status.ts: an ended run is INVALID_TRANSITION), then who executes the run. Pausing a run no
 * live process executes is INVALID_TRANSITION too: a pause is a request to the process that
 * runs it, and there is none (a host that executes the run itself pauses its session before
 * asking). Answers the path the stop takes.
 * @example
 * stopPath(db.binding.env, await db.requireRun("r1"), "pause"); // "ask-owner" while another process runs r1
 */
export function stopPath(env: Pick<RuntimeEnv, "clock" | "claimStaleMs" | "isOwnerAlive">, run: Pick<RunRecord, "runId" | "status" | "ownerId" | "heartbeatAtMs">, request: RunStopRequest): StopPath {
  if (checkStop(run.runId, run.status, request)) return "as-is";
  const owner = ownerStateOf(env, run);
  if (owner === "live") return "ask-owner";
  if (request === "pause") {
    throw new FlowError(
      "INVALID_TRANSITION",
      `Run ${run.runId} is not executing in any live process (status ${run.status}${owner === "gone" ? ", its process is gone" : ""}); there is nothing to pause. Cancel it, or resume it.`,
      { runId: run.runId, status: run.status, from: run.status, to: "paused" },
    );
  }
  return "here";
}

/**
 * Cancels or pauses a run, whichever process executes it. Resolves once the run has stopped
 * (no process executes it any more: neither `running` nor `waiting-quota`). The request is checked by `stopPath`: a run the table
 * lets go nowhere there (ended) is INVALID_TRANSITION, a cancelled run cancelled again (a
 * paused one paused) answers as it is, pausing a run no process executes is
 * INVALID_TRANSITION; cancelling one needs `workflow` (else WORKFLOW_NOT_FOUND).
 * @example
 * await stopRun(new FlowDb(api.db), "r1", "cancel"); // { runId: "r1", status: "cancelled", how: "requested" }
 */
export async function stopRun(db: FlowDb, runId: string, request: RunStopRequest, opts: StopRunOptions = {}): Promise<StopRunResult> {
  const env = db.binding.env;
  const run = await db.requireRun(runId);
  const path = stopPath(env, run, request);
  if (path === "as-is") return { runId, status: run.status, how: "stopped" };
  if (path === "ask-owner") {
    if (!(await runSql.requestStop(db.store, runId, request, env.clock.now()))) return { runId, status: (await db.requireRun(runId)).status, how: "requested" };
    return { runId, status: await untilStopped(db, runId, opts.waitMs ?? env.claimStaleMs + env.claimHeartbeatMs), how: "requested" };
  }
  const owner = ownerStateOf(env, run);
  if (!opts.workflow) {
    throw new FlowError("WORKFLOW_NOT_FOUND", `Run ${runId} is ${owner === "gone" ? "left running by a process that is gone" : run.status}; cancelling it is recorded through its workflow, which is not known here. Give the workflow (flow cancel --workflow <file>).`, { runId, status: run.status });
  }
  // Resumed already cancelled: the engine stops before it renders and records the cancellation.
  const result = await runWorkflow(opts.workflow, { runId, resume: true, force: owner === "gone", signal: AbortSignal.abort() });
  return { runId, status: result.status, how: "stopped" };
}

/** Polls the run until no process executes it any more; RUN_ALREADY_RUNNING when it still does after `waitMs`. */
async function untilStopped(db: FlowDb, runId: string, waitMs: number): Promise<RunStatus> {
  const { clock } = db.binding.env;
  const deadline = clock.now() + waitMs;
  for (;;) {
    const run = await db.requireRun(runId);
    if (!isExecuting(run.status)) return run.status;
    if (clock.now() >= deadline) {
      throw new FlowError("RUN_ALREADY_RUNNING", `Run ${runId} was asked to stop, but its process (${run.ownerId}) has not stopped it within ${Math.round(waitMs / 1000)} s; it will when its next heartbeat reads the request.`, { runId, ownerId: run.ownerId });
    }
    await new Promise<void>((resolve) => clock.setTimeout(resolve, 200));
  }
}
