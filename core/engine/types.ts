/**
 * @module core/engine/types
 * Public types of workflows and runs (SPEC.md "Workflow and run types", "Task descriptor",
 * "Graph snapshot"). Node and attempt states are documented in docs/engine.md.
 */
import type { AgentLike, PriceTable } from "../agents/index.js";
import type { CachePolicy, RetryPolicy, SchemaMap } from "../components/index.js";
import type { FlowNode, XmlNode } from "../jsx/index.js";
import type { TaskMemoryConfig } from "../memory/index.js";
import type { AnyObjectSchema, FlowTable } from "../schema/index.js";
import type { ScorersMap } from "../scorers/index.js";
import type { RunTracing } from "../tracing/index.js";
import type { FlowEvent } from "./events.js";
import type { ResetDecision } from "./waits/reset-waits.js";

/** SPEC.md `RunStatus`, plus `paused` for a run parked by `pauseSignal`. */
export type RunStatus =
  | "running"
  | "waiting-approval"
  | "waiting-event"
  | "waiting-timer"
  | "waiting-quota"
  | "paused"
  | "finished"
  | "continued"
  | "failed"
  | "cancelled";

/**
 * State of a node (one task at one iteration). `pending`: not started or waiting for a retry;
 * `in-progress`: an attempt runs; `waiting-*`: parked on an approval or human task, a signal
 * or event, or a timer; `finished`: output row stored; `failed`: retries exhausted;
 * `skipped`: `skipIf` was true; `cancelled`: the run was cancelled or the task left the tree.
 */
export type NodeState =
  | "pending"
  | "in-progress"
  | "waiting-approval"
  | "waiting-event"
  | "waiting-timer"
  | "finished"
  | "failed"
  | "skipped"
  | "cancelled";

/**
 * Why a `paused` run is paused: `person` (pauseRun, the app's Pause, an alert), `shutdown`
 * (its host stopped: Ctrl+C or SIGTERM of `flow serve`/`npm start`, a Gateway's close; the
 * next host serving its workflow resumes it) or `rewind` (time travel not asked to resume:
 * it waits for a person to resume it).
 */
export type PauseReason = "person" | "shutdown" | "rewind";

/** State of one attempt. `cancelled` also marks an attempt interrupted by a crash. */
export type AttemptState = "in-progress" | "finished" | "failed" | "cancelled";

/** SPEC.md `RunAuthContext`. */
export interface RunAuthContext {
  triggeredBy: string;
  scopes: string[];
  role: string;
  createdAt: string;
}

/** SPEC.md `OutputKey`: which row of a table. `iteration` defaults to the current iteration. */
export interface OutputKey {
  nodeId: string;
  iteration?: number;
}

/** Something with `safeParse` (a zod schema): used by `ctx.latestArray`. */
export interface SafeParser<T = unknown> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error?: unknown };
}

/** SPEC.md `FlowAlertPolicy` (alerts are acted on in a later release; stored with the workflow). */
export interface FlowAlertPolicy {
  defaults?: { owner?: string; severity?: "info" | "warning" | "critical"; runbook?: string; labels?: Record<string, string> };
  rules?: Record<string, Record<string, unknown>>;
  reactions?: Record<string, unknown>;
}

/** SPEC.md `WorkflowOptions`. */
export interface WorkflowOptions {
  alertPolicy?: FlowAlertPolicy;
  /** Cache every task by default. */
  cache?: boolean;
  /** The table whose latest row is the run's `output` (default: the schema key `output`). */
  output?: AnyObjectSchema | FlowTable | string;
  /** Overrides the hash recorded with each run (default: hash of the build function and schemas). */
  workflowHash?: string;
}

/** SPEC.md `WorkflowViewDefinition`. */
export interface WorkflowViewDefinition {
  kind: "ui" | "tui";
  title?: string;
  props?: Record<string, unknown>;
  entry?: string;
  path?: string;
  source?: string;
  exportName?: string;
  literal?: string;
}

/** SPEC.md `FlowWorkflow`: a runnable workflow, made by the `flow(build, opts)` wrapper. */
export interface FlowWorkflow<S extends SchemaMap = SchemaMap> {
  readableName?: string;
  description?: string;
  /**
   * The file that defined the workflow (set by `flow(build)` from the stack, or by the loader
   * that imported it, e.g. `flow up`): the run's hash is the hash of its text.
   */
  sourcePath?: string;
  ui?: WorkflowViewDefinition;
  tui?: WorkflowViewDefinition;
  db?: unknown;
  build: (ctx: any) => FlowNode;
  opts: WorkflowOptions;
  schemaRegistry?: Record<string, { table: FlowTable; schema: AnyObjectSchema }>;
  zodToKeyName?: Map<AnyObjectSchema, string>;
  /** Phantom: the schema map, for typing `runWorkflow` input. */
  readonly __schemas?: S;
}

/** SPEC.md `HotReloadOptions`. */
export interface HotReloadOptions {
  rootDir?: string;
  outDir?: string;
  maxGenerations?: number;
  cancelUnmounted?: boolean;
  debounceMs?: number;
}

/** SPEC.md `RunOptions`. Options not yet acted on by this release are accepted and recorded. */
export interface RunOptions<Input = Record<string, unknown>> {
  runId?: string;
  parentRunId?: string | null;
  /** Required for a new run; ignored on resume (the stored input is used). */
  input?: Input;
  /** Default 4. */
  maxConcurrency?: number;
  /** Default true: re-render after every task completion that changes what the tree read. */
  requireRerenderOnOutputChange?: boolean;
  onProgress?: (event: FlowEvent) => void;
  /** Aborting cancels the run (status `cancelled`). */
  signal?: AbortSignal;
  /** Aborting pauses the run: nothing new starts, in-flight tasks finish, status `paused`. */
  pauseSignal?: AbortSignal;
  resume?: boolean;
  /** Resume even when the run is marked running by a live owner. */
  force?: boolean;
  /**
   * What a resume does when the workflow's hash changed since the run started: `resume`
   * (default) warns and continues with the new code; `refuse` throws WORKFLOW_CHANGED.
   */
  onWorkflowChange?: "resume" | "refuse";
  /**
   * When only waits are left (approvals, signals, events, timers): `false` (default) parks the
   * run (status `waiting-*`) and returns; `true` stays, wakes at deadlines, and polls the store
   * for deliveries from other processes every `waitPollMs`.
   */
  stayWhileWaiting?: boolean;
  /** Poll interval while staying (default 1000 ms). */
  waitPollMs?: number;
  workflowPath?: string;
  rootDir?: string;
  /** Directory for the run's NDJSON event log (`<logDir>/<runId>.ndjson`); null disables. */
  logDir?: string | null;
  allowNetwork?: boolean;
  maxOutputBytes?: number;
  toolTimeoutMs?: number;
  hot?: boolean | HotReloadOptions;
  annotations?: Record<string, string | number | boolean>;
  auth?: RunAuthContext | null;
  config?: Record<string, unknown>;
  effectPlatformRuntime?: "bun" | "node" | "worker";
  effectPlatformLayer?: unknown;
  cliAgentToolsDefault?: "all" | "explicit-only";
  /**
   * Prices per model (USD per million tokens) over Flow's defaults, for the cost of agent
   * generations (docs/agents.md, "Cost").
   */
  prices?: PriceTable;
  /**
   * OpenTelemetry spans for this run (docs/tracing.md): `{ tracer }` uses yours, `true` the
   * host's (Node: OTLP/HTTP from `OTEL_EXPORTER_OTLP_ENDPOINT`) or else the global provider's,
   * `false` none. Unset: the host decides (Node traces when that variable is set).
   */
  tracing?: boolean | RunTracing;
  /** Seeds prior outputs: table key (or name) to rows with `nodeId` and `iteration`. */
  initialOutputs?: Record<string, Array<Record<string, unknown>>>;
  initialIteration?: number;
  initialIterations?: Record<string, number> | Map<string, number>;
  resumeClaim?: { claimOwnerId: string; claimHeartbeatAtMs: number; restoreRuntimeOwnerId?: string; restoreHeartbeatAtMs?: number };
}

/** SPEC.md `RunResult`. */
export interface RunResult<Output = unknown> {
  runId: string;
  status: RunStatus;
  output?: Output;
  error?: { code: string; message: string; details?: Record<string, unknown> };
  nextRunId?: string;
}

/** SPEC.md `RetryTaskOptions`. */
export interface RetryTaskOptions {
  runId: string;
  nodeId: string;
  iteration?: number;
  /** Default true. */
  resetDependents?: boolean;
  /** Default false: refuse while the run is owned by a live process. */
  force?: boolean;
  /** Default false: reset approvals, human tasks, signals and events are asked again; true keeps their earlier decisions. */
  keepDecisions?: boolean;
  onProgress?: (event: FlowEvent) => void;
}

/** SPEC.md `RetryTaskResult`, with the decisions the reset met (`decisions`). */
export interface RetryTaskResult {
  success: boolean;
  resetNodes: string[];
  /** Decided waits among the reset nodes: asked again, or kept with `keepDecisions`. */
  decisions?: ResetDecision[];
  error?: string;
}

/** SPEC.md `TaskDescriptor`: what a render says about one task. */
export interface TaskDescriptor {
  nodeId: string;
  ordinal: number;
  iteration: number;
  ralphId?: string;
  /** In nested loops: the iteration of each enclosing loop and of its own, by loop id. */
  iterationPath?: Record<string, number>;
  dependsOn?: string[];
  needs?: Record<string, string>;
  forkSource?: string;
  worktreeId?: string;
  worktreePath?: string;
  worktreeBranch?: string;
  worktreeBaseBranch?: string;
  /** The schema key. */
  outputTable: string;
  /** The SQL table name. */
  outputTableName: string;
  outputRef?: unknown;
  outputSchema?: AnyObjectSchema;
  parallelGroupId?: string;
  parallelMaxConcurrency?: number;
  subtreeGroupId?: string;
  subtreeChildKey?: string;
  subtreeMax?: number;
  needsApproval: boolean;
  waitAsync?: boolean;
  approvalMode?: "gate" | "decision" | "select" | "rank";
  approvalOnDeny?: "fail" | "continue" | "skip";
  approvalOptions?: unknown[];
  approvalAllowedScopes?: string[];
  approvalAllowedUsers?: string[];
  approvalAutoApprove?: { after?: unknown; audit?: unknown; conditionMet?: boolean; revertOnMet?: boolean };
  skipIf: boolean;
  retries: number;
  retryPolicy?: RetryPolicy;
  timeoutMs: number | null;
  heartbeatTimeoutMs: number | null;
  continueOnFail: boolean;
  cachePolicy?: CachePolicy;
  hijack?: unknown;
  onHijackExit?: "complete" | "reopen";
  agent?: AgentLike | AgentLike[];
  prompt?: string;
  staticPayload?: unknown;
  computeFn?: (...args: any[]) => unknown;
  label?: string;
  meta?: Record<string, unknown>;
  scorers?: ScorersMap;
  memoryConfig?: TaskMemoryConfig;
  /** Names of deps passed to a deps-aware child, resolved to node ids. */
  depsNodes?: Record<string, string>;
  /** The child is a deps-aware function (receives deps). */
  depsAware?: boolean;
  allowTools?: string[];
}

/** SPEC.md `GraphSnapshot`: one frame of a run. Persisted `tasks` omit functions, schemas and agents. */
export interface GraphSnapshot {
  runId: string;
  frameNo: number;
  xml: XmlNode | null;
  tasks: TaskDescriptor[];
}
