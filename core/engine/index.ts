/**
 * @module core/engine
 * The engine: the run loop (run.ts facade), scheduler, sessions, attempts, waits, events,
 * status transitions and the SQL they write through the store port. This front door holds the
 * published names only (durable-flow/core re-exports it whole); what Flow's other areas take
 * beyond them is at the internal door, core/engine/internal.ts.
 */
export { attachBinding, bindingOf } from "../binding.js";
export type { StoreBinding } from "../binding.js";
export type { FlowCtx, InputOf, OutputsAccessor, RunOutputOf } from "./ctx.js";
export type {
  AgentGenerationFinishedEvent,
  AgentStepUsageEvent,
  AgentGenerationStartedEvent,
  AgentTextDeltaEvent,
  AgentToolCallEvent,
  AgentToolResultEvent,
  EventInit,
  FlowEvent,
  FlowEventType,
} from "./events.js";
export { FlowDb } from "./flow-db.js";
export type { AttemptRecord, NodeRecord, RunRecord, RunUsage } from "./flow-db.js";
export type { RunningSpend } from "./attempt-spend.js";
export { retryTask } from "./retry-task.js";
export { ownerStateOf, stopRun } from "./run-control.js";
export type { RunOwnerState, StopRunOptions, StopRunResult } from "./run-control.js";
export { runWorkflow } from "./run.js";
export { scoreRuns } from "./score-runs.js";
export type { BatchTarget, ScoreRunsOptions, ScoreRunsResult } from "./score-runs.js";
export { TERMINAL_STATUSES } from "./status.js";
export type {
  AttemptState,
  FlowAlertPolicy,
  FlowWorkflow,
  GraphSnapshot,
  HotReloadOptions,
  NodeState,
  OutputKey,
  RetryTaskOptions,
  RetryTaskResult,
  RunAuthContext,
  RunOptions,
  RunResult,
  RunStatus,
  SafeParser,
  TaskDescriptor,
  WorkflowOptions,
  WorkflowViewDefinition,
} from "./types.js";
export { listPendingApprovals, listRunsToWake, submitApproval, submitEvent, submitHumanTask, submitSignal } from "./waits/deliver.js";
export type { DeliveryActor, DeliveryResult, PendingApproval, SubmitApprovalInput, SubmitHumanTaskInput, SubmitSignalInput } from "./waits/deliver.js";
// The engine's part of time travel (core/engine/travel/): what an attempt snapshots, the rule
// of what a target resets, and the crash-safe intent a resume finishes; core/time-travel
// builds rewind, revert and fork on them.
export { dependentsOf } from "./travel/dependents.js";
export { effectKey, recoverTimeTravel, settledEffectKeys } from "./travel/intent.js";
export { absoluteDir, attemptSnapshotsFor } from "./travel/snapshots.js";
export type { AttemptSnapshots } from "./travel/snapshots.js";
export { parseDuration } from "./waits/spec.js";
export { workflowNameOf } from "./workflow-identity.js";
export type { HotBuild, HotReloadPort, PreparedWorkspace, WorkspacePort, WorkspaceSpec } from "./workspace-port.js";
export { createDefaultEnv } from "./world.js";
export type { RunLogSink, RuntimeEnv } from "./world.js";
// The clock sits below the engine (core/util); the engine's users take it from here too.
export { systemClock } from "../util/index.js";
export type { ClockPort } from "../util/index.js";
