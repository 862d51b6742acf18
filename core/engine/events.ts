/**
 * @module core/engine/events
 * The FlowEvent union. Every state change of a run is an event row with a per-run `seq`,
 * written in the same transaction as the change (DESIGN.md seam 3). docs/events.md lists them.
 */
import type { AgentUsage } from "../agents/index.js";
import type { FlowErrorJson } from "../errors.js";
import type { PauseReason, RunStatus } from "./types.js";

interface Base<T extends string> {
  type: T;
  runId: string;
  timestampMs: number;
  /** Position in the run's event log (set once persisted). */
  seq?: number;
}
interface NodeRef {
  nodeId: string;
  iteration: number;
}

export type RunStartedEvent = Base<"RunStarted"> & { workflowName: string | null; workflowHash: string; parentRunId: string | null };
export type RunResumedEvent = Base<"RunResumed"> & { previousStatus: RunStatus; takeover: boolean; previousOwnerId: string | null };
export type WorkflowChangedEvent = Base<"WorkflowChanged"> & { previousHash: string | null; workflowHash: string };
export type RunFinishedEvent = Base<"RunFinished"> & { output?: unknown };
export type RunFailedEvent = Base<"RunFailed"> & { error: FlowErrorJson };
export type RunCancelledEvent = Base<"RunCancelled">;
/** `reason`: why (`_flow_runs.pause_reason`); absent in runs paused before it was recorded. */
export type RunPausedEvent = Base<"RunPaused"> & { reason?: PauseReason };
export type FrameCommittedEvent = Base<"FrameCommitted"> & { frameNo: number; taskCount: number; keyframe: boolean };
export type TaskStartedEvent = Base<"TaskStarted"> & NodeRef & { attempt: number };
export type TaskFinishedEvent = Base<"TaskFinished"> & NodeRef & { attempt: number; durationMs: number };
export type TaskFailedEvent = Base<"TaskFailed"> &
  NodeRef & { attempt: number; error: FlowErrorJson; willRetry: boolean; retryInMs?: number; continueOnFail: boolean };
export type TaskSkippedEvent = Base<"TaskSkipped"> & NodeRef;
export type TaskCancelledEvent = Base<"TaskCancelled"> & NodeRef & { attempt?: number; reason: "run-cancelled" | "removed-from-tree" | "interrupted" | "run-failed" | "run-continued" };
export type TaskCacheHitEvent = Base<"TaskCacheHit"> & NodeRef & { cacheKey: string };
export type TaskResetEvent = Base<"TaskReset"> & NodeRef & { reason: "retry-task" | "resume" | "time-travel" };
/** `path`: iterations of the loops around a nested loop, by id (absent at top level). */
export type LoopIterationEvent = Base<"LoopIteration"> & { loopId: string; iteration: number; path?: Record<string, number> };
export type RunContinuedEvent = Base<"RunContinued"> & { nextRunId: string };
export type ScopeFailedEvent = Base<"ScopeFailed"> & { scopeId: string; error: FlowErrorJson };
export type AlertRaisedEvent = Base<"AlertRaised"> &
  NodeRef & { rule: string; elapsedMs: number; severity: "info" | "warning" | "critical"; owner?: string; runbook?: string; labels?: Record<string, string>; reaction: string };
export type WorkflowReloadedEvent = Base<"WorkflowReloaded"> & { generation: number };
export type RunWaitingEvent = Base<"RunWaiting"> & { status: RunStatus; waitingOn: string[] };
export type ApprovalRequestedEvent = Base<"ApprovalRequested"> & NodeRef & { kind: "approval" | "human" };
export type ApprovalDecidedEvent = Base<"ApprovalDecided"> & NodeRef & { decision: Record<string, unknown> };
export type HumanTaskSubmittedEvent = Base<"HumanTaskSubmitted"> & NodeRef & { submittedBy: string | null };
export type HumanTaskRejectedEvent = Base<"HumanTaskRejected"> & NodeRef & { attempt: number; issues: string };
export type SignalReceivedEvent = Base<"SignalReceived"> & NodeRef & { name: string; deliveryId: string };
export type TimerFiredEvent = Base<"TimerFired"> & NodeRef & { scheduledAtMs: number };
export type WaitTimedOutEvent = Base<"WaitTimedOut"> & NodeRef & { onTimeout: "fail" | "skip" | "continue" };
/** Time travel (docs/time-travel.md): the target attempt, and the snapshot restored (if any). */
type TravelRef = NodeRef & { attempt: number; vcsPointer: string | null; intentId: string };
/** Repositories inside the workspace (a submodule, a clone) the restore left as they are: snapshots hold their commit, not their files. */
type Kept = { keptRepositories?: string[] };
export type TimeTravelStartedEvent = Base<"TimeTravelStarted"> & TravelRef;
export type TimeTravelFinishedEvent = Base<"TimeTravelFinished"> & TravelRef & Kept & { resetNodes: string[]; vcsRestored: boolean; forcedEffects: number };
export type RevertStartedEvent = Base<"RevertStarted"> & TravelRef;
export type RevertFinishedEvent = Base<"RevertFinished"> & TravelRef & Kept & { forcedEffects: number };

/**
 * Agent transcripts (docs/events.md, "Agent transcripts"): one generation is one `generate`
 * call of an agent inside an attempt (failover and schema corrections make more), numbered
 * from 1. Payloads above the run's `maxOutputBytes` are cut and say `truncated: true`.
 */
type GenerationRef = NodeRef & { attempt: number; generation: number };
export type AgentGenerationStartedEvent = Base<"AgentGenerationStarted"> &
  GenerationRef & { agentId: string | null; agentIndex: number; engine: string | null; schemaRetry?: number; resumeSession?: string; prompt?: string; messages?: { role: string; content: unknown }[]; truncated?: boolean };
/** Streamed answer text, batched per flush (many model deltas make one event). */
export type AgentTextDeltaEvent = Base<"AgentTextDelta"> & GenerationRef & { text: string; truncated?: boolean };
export type AgentToolCallEvent = Base<"AgentToolCall"> & GenerationRef & { callId: string; toolName: string; input?: unknown; truncated?: boolean };
/** `error.code`: the FlowError code of a refusal (`TOOL_PATH_ESCAPE`, ...); `sideEffect`/`idempotent` for Flow tools. */
export type AgentToolResultEvent = Base<"AgentToolResult"> &
  GenerationRef & { callId: string; toolName: string; ok: boolean; output?: unknown; error?: { code?: string; message: string }; durationMs: number | null; sideEffect?: boolean; idempotent?: boolean; truncated?: boolean };
/**
 * What one model step of a generation spent, as the step ends (an SDK agent's tool loop runs
 * many steps in one generation): a live sum while the generation runs. The generation's own
 * `usage` is the whole of it once `AgentGenerationFinished` comes.
 */
export type AgentStepUsageEvent = Base<"AgentStepUsage"> & GenerationRef & { usage: AgentUsage; costUsd?: number };
export type AgentGenerationFinishedEvent = Base<"AgentGenerationFinished"> &
  GenerationRef & { ok: boolean; durationMs: number; model: string | null; provider: string | null; usage?: AgentUsage; costUsd?: number; finishReason?: string; sessionId?: string; error?: { code?: string; message: string } };

/** Every event a run emits. */
export type FlowEvent =
  | RunStartedEvent
  | RunResumedEvent
  | WorkflowChangedEvent
  | RunFinishedEvent
  | RunFailedEvent
  | RunCancelledEvent
  | RunPausedEvent
  | FrameCommittedEvent
  | TaskStartedEvent
  | TaskFinishedEvent
  | TaskFailedEvent
  | TaskSkippedEvent
  | TaskCancelledEvent
  | TaskCacheHitEvent
  | TaskResetEvent
  | LoopIterationEvent
  | RunWaitingEvent
  | RunContinuedEvent
  | ScopeFailedEvent
  | AlertRaisedEvent
  | WorkflowReloadedEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent
  | HumanTaskSubmittedEvent
  | HumanTaskRejectedEvent
  | SignalReceivedEvent
  | TimerFiredEvent
  | WaitTimedOutEvent
  | TimeTravelStartedEvent
  | TimeTravelFinishedEvent
  | RevertStartedEvent
  | RevertFinishedEvent
  | AgentGenerationStartedEvent
  | AgentTextDeltaEvent
  | AgentToolCallEvent
  | AgentToolResultEvent
  | AgentStepUsageEvent
  | AgentGenerationFinishedEvent;

export type FlowEventType = FlowEvent["type"];

/** Distributes Omit over the union, so each variant keeps its own fields. */
export type EventInit = FlowEvent extends infer E ? (E extends FlowEvent ? Omit<E, "runId" | "timestampMs" | "seq"> : never) : never;
