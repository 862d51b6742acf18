/**
 * @module core/engine
 * The engine: the run loop (run.ts facade), scheduler, sessions, attempts, waits, events,
 * status transitions and the SQL they write through the store port. Other areas import from
 * here only.
 */
export type { AspectTotals } from "./aspect-usage.js";
export { attachBinding, bindingOf } from "./binding.js";
export type { StoreBinding } from "./binding.js";
export type { FlowCtx, InputOf, OutputsAccessor, RunOutputOf } from "./ctx.js";
export type {
  AgentGenerationFinishedEvent,
  AgentGenerationStartedEvent,
  AgentTextDeltaEvent,
  AgentToolCallEvent,
  AgentToolResultEvent,
  EventInit,
  FlowEvent,
  FlowEventType,
} from "./events.js";
export { FlowDb, runFields, toRun } from "./flow-db.js";
export type { AttemptRecord, NodeRecord, RunRecord, RunUsage } from "./flow-db.js";
export { eventOf, nodeFields, pendingApprovalFields, waitFields } from "./row-fields.js";
export type { Columns, WaitFields } from "./row-fields.js";
export { assertInputFits } from "./input.js";
export { passStartKey } from "./nested-loops.js";
export { renderViewOf } from "./render-view.js";
export { retryTask } from "./retry-task.js";
export { ownerStateOf, stopRun } from "./run-control.js";
export type { RunOwnerState, StopRunOptions, StopRunResult } from "./run-control.js";
export { eventSql, json, nodeSql, outputSql, runSql, statusChange, WriteBatch } from "./run-sql.js";
export type { RunRow } from "./run-sql.js";
export { runWorkflow } from "./run.js";
export { assertTransition, RUN_STATUSES, TERMINAL_STATUSES } from "./status.js";
export type {
  AttemptState,
  FlowAlertPolicy,
  FlowWorkflow,
  GraphSnapshot,
  HotReloadOptions,
  NodeState,
  OutputKey,
  PauseReason,
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
export {
  listPendingApprovals,
  listRunsToWake,
  submitApproval,
  submitEvent,
  submitHumanTask,
  submitSignal,
} from "./waits/deliver.js";
export type {
  DeliveryActor,
  DeliveryResult,
  PendingApproval,
  SubmitApprovalInput,
  SubmitHumanTaskInput,
  SubmitSignalInput,
} from "./waits/deliver.js";
export { previewDecisions, resetWaits } from "./waits/reset-waits.js";
export type { ResetDecision } from "./waits/reset-waits.js";
export { parseDuration } from "./waits/spec.js";
export type { WaitKind } from "./waits/spec.js";
export type { WaitRow, WaitStatus } from "./waits/wait-sql.js";
export { recordDefiningSite, workflowNameOf } from "./workflow-identity.js";
export type {
  HotBuild,
  HotReloadPort,
  PreparedWorkspace,
  WorkspacePort,
  WorkspaceSpec,
} from "./workspace-port.js";
export { createDefaultEnv, systemClock } from "./world.js";
export type { ClockPort, RunLogSink, RuntimeEnv } from "./world.js";
