/**
 * @module core/time-travel/types
 * Options and results of time travel (SPEC.md "Time travel"; docs/time-travel.md).
 */
import type { FlowEvent } from "../engine/index.js";
import type { ResetDecision } from "../engine/internal.js";

/**
 * A call of a `sideEffect` tool recorded between the time-travel target and now: what going
 * back in time would undo, repeat or leave in place.
 * @example
 * const e: CrossedEffect = { runId: "r1", nodeId: "deploy", iteration: 0, attempt: 1, seq: 2, toolName: "sendEmail",
 *   idempotencyKey: "r1:deploy:0:sendEmail:1", idempotent: false, calledAtMs: 1700000000000, reason: "not idempotent and no compensation is known" };
 */
export interface CrossedEffect {
  runId: string;
  nodeId: string;
  iteration: number;
  /** The attempt that made the call. */
  attempt: number;
  /** The call's position among the attempt's tool calls. */
  seq: number;
  toolName: string;
  /** The key the tool was given (`ToolContext.idempotencyKey`); a compensation can use it. */
  idempotencyKey: string;
  idempotent: boolean;
  calledAtMs: number;
  /**
   * How the effect is undone when it is `revertible`: `vcs` (a file tool, `write` or `edit`,
   * whose change the workspace restore undoes) or `compensation` (the caller's
   * `compensations[toolName]` runs with this effect).
   */
  revertBy?: "vcs" | "compensation";
  /** Why the effect is in its list, in words. */
  reason: string;
}

/**
 * The side effects a time travel crosses, always present in results: `blocking` (not
 * idempotent and not revertible, or a revert skipped by `noRevert`: crossing them needs
 * `force`), `revertible` (undone by the restore or a compensation), `warnings` (idempotent:
 * running the task again repeats them safely; they are left in place).
 * @example
 * if (report.blocking.length) console.log(`would repeat ${report.blocking.map((e) => e.toolName).join(", ")}`);
 */
export interface EffectBoundaryReport {
  blocking: CrossedEffect[];
  revertible: CrossedEffect[];
  warnings: CrossedEffect[];
}

/**
 * Undoes one crossed effect (for example a refund by its idempotency key).
 * @example
 * const refund: Compensation = (effect) => payments.refund({ idempotencyKey: effect.idempotencyKey });
 */
export type Compensation = (effect: CrossedEffect) => void | Promise<void>;

/**
 * The points of a time travel between which a crash can happen (for tests and tracing).
 * @example
 * await timeTravel(db, { runId, nodeId, checkpoint: (step: TimeTravelStep) => console.log("durable:", step) });
 */
export type TimeTravelStep = "intent-written" | "files-restored" | "committed";

interface CommonOptions {
  runId: string;
  nodeId: string;
  /** Cross blocking side effects anyway: the crossing is recorded and the run marked for attention. */
  force?: boolean;
  /** Do not revert revertible effects (no restore-based or compensation undo); skipped effects then need `force`. */
  noRevert?: boolean;
  /** `TimeTravelStarted`/`TimeTravelFinished` (or `RevertStarted`/`RevertFinished`) and the `TaskReset` events. */
  onProgress?: (event: FlowEvent) => void;
  /** Compensations by tool name: make a crossed effect of that tool revertible. */
  compensations?: Record<string, Compensation>;
  /** Called after each durable step (tests kill the process here to prove crash safety). */
  checkpoint?: (step: TimeTravelStep) => void | Promise<void>;
}

/**
 * Options of `timeTravel` (SPEC.md): every default as SPEC gives it.
 * @example
 * const opts: TimeTravelOptions = { runId: "r1", nodeId: "review", iteration: 0, resetDependents: true };
 */
export interface TimeTravelOptions extends CommonOptions {
  /** Default 0. */
  iteration?: number;
  /** Omit for the latest attempt of the node at that iteration. */
  attempt?: number;
  /** Reset what ran after the target too (default true). */
  resetDependents?: boolean;
  /** Restore the files the attempt started from (default true). */
  restoreVcs?: boolean;
  /**
   * Keep the decisions of reset Approvals, HumanTasks, Signals and WaitForEvents (default
   * false: they are asked again, and nothing after them runs until a new decision).
   */
  keepDecisions?: boolean;
}

/**
 * Result of `timeTravel`. `error` only when `success` is false.
 * @example
 * const r: TimeTravelResult = await timeTravel(db, { runId, nodeId: "review" });
 */
export interface TimeTravelResult {
  success: boolean;
  /** The tree the target attempt started from (what was restored). */
  vcsPointer?: string;
  vcsRestored: boolean;
  /**
   * Repositories inside the workspace (a submodule, a clone) the restore left as they are, relative
   * to it: snapshots hold the commit each was at, not its files (docs/time-travel.md "What is not
   * snapshotted"). Absent when there were none.
   */
  keptRepositories?: string[];
  /** Node ids set back to `pending`, deduplicated. */
  resetNodes: string[];
  /** Decided waits among the reset nodes: asked again, or kept with `keepDecisions` (success only). */
  decisions?: ResetDecision[];
  effectBoundary: EffectBoundaryReport;
  error?: string;
}

/**
 * Options of `revertToAttempt` (SPEC.md): iteration and attempt are required.
 * @example
 * const opts: RevertOptions = { runId: "r1", nodeId: "review", iteration: 0, attempt: 1 };
 */
export interface RevertOptions extends CommonOptions {
  iteration: number;
  attempt: number;
}

/**
 * Result of `revertToAttempt`. `error` only when `success` is false.
 * @example
 * const r: RevertResult = await revertToAttempt(db, { runId, nodeId: "review", iteration: 0, attempt: 1 });
 */
export interface RevertResult {
  success: boolean;
  /** The tree right after the attempt (what was restored). */
  vcsPointer?: string;
  /** As `TimeTravelResult.keptRepositories`. */
  keptRepositories?: string[];
  effectBoundary: EffectBoundaryReport;
  error?: string;
}
