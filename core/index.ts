/**
 * @module durable-flow/core
 * The runtime-agnostic subset of Flow: JSX runtime, components, the engine, the store port and
 * its SQL, errors. Nothing here imports Node built-ins (DESIGN.md seam 1).
 */
export { createFlowApi } from "./api/index.js";
export { defineWorkflows } from "./api/index.js";
export type { WorkflowSet } from "./api/index.js";
export type { CreateFlowOptions, FlowApi, TypedTask, TypedWaits } from "./api/index.js";
export { externalBuild } from "./api/index.js";
export type { ExternalConfig, SerializedCtx } from "./api/index.js";
// ---- components (docs/components.md): the area's door is all public ----
export * from "./components/index.js";
export type { OutputKey as OutputKeyName } from "./components/index.js";
export { listPendingApprovals, listRunsToWake, submitApproval, submitEvent, submitHumanTask, submitSignal } from "./engine/index.js";
export type { DeliveryActor, DeliveryResult, PendingApproval, SubmitApprovalInput, SubmitHumanTaskInput, SubmitSignalInput } from "./engine/index.js";
export { parseDuration } from "./engine/index.js";
export { attachBinding, bindingOf } from "./engine/index.js";
export type { StoreBinding } from "./engine/index.js";
export type { FlowCtx, InputOf, OutputsAccessor, RunOutputOf } from "./engine/index.js";
export type {
  AgentGenerationFinishedEvent,
  AgentGenerationStartedEvent,
  AgentTextDeltaEvent,
  AgentToolCallEvent,
  AgentToolResultEvent,
  EventInit,
  FlowEvent,
  FlowEventType,
} from "./engine/index.js";
export { FlowDb } from "./engine/index.js";
export type { AttemptRecord, NodeRecord, RunRecord, RunUsage } from "./engine/index.js";
export { retryTask } from "./engine/index.js";
export * from "./time-travel/index.js";
// Exported with time travel's entry before they moved into the engine (core/engine/travel/).
export { absoluteDir, attemptSnapshotsFor, dependentsOf, effectKey, recoverTimeTravel, settledEffectKeys } from "./engine/index.js";
export type { AttemptSnapshots } from "./engine/index.js";
export { runWorkflow } from "./engine/index.js";
export { ownerStateOf, stopRun } from "./engine/index.js";
export type { RunOwnerState, StopRunOptions, StopRunResult } from "./engine/index.js";
export { workflowNameOf } from "./engine/index.js";
export { TERMINAL_STATUSES } from "./engine/index.js";
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
} from "./engine/index.js";
export { createDefaultEnv, systemClock } from "./engine/index.js";
export type { ClockPort, RunLogSink, RuntimeEnv } from "./engine/index.js";
export { ERROR_CODES, errorToJson, FlowError, httpStatusOf, isFlowError } from "./errors.js";
export type { FlowErrorCode, FlowErrorJson } from "./errors.js";
export { createElement, Fragment, isFlowElement } from "./jsx/index.js";
export type { Component, FlowElement, FlowNode } from "./jsx/index.js";
export { fromJson, toXml } from "./jsx/index.js";
export type { HostElement, HostNode, HostNodeJson, XmlNode } from "./jsx/index.js";
export { renderNodes } from "./jsx/index.js";
export { INPUT_KEY, SchemaRegistry } from "./schema/index.js";
export type { TableEntry } from "./schema/index.js";
export type { AnyObjectSchema, ColumnSpec } from "./schema/index.js";
export type { FlowTable } from "./schema/index.js";
export { ensureUserTables } from "./schema/index.js";
export { migrateStore, MIGRATIONS, SCHEMA_VERSION } from "./store/index.js";
export { toPositionalParams } from "./store/index.js";
export type { Dialect, SqlExecutor, SqlRow, SqlValue, StorePort } from "./store/index.js";
export { sha256Hex, stableStringify } from "./util/index.js";
// ---- agents (docs/agents.md): the area's door is all public ----
export * from "./agents/index.js";
// Types only: the tracer module (and @opentelemetry/api) loads when a run is traced (docs/tracing.md).
export type { RunTracing } from "./tracing/index.js";
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
export { aggregateScores, createLlmJudge, createScorer, isSampled, listScores, scoreAttempt, SCORES_TABLE } from "./scorers/index.js";
export { scoreRuns } from "./engine/index.js";
export type {
  AggregateOptions,
  AggregateScore,
  AttemptToScore,
  CreateScorerConfig,
  LlmJudgeConfig,
  SamplingConfig,
  ScoreResult,
  Scorer,
  ScorerBinding,
  ScorerContext,
  ScorerInput,
  ScoreRow,
  ScorersMap,
  ScoringEnv,
} from "./scorers/index.js";
export type { BatchTarget, ScoreRunsOptions, ScoreRunsResult } from "./engine/index.js";
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
export type { HotBuild, HotReloadPort, PreparedWorkspace, WorkspacePort, WorkspaceSpec } from "./engine/index.js";
// ---- hosting: the domain API (docs/hosting.md) ----
export { createDomainHandler, DEFAULT_MAX_BODY_BYTES } from "./api/index.js";
export type { DomainHandler, DomainHandlerOptions } from "./api/index.js";
export { errorEnvelope, errorResponse, jsonResponse, okEnvelope, okResponse } from "./api/index.js";
export type { EnvelopeError, ErrorEnvelope, OkEnvelope, RpcEnvelope } from "./api/index.js";
export { API_KEY_IDENTITY, bearerAuthenticate, bearerTokenOf, constantTimeEqual, runAuthOf } from "./api/index.js";
export type { Authenticate, BearerAuthOptions, CallerIdentity } from "./api/index.js";
export { checkScope, hasScope, METHOD_SCOPES, methodNotFound, requireScope, SCOPES } from "./api/index.js";
export type { RpcMethodName, Scope } from "./api/index.js";
export { TERMINAL_EVENT_TYPES } from "./api/index.js";
export type { ActiveRun, GatewayHost, RegisteredWorkflow, ResumeRunOptions, StartRunRequest, Unsubscribe } from "./api/index.js";
export { LocalGatewayHost, WORKFLOW_ANNOTATION } from "./api/index.js";
export { pickUpRuns } from "./api/index.js";
export type { LocalGatewayHostOptions } from "./api/index.js";
export { ChangeFeed } from "./api/index.js";
export type { ChangesSince, DomainChange, DomainChangeInit } from "./api/index.js";
export { RunEventHub } from "./api/index.js";
export { invokeRpc, RPC_METHODS } from "./api/index.js";
export { isRpcStream, notAvailableMethod, rpcStream } from "./api/index.js";
export type { RpcMethod, RpcStream, RpcStreamFrame, RpcStreamSink } from "./api/index.js";
export { CRON_IDENTITY, fireCron } from "./api/index.js";
export { cronStore, nextFireOf } from "./api/index.js";
export type { CronInit, CronRow } from "./api/index.js";
export { listRunRows, runRow, summaryRow, workflowRow } from "./api/index.js";
export type { GatewayRunNode, GatewayRunRow, GatewayRunSummaryRow, GatewayWorkflowRow, RunFilter, RunPage, RunUsageSummary } from "./api/index.js";
export type { GatewayPromptRow, NodeOutputResult } from "./api/index.js";
export type { RewindRunResult, RunStatusResult } from "./api/index.js";
export { whatHappened } from "./api/index.js";
export type { WhatHappened } from "./api/index.js";
export { assertDeclaredSize, readBodyText, readJsonBody } from "./api/index.js";
export { sseResponse } from "./api/index.js";
export type { SseEvent, SseWriter } from "./api/index.js";
