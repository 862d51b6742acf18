/**
 * @module durable-flow
 * The Node entry: the whole API a Node user imports. It re-exports `durable-flow/core` and adds
 * what needs Node: the SQLite factory, the Node runtime env and store adapters.
 */
export * from "../core/index.js";
export { createFlow, DEFAULT_DB_PATH } from "./create-flow.js";
export { bindWorkflows } from "./bind-workflows.js";
export type { SqliteFlowDb } from "./create-flow.js";
export { createNodeEnv } from "./engine/index.js";
export { openSqliteStore } from "./store/index.js";
export type { SqliteStore, SqliteStoreOptions } from "./store/index.js";
export { createExternalFlow } from "./create-external-flow.js";
export type { ExternalFlow } from "./create-external-flow.js";
// ---- backends (issue 3): PostgreSQL and PGlite stores, factories, config, store migration ----
export { openPostgresStore } from "./store/index.js";
export type { PostgresStore, PostgresStoreOptions } from "./store/index.js";
export { openPgliteStore } from "./store/index.js";
export type { PgliteStore, PgliteStoreOptions } from "./store/index.js";
export { bash, BASH_LIMITS, edit, grep, read, tools, write } from "./tools/index.js";
export { createFlowPostgres, DEFAULT_PGLITE_DIR } from "./create-flow-postgres.js";
export type { CreateFlowPostgresOptions, PgFlowTable, PostgresFlow, PostgresFlowDb } from "./create-flow-postgres.js";
export { openFlowBackend } from "./open-flow-backend.js";
export type { OpenedFlow, OpenFlowBackendOptions } from "./open-flow-backend.js";
export { resolveBackend, resolveDbPath } from "./config/index.js";
export type { ConfigSource, ResolveBackendOptions, ResolvedBackend } from "./config/index.js";
export { BACKENDS, CONFIG_FILE_NAME, FLOW_ENV } from "./config/index.js";
export type { BackendName, EnvMap, FlowConfigFile } from "./config/index.js";
// ---- agents: CLI agents (docs/agents.md) ----
export { BaseCliAgent, DEFAULT_CLI_MAX_OUTPUT_BYTES } from "./agents/index.js";
export { finishHijack, hijackNode, nativeHijackCommand, planHijack } from "./agents/index.js";
export type { HijackCommand, HijackInput, HijackPlan } from "./agents/index.js";
export type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter, InterpretedOutput } from "./agents/index.js";
export { plainTextInterpreter } from "./agents/index.js";
export type { ExtensionUiHandler, ExtensionUiRequest, ExtensionUiResponse } from "./agents/index.js";
export { SessionCliAgent } from "./agents/index.js";
export type { SessionCliAgentOptions } from "./agents/index.js";
export { ExecCliAgent } from "./agents/index.js";
export type { ExecCliAgentOptions } from "./agents/index.js";
export { ConversationCliAgent } from "./agents/index.js";
export type { ConversationCliAgentOptions } from "./agents/index.js";
export { LegacyConversationCliAgent } from "./agents/index.js";
export type { LegacyConversationCliAgentOptions } from "./agents/index.js";
export { MinimalHarnessCliAgent } from "./agents/index.js";
export type { MinimalHarnessCliAgentOptions } from "./agents/index.js";
export { ExtendedHarnessCliAgent } from "./agents/index.js";
export type { ExtendedHarnessCliAgentOptions } from "./agents/index.js";
export { IsolatedShareCliAgent } from "./agents/index.js";
export type { IsolatedShareCliAgentOptions } from "./agents/index.js";
export { WorkflowCliAgent } from "./agents/index.js";
export type { WorkflowCliAgentOptions } from "./agents/index.js";
export { ThreadCliAgent } from "./agents/index.js";
export type { ThreadCliAgentOptions } from "./agents/index.js";
export { BudgetCliAgent } from "./agents/index.js";
export type { BudgetCliAgentOptions } from "./agents/index.js";
export { StepEventCliAgent } from "./agents/index.js";
export type { StepEventCliAgentOptions } from "./agents/index.js";
export { GatewayRelayCliAgent } from "./agents/index.js";
export type { GatewayRelayCliAgentOptions } from "./agents/index.js";
export { LocalPresetCliAgent } from "./agents/index.js";
export type { LocalPresetCliAgentOptions } from "./agents/index.js";
export { DEFAULT_MIGRATION_BATCH_SIZE, migrateFlowStore } from "./migrate-store.js";
export type { MigratedTable, MigrateStoreOptions, MigrationProgressEvent, MigrationResult } from "./migrate-store.js";
export { createOpenApiTool, createOpenApiTools, createOpenApiToolSync, createOpenApiToolsSync, listOperations, loadOpenApiSpec } from "./tools/index.js";
// ---- workspaces and hot reload (docs/workspaces.md, docs/hot-reload.md) ----
export { createNodeWorkspaces, prepareSandbox, prepareWorktree, removeRunSandboxes, removeRunWorkspaces, removeRunWorktrees } from "./workspace/index.js";
export type { RemovedWorkspaces, RemovedWorktrees, RemoveWorktreesOptions } from "./workspace/index.js";
// ---- time travel (docs/time-travel.md): timeTravel, revertToAttempt, forkRun, replayRun come from core ----
export { createGitVcs, type GitVcsOptions } from "./vcs/index.js";
export { createNodeHotReload, HOT_RELOAD_DEFAULTS } from "./hot/index.js";
export type { NodeHotBuild, NodeHotReloadPort, NodeHotWatchOptions, StopWatching } from "./hot/index.js";
// ---- hosting: startServer and the serve app (docs/hosting.md) ----
export { startServer } from "./server/index.js";
export type { FlowServer, ServerOptions } from "./server/index.js";
export { createFlowMetrics } from "./server/index.js";
export type { FlowMetrics, MetricsSource } from "./server/index.js";
export { createServeApp } from "./server/index.js";
export type { ServeApp, ServeOptions } from "./server/index.js";
// ---- tracing: OpenTelemetry over OTLP/HTTP (docs/tracing.md) ----
export { createOtlpTracing, otlpTracingFromEnv } from "./tracing/index.js";
export type { OtlpTracing, OtlpTracingOptions } from "./tracing/index.js";
// ---- hosting: the Gateway (docs/hosting.md) ----
export { Gateway } from "./server/index.js";
export type { GatewayCloseOptions, GatewayListenOptions } from "./server/index.js";
export { cronPollMs, GATEWAY_DEFAULTS, resolveGatewayOptions } from "./server/index.js";
export type { GatewayOptions, GatewayRegisterOptions, GatewayUiConfig, GatewayWebhookConfig, ResolvedGatewayOptions } from "./server/index.js";
export type { UiMount, UiMounts } from "./server/index.js";
export type { UiSource, UiFile } from "./server/index.js";
export { assertOriginAllowed, gatewayAuthenticate } from "./server/index.js";
export type { AuthClock, GatewayAuthConfig, JwtAuthConfig, TokenAuthConfig, TokenGrant, TrustedProxyAuthConfig } from "./server/index.js";
export type { ExtensionContext, GatewayExtension } from "./server/index.js";
// ---- team workspaces (docs/multiplayer.md) ----
export type { GatewayTeamOptions } from "../sync/server.js";
export { prepareTeamWorkspace } from "../sync/server.js";
export { Membership, ROLE_SCOPES, WORKSPACE_ROLES } from "../sync/server.js";
export type { WorkspaceMember, WorkspaceRole } from "../sync/server.js";
export type { TeamWorkspaceRow } from "./sync/index.js";
export { signWebhookBody, verifyWebhookSignature } from "./server/index.js";
export type { WebhookResult } from "./server/index.js";
export type { ClientFrame, ConnectFrame, RequestFrame, RunSubscriptionRequest, ServerFrame } from "./server/index.js";
