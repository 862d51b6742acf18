/**
 * @module core/engine/internal
 * The engine's internal door: the names Flow's other areas (core/api, core/time-travel,
 * node/, sync/, browser/, ui/) take from the engine that are not published (the SQL of runs
 * and statuses, the transition tables and checks, row fields, time travel's intent). The
 * published names are at the front door, core/engine/index.ts, which durable-flow/core
 * re-exports whole. docs/architecture.md "Areas and their front doors".
 */
export type { AspectTotals } from "./aspect-usage.js";
export { parse, runFields, toRun } from "./row-fields.js";
export { eventOf, nodeFields, pendingApprovalFields, waitFields } from "./row-fields.js";
export type { Columns, WaitFields } from "./row-fields.js";
export { assertInputFits } from "./input.js";
export { stopPath } from "./run-control.js";
export type { StopPath } from "./run-control.js";
export { eventSql, json, nodeChange, outputSql, runSql, statusChange, WriteBatch } from "./run-sql.js";
export type { NodeWrite } from "./run-sql.js";
export type { RunRow } from "./run-sql.js";
export { assertNodeTransition, assertTransition, checkStop, executingStatuses, NODE_STATES, RUN_MOVES, RUN_STATUSES, shownNodeState, stopMoveOf } from "./status.js";
export type { NodeRef, RunMoves, RunStopRequest } from "./status.js";
export type { PauseReason } from "./types.js";
export { previewDecisions, resetWaits } from "./waits/reset-waits.js";
export type { ResetDecision } from "./waits/reset-waits.js";
export { completeIntent, loopIterationsAt, resetSetOf, writeIntent } from "./travel/intent.js";
export type { Intent } from "./travel/intent.js";
export { attemptRef, intentRef, parseAttemptRef, runRefPrefix } from "./travel/refs.js";
export type { WaitKind } from "./waits/spec.js";
export type { WaitRow, WaitStatus } from "./waits/wait-sql.js";
export { recordDefiningSite } from "./workflow-identity.js";
