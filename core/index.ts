/**
 * @module durable-flow/core
 * The runtime-agnostic subset of Flow: JSX runtime, components, the engine, the store port and
 * its SQL, errors. Nothing here imports Node built-ins (DESIGN.md seam 1).
 */
export { isAgentLike } from "./agents/types.js";
export { createFlowApi } from "./api/create-api.js";
export { defineWorkflows } from "./api/define-workflows.js";
export type { WorkflowSet } from "./api/define-workflows.js";
export type { CreateFlowOptions, FlowApi, TypedTask, TypedWaits } from "./api/create-api.js";
export { externalBuild } from "./api/external.js";
export type { ExternalConfig, SerializedCtx } from "./api/external.js";
export { Branch, Loop, Parallel, Ralph, Sequence, Task, Workflow } from "./components/index.js";
export { Approval, ApprovalGate, approvalDecisionSchema, approvalRankingSchema, approvalSelectionSchema, HumanTask, Signal, Timer, WaitForEvent } from "./components/waits.js";
export type {
  ApprovalGateProps,
  ApprovalOption,
  ApprovalProps,
  ApprovalRequest,
  AutoApprove,
  HumanTaskProps,
  SignalProps,
  TimerProps,
  WaitForEventProps,
} from "./components/wait-types.js";
export { listPendingApprovals, listRunsToWake, submitApproval, submitEvent, submitHumanTask, submitSignal } from "./engine/waits/deliver.js";
export type { DeliveryActor, DeliveryResult, PendingApproval, SubmitApprovalInput, SubmitHumanTaskInput, SubmitSignalInput } from "./engine/waits/deliver.js";
export { parseDuration } from "./engine/waits/spec.js";
export { MergeQueue, Sandbox, Worktree } from "./components/control-flow.js";
export type { MergeQueueProps, SandboxProps, WorktreeProps } from "./components/control-flow.js";
export { ContinueAsNew, continueAsNew, Subflow } from "./components/runs.js";
export type { ContinueAsNewProps, SubflowProps } from "./components/runs.js";
export {
  Aspects,
  CheckSuite,
  checkVerdictSchema,
  ClassifyAndRoute,
  classificationSchema,
  ContentPipeline,
  Debate,
  debateArgumentSchema,
  DecisionTable,
  driftCompareSchema,
  DriftDetector,
  EscalationChain,
  escalationRecordSchema,
  GatherAndSynthesize,
  Kanban,
  libraryComponents,
  matchingRules,
  Optimizer,
  optimizerScoreSchema,
  Panel,
  pollCheckSchema,
  pollDelayMs,
  Poller,
  ReviewLoop,
  reviewVerdictSchema,
  Runbook,
  ScanFixVerify,
  scanFindingsSchema,
  Sidecar,
  sidecarDeltaSchema,
  suitePasses,
  tallyVotes,
  verifyResultSchema,
} from "./components/library/index.js";
export type {
  AgentOrChain,
  AgentOrFunction,
  AspectsProps,
  CheckSpec,
  CheckSuiteProps,
  ClassifyAndRouteProps,
  ContentPipelineProps,
  DebateProps,
  DecisionRule,
  DecisionTableProps,
  DriftDetectorProps,
  EscalationChainProps,
  EscalationLevel,
  GatherAndSynthesizeProps,
  GatherSource,
  KanbanColumn,
  KanbanProps,
  KanbanTicket,
  LibraryComponents,
  OptimizerProps,
  Panelist,
  PanelProps,
  PanelTally,
  PanelTaskProps,
  PipelineStage,
  PollerProps,
  ReviewLoopProps,
  RouteCategory,
  RunbookProps,
  RunbookStep,
  ScanFixVerifyProps,
  SidecarProps,
  StepTaskProps,
} from "./components/library/index.js";
export { Saga, SagaStep, TryCatchFinally } from "./components/scopes.js";
export type { SagaProps, SagaStepProps, SagaStepSpec, TryCatchFinallyProps } from "./components/scopes.js";
export type {
  BranchProps,
  CachePolicy,
  CommonTaskProps,
  DepsOf,
  DepsSpec,
  LoopProps,
  OutputKey as OutputKeyName,
  OutputTarget,
  ParallelProps,
  RetryPolicy,
  RowInput,
  RowKey,
  RowOf,
  SchemaMap,
  SequenceProps,
  TaskChildren,
  TaskProps,
  TaskRuntime,
  WorkflowProps,
} from "./components/index.js";
export { attachBinding, bindingOf } from "./engine/binding.js";
export type { StoreBinding } from "./engine/binding.js";
export type { FlowCtx, InputOf, OutputsAccessor, RunOutputOf } from "./engine/ctx.js";
export type {
  AgentGenerationFinishedEvent,
  AgentGenerationStartedEvent,
  AgentTextDeltaEvent,
  AgentToolCallEvent,
  AgentToolResultEvent,
  EventInit,
  FlowEvent,
  FlowEventType,
} from "./engine/events.js";
export { FlowDb } from "./engine/flow-db.js";
export type { AttemptRecord, NodeRecord, RunRecord, RunUsage } from "./engine/flow-db.js";
export { retryTask } from "./engine/retry-task.js";
export * from "./time-travel/index.js";
export { runWorkflow } from "./engine/run.js";
export { ownerStateOf, stopRun } from "./engine/run-control.js";
export type { RunOwnerState, StopRunOptions, StopRunResult } from "./engine/run-control.js";
export { workflowNameOf } from "./engine/workflow-identity.js";
export { TERMINAL_STATUSES } from "./engine/status.js";
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
} from "./engine/types.js";
export { createDefaultEnv, systemClock } from "./engine/world.js";
export type { ClockPort, RunLogSink, RuntimeEnv } from "./engine/world.js";
export { ERROR_CODES, errorToJson, FlowError, httpStatusOf, isFlowError } from "./errors.js";
export type { FlowErrorCode, FlowErrorJson } from "./errors.js";
export { createElement, Fragment, isFlowElement } from "./jsx/element.js";
export type { Component, FlowElement, FlowNode } from "./jsx/element.js";
export { fromJson, toXml } from "./jsx/host.js";
export type { HostElement, HostNode, HostNodeJson, XmlNode } from "./jsx/host.js";
export { renderNodes } from "./jsx/render.js";
export { INPUT_KEY, SchemaRegistry } from "./schema/registry.js";
export type { TableEntry } from "./schema/registry.js";
export type { AnyObjectSchema, ColumnSpec } from "./schema/columns.js";
export type { FlowTable } from "./schema/tables.js";
export { ensureUserTables } from "./schema/ensure-tables.js";
export { migrateStore, MIGRATIONS, SCHEMA_VERSION } from "./store/migrations.js";
export { toPositionalParams } from "./store/dialect.js";
export type { Dialect, SqlExecutor, SqlRow, SqlValue, StorePort } from "./store/port.js";
export { sha256Hex, stableStringify } from "./util/hash.js";
// ---- agents (docs/agents.md) ----
export type { AgentActionKind, AgentEvent, AgentGenerateOptions, AgentLike, AgentMessage, AgentResult, AgentTimeout, AgentUsage } from "./agents/types.js";
export { correctionPrompt, extractAgentOutput, jsonSchemaOf, parseJsonFromText, REQUIRED_OUTPUT_MARKER, withRequiredOutput } from "./agents/output.js";
export { CLI_AGENT_ENGINES, defaultCapabilityRegistry, FLOW_ORCHESTRATE_SKILL_ID, hashCapabilityRegistry, normalizeCapabilityRegistry } from "./agents/capabilities.js";
export type { AgentCapabilityRegistry, CliAgentEngine, RuntimeToolSource } from "./agents/capabilities.js";
export { classifyAgentError, classifyFailureText, DEFAULT_QUOTA_BACKOFF_MS, parseResetTime, retryAtFromHeaders } from "./agents/failure.js";
export type { AgentFailure, AgentFailureKind } from "./agents/failure.js";
export { DEFAULT_MAX_SCHEMA_RETRIES, runAgentTask } from "./agents/run-agent.js";
export type { AgentAttemptMeta, AgentSessionRef, AgentTaskInput } from "./agents/run-agent.js";
export { addUsage, normalizeUsage, rollUpUsage } from "./agents/usage.js";
export { AttemptTranscript, GenerationRecorder } from "./agents/transcript.js";
export type { AttemptTranscriptOptions, GenerationEnd, TranscriptSink } from "./agents/transcript.js";
export { buildTranscripts } from "./agents/transcript-view.js";
export type { TranscriptAttempt, TranscriptGeneration, TranscriptToolCall } from "./agents/transcript-view.js";
export { costOf, DEFAULT_PRICES, priceOf } from "./agents/prices.js";
export type { ModelPrice, PriceTable } from "./agents/prices.js";
// Types only: the tracer module (and @opentelemetry/api) loads when a run is traced (docs/tracing.md).
export type { RunTracing } from "./tracing/run-tracer.js";
export { createToolContextFactory, defineTool, getDefinedToolMetadata, installAttemptContext, TOOL_DEFAULTS, TOOL_METADATA, toolIdempotencyKey } from "./tools/index.js";
export type {
  AnyTool,
  AttemptContextPort,
  CurrentAttempt,
  DefineToolOptions,
  JsonSchema,
  Tool,
  ToolAttemptScope,
  ToolCallRecord,
  ToolCallResult,
  ToolContext,
  ToolContextFactory,
  ToolContextFactoryOptions,
  ToolDurabilityHandle,
  ToolMetadata,
  ToolSnapshotRequest,
} from "./tools/index.js";
// ---- memory and scorers (docs/memory.md, docs/scorers.md) ----
export {
  activeMemory,
  attachMemoryEngine,
  createEngineMemoryStore,
  createLocalMemoryEngine,
  createMemoryLayer,
  createMemoryStore,
  DEFAULT_MEMORY_MAX_TOKENS,
  DEFAULT_SEARCH_LIMIT,
  isNamespaceKind,
  memoryEngineOf,
  MemoryService,
  memoryStoreOf,
  NAMESPACE_KINDS,
  namespaceKey,
  parseNamespace,
  prepareTaskMemory,
  processorsFromConfig,
  retainTaskMemory,
  serializeNamespace,
  Summarizer,
  TokenLimiter,
  TtlGarbageCollector,
} from "./memory/index.js";
export type {
  EffectTwins,
  EngineMemoryOps,
  EngineMemoryStore,
  EngineMemoryStoreOptions,
  MemoryEnginePort,
  MemoryProcessor,
  MemoryProcessorConfig,
  MessageHistoryConfig,
  PreparedTaskMemory,
  Primer,
  ProcessorResult,
  RecallBudget,
  RecalledMemory,
  RecallOptions,
  RetainOptions,
  SemanticRecallConfig,
  SummarizerAgent,
  TaskMemoryConfig,
  TaskMemoryContext,
  WorkingMemoryConfig,
  MemoryFact,
  MemoryMessage,
  MemoryNamespace,
  MemoryNamespaceKind,
  MemoryNote,
  MemoryProvenance,
  MemoryServiceApi,
  MemoryStore,
  MemoryStoreApi,
  MemoryThread,
  NamespaceInput,
  NoteReadFilter,
  SaveMessageInput,
  SaveNoteInput,
} from "./memory/index.js";
export { ToolLoopSdkAgent } from "./agents/sdk/tool-loop-sdk-agent.js";
export type { SdkAgentOptions } from "./agents/sdk/tool-loop-sdk-agent.js";
export { toSdkTools } from "./agents/sdk/sdk-tools.js";
export type { AgentToolSet } from "./agents/sdk/sdk-tools.js";
export { HostedMessagesAgent } from "./agents/sdk/hosted-messages-agent.js";
export type { HostedMessagesAgentOptions } from "./agents/sdk/hosted-messages-agent.js";
export { HostedChatAgent } from "./agents/sdk/hosted-chat-agent.js";
export type { HostedChatAgentOptions } from "./agents/sdk/hosted-chat-agent.js";
export { LOCAL_SERVER_API_KEY_ENV, LOCAL_SERVER_BASE_URL_ENV, LOCAL_SERVER_DEFAULT_MODEL, LocalServerAgent } from "./agents/sdk/local-server-agent.js";
export type { LocalServerAgentOptions } from "./agents/sdk/local-server-agent.js";
export { aggregateScores, createLlmJudge, createScorer, isSampled, listScores, scoreAttempt, scoreRuns, SCORES_TABLE } from "./scorers/index.js";
export type {
  AggregateOptions,
  AggregateScore,
  AttemptToScore,
  BatchTarget,
  CreateScorerConfig,
  LlmJudgeConfig,
  SamplingConfig,
  ScoreResult,
  Scorer,
  ScorerBinding,
  ScorerContext,
  ScorerInput,
  ScoreRow,
  ScoreRunsOptions,
  ScoreRunsResult,
  ScorersMap,
  ScoringEnv,
} from "./scorers/index.js";
export { createHttpTool, HTTP_METHODS } from "./tools/index.js";
export type { HttpMethod, HttpToolInput, HttpToolOptions, HttpToolResult } from "./tools/index.js";
export { createOpenApiTool, createOpenApiTools, createOpenApiToolSync, createOpenApiToolsSync, listOperations, loadOpenApiSpec, OPENAPI_METHODS } from "./tools/index.js";
export type {
  OpenApiAuth,
  OpenApiCuratedOperation,
  OpenApiInput,
  OpenApiMethod,
  OpenApiOperation,
  OpenApiOperationInfo,
  OpenApiParameter,
  OpenApiReadOptions,
  OpenApiSkippedOperation,
  OpenApiSpec,
  OpenApiTool,
  OpenApiToolArgs,
  OpenApiToolsOptions,
} from "./tools/index.js";
// ---- workspaces and hot reload ports (docs/workspaces.md, docs/hot-reload.md) ----
export type { HotBuild, HotReloadPort, PreparedWorkspace, WorkspacePort, WorkspaceSpec } from "./engine/workspace-port.js";
// ---- hosting: the domain API (docs/hosting.md) ----
export { createDomainHandler, DEFAULT_MAX_BODY_BYTES } from "./api/handler.js";
export type { DomainHandler, DomainHandlerOptions } from "./api/handler.js";
export { errorEnvelope, errorResponse, jsonResponse, okEnvelope, okResponse } from "./api/envelope.js";
export type { EnvelopeError, ErrorEnvelope, OkEnvelope, RpcEnvelope } from "./api/envelope.js";
export { API_KEY_IDENTITY, bearerAuthenticate, bearerTokenOf, constantTimeEqual, runAuthOf } from "./api/identity.js";
export type { Authenticate, BearerAuthOptions, CallerIdentity } from "./api/identity.js";
export { checkScope, hasScope, METHOD_SCOPES, methodNotFound, requireScope, SCOPES } from "./api/scopes.js";
export type { RpcMethodName, Scope } from "./api/scopes.js";
export { TERMINAL_EVENT_TYPES } from "./api/host.js";
export type { ActiveRun, GatewayHost, RegisteredWorkflow, ResumeRunOptions, StartRunRequest, Unsubscribe } from "./api/host.js";
export { LocalGatewayHost, WORKFLOW_ANNOTATION } from "./api/local-host.js";
export { pickUpRuns } from "./api/pick-up.js";
export type { LocalGatewayHostOptions } from "./api/local-host.js";
export { ChangeFeed } from "./api/change-feed.js";
export type { ChangesSince, DomainChange, DomainChangeInit } from "./api/change-feed.js";
export { RunEventHub } from "./api/run-event-hub.js";
export { invokeRpc, RPC_METHODS } from "./api/rpc-methods.js";
export { isRpcStream, notAvailableMethod, rpcStream } from "./api/rpc-types.js";
export type { RpcMethod, RpcStream, RpcStreamFrame, RpcStreamSink } from "./api/rpc-types.js";
export { CRON_IDENTITY, fireCron } from "./api/rpc-cron.js";
export { cronStore, nextFireOf } from "./api/cron-store.js";
export type { CronInit, CronRow } from "./api/cron-store.js";
export { listRunRows, runRow, summaryRow, workflowRow } from "./api/read-model.js";
export type { GatewayRunNode, GatewayRunRow, GatewayRunSummaryRow, GatewayWorkflowRow, RunFilter, RunPage, RunUsageSummary } from "./api/read-model.js";
export type { GatewayPromptRow, NodeOutputResult } from "./api/rpc-reads.js";
export type { RewindRunResult, RunStatusResult } from "./api/rpc-runs.js";
export { whatHappened } from "./api/what-happened.js";
export type { WhatHappened } from "./api/what-happened.js";
export { assertDeclaredSize, readBodyText, readJsonBody } from "./api/body.js";
export { sseResponse } from "./api/sse.js";
export type { SseEvent, SseWriter } from "./api/sse.js";
