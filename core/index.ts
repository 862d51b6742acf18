/**
 * @module durable-flow/core
 * The runtime-agnostic subset of Flow: JSX runtime, components, the engine, the store port and
 * its SQL, errors. Nothing here imports Node built-ins (DESIGN.md seam 1).
 */
// ---- the domain API and hosting (docs/hosting.md): core/api's front door is all public (its other names are at core/api/internal.ts) ----
export * from "./api/index.js";
// ---- components (docs/components.md): the area's door is all public ----
export * from "./components/index.js";
export type { OutputKey as OutputKeyName } from "./components/index.js";
// ---- the engine (docs/engine.md): core/engine's front door is all public (its other names are at core/engine/internal.ts) ----
export * from "./engine/index.js";
// Also a type of the components' door: the engine's is the one published as OutputKey.
export type { OutputKey } from "./engine/index.js";
export * from "./time-travel/index.js";
// Exported with time travel's entry before they moved into the engine (core/engine/travel/).
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
