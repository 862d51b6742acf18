/**
 * @module core/time-travel
 * Time travel's public surface (docs/time-travel.md): rewind, revert, fork and replay, the
 * VCS port hosts implement, and the snapshot ref names.
 */
export { timeTravel, revertToAttempt } from "./time-travel.js";
export { attemptRef, parseAttemptRef, runRefPrefix } from "./refs.js";
export type { VcsPort, VcsFileChange, VcsSnapshotRef } from "./port.js";
export type { Compensation, CrossedEffect, EffectBoundaryReport, RevertOptions, RevertResult, TimeTravelOptions, TimeTravelResult, TimeTravelStep } from "./types.js";
export { clearRunAttention, getRunAttention, listTimeTravels, removeRunSnapshots } from "./history.js";
export type { RunAttention, TimeTravelRecord } from "./history.js";
export { forkRun, planFork, replayRun } from "./fork.js";
export type { ForkPlan, ForkPoint, ForkRunOptions } from "./fork.js";
export { attemptDiff, runDiff } from "./diff.js";
export type { WorkspaceDiff } from "./diff.js";
export type { FlowDbLike } from "./adapter.js";

// For Flow's other areas (not part of the documented entry).
export { dependentsOf } from "./dependents.js";
export { listRunSnapshots } from "./history.js";
export { effectKey, recoverTimeTravel, settledEffectKeys } from "./intent.js";
export { absoluteDir, attemptSnapshotsFor } from "./snapshots.js";
export type { AttemptSnapshots } from "./snapshots.js";
