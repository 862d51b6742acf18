/**
 * @module core/time-travel
 * Time travel's public surface (docs/time-travel.md): rewind, revert, fork and replay, the
 * VCS port hosts implement, and the snapshot ref names.
 */
export { timeTravel, revertToAttempt } from "./time-travel.js";
// The snapshot ref names are the engine's (core/engine/travel/refs.ts), published here.
export { attemptRef, parseAttemptRef, runRefPrefix } from "../engine/internal.js";
export type { VcsPort, VcsFileChange, VcsRestored, VcsSnapshotRef } from "./port.js";
export type { Compensation, CrossedEffect, EffectBoundaryReport, RevertOptions, RevertResult, TimeTravelOptions, TimeTravelResult, TimeTravelStep } from "./types.js";
export { clearRunAttention, getRunAttention, listTimeTravels, removeRunSnapshots } from "./history.js";
export type { RunAttention, RunSnapshot, TimeTravelRecord } from "./history.js";
export { forkRun, planFork, replayRun } from "./fork.js";
export type { ForkPlan, ForkPoint, ForkRunOptions } from "./fork.js";
export { attemptDiff, attemptFileDiff, attemptFileDiffs, MAX_PATCH_CHARS, runDiff } from "./diff.js";
export { changeNote, isRepositoryChange, REPOSITORY_MODE } from "./changes.js";
export type { FileDiff, WorkspaceDiff } from "./diff.js";
export type { FlowDbLike } from "./adapter.js";

// For Flow's other areas (not part of the documented entry).
export { listRunSnapshots } from "./history.js";
