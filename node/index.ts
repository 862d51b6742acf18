/**
 * @module durable-flow
 * The Node entry: the whole API a Node user imports. It re-exports `durable-flow/core` and adds
 * what needs Node: the SQLite factory, the Node runtime env and store adapters.
 */
export * from "../core/index.js";
export { createFlow, DEFAULT_DB_PATH } from "./create-flow.js";
export { bindWorkflows } from "./bind-workflows.js";
export type { SqliteFlowDb } from "./create-flow.js";
export { createNodeEnv } from "./engine/env.js";
export { openSqliteStore } from "./store/sqlite.js";
export type { SqliteStore, SqliteStoreOptions } from "./store/sqlite.js";
export { createExternalFlow } from "./create-external-flow.js";
export type { ExternalFlow } from "./create-external-flow.js";
// ---- backends (issue 3): PostgreSQL and PGlite stores, factories, config, store migration ----
export { openPostgresStore } from "./store/postgres.js";
export type { PostgresStore, PostgresStoreOptions } from "./store/postgres.js";
export { openPgliteStore } from "./store/pglite.js";
export type { PgliteStore, PgliteStoreOptions } from "./store/pglite.js";
export { bash, BASH_LIMITS, edit, grep, read, tools, write } from "./tools/index.js";
export { createFlowPostgres, DEFAULT_PGLITE_DIR } from "./create-flow-postgres.js";
export type { CreateFlowPostgresOptions, PgFlowTable, PostgresFlow, PostgresFlowDb } from "./create-flow-postgres.js";
export { openFlowBackend } from "./open-flow-backend.js";
export type { OpenedFlow, OpenFlowBackendOptions } from "./open-flow-backend.js";
export { resolveBackend } from "./config/resolve-backend.js";
export type { ConfigSource, ResolveBackendOptions, ResolvedBackend } from "./config/resolve-backend.js";
export { BACKENDS, CONFIG_FILE_NAME, FLOW_ENV } from "./config/config-file.js";
export type { BackendName, EnvMap, FlowConfigFile } from "./config/config-file.js";
// ---- agents: CLI agents (docs/agents.md) ----
export { BaseCliAgent, DEFAULT_CLI_MAX_OUTPUT_BYTES } from "./agents/cli/base-cli-agent.js";
export { finishHijack, hijackNode, nativeHijackCommand, planHijack } from "./agents/cli/hijack.js";
export type { HijackCommand, HijackInput, HijackPlan } from "./agents/cli/hijack.js";
export type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter, InterpretedOutput } from "./agents/cli/cli-types.js";
export { plainTextInterpreter } from "./agents/cli/cli-types.js";
export type { ExtensionUiHandler, ExtensionUiRequest, ExtensionUiResponse } from "./agents/cli/harness-rpc.js";
export { SessionCliAgent } from "./agents/cli/variants/session-cli-agent.js";
export type { SessionCliAgentOptions } from "./agents/cli/variants/session-cli-agent.js";
export { ExecCliAgent } from "./agents/cli/variants/exec-cli-agent.js";
export type { ExecCliAgentOptions } from "./agents/cli/variants/exec-cli-agent.js";
export { ConversationCliAgent } from "./agents/cli/variants/conversation-cli-agent.js";
export type { ConversationCliAgentOptions } from "./agents/cli/variants/conversation-cli-agent.js";
export { LegacyConversationCliAgent } from "./agents/cli/variants/legacy-conversation-cli-agent.js";
export type { LegacyConversationCliAgentOptions } from "./agents/cli/variants/legacy-conversation-cli-agent.js";
export { MinimalHarnessCliAgent } from "./agents/cli/variants/minimal-harness-cli-agent.js";
export type { MinimalHarnessCliAgentOptions } from "./agents/cli/variants/minimal-harness-cli-agent.js";
export { ExtendedHarnessCliAgent } from "./agents/cli/variants/extended-harness-cli-agent.js";
export type { ExtendedHarnessCliAgentOptions } from "./agents/cli/variants/extended-harness-cli-agent.js";
export { IsolatedShareCliAgent } from "./agents/cli/variants/isolated-share-cli-agent.js";
export type { IsolatedShareCliAgentOptions } from "./agents/cli/variants/isolated-share-cli-agent.js";
export { WorkflowCliAgent } from "./agents/cli/variants/workflow-cli-agent.js";
export type { WorkflowCliAgentOptions } from "./agents/cli/variants/workflow-cli-agent.js";
export { ThreadCliAgent } from "./agents/cli/variants/thread-cli-agent.js";
export type { ThreadCliAgentOptions } from "./agents/cli/variants/thread-cli-agent.js";
export { BudgetCliAgent } from "./agents/cli/variants/budget-cli-agent.js";
export type { BudgetCliAgentOptions } from "./agents/cli/variants/budget-cli-agent.js";
export { StepEventCliAgent } from "./agents/cli/variants/step-event-cli-agent.js";
export type { StepEventCliAgentOptions } from "./agents/cli/variants/step-event-cli-agent.js";
export { GatewayRelayCliAgent } from "./agents/cli/variants/gateway-relay-cli-agent.js";
export type { GatewayRelayCliAgentOptions } from "./agents/cli/variants/gateway-relay-cli-agent.js";
export { LocalPresetCliAgent } from "./agents/cli/variants/local-preset-cli-agent.js";
export type { LocalPresetCliAgentOptions } from "./agents/cli/variants/local-preset-cli-agent.js";
export { DEFAULT_MIGRATION_BATCH_SIZE, migrateFlowStore } from "./migrate-store.js";
export type { MigratedTable, MigrateStoreOptions, MigrationProgressEvent, MigrationResult } from "./migrate-store.js";
export { createOpenApiTool, createOpenApiTools, createOpenApiToolSync, createOpenApiToolsSync, listOperations, loadOpenApiSpec } from "./tools/openapi.js";
// ---- workspaces and hot reload (docs/workspaces.md, docs/hot-reload.md) ----
export { createNodeWorkspaces, prepareSandbox, prepareWorktree, removeRunSandboxes, removeRunWorkspaces, removeRunWorktrees } from "./workspace/index.js";
export type { RemovedWorkspaces, RemovedWorktrees, RemoveWorktreesOptions } from "./workspace/index.js";
// ---- time travel (docs/time-travel.md): timeTravel, revertToAttempt, forkRun, replayRun come from core ----
export { createGitVcs } from "./vcs/git.js";
export { createNodeHotReload, HOT_RELOAD_DEFAULTS } from "./hot/index.js";
export type { NodeHotBuild, NodeHotReloadPort, NodeHotWatchOptions, StopWatching } from "./hot/index.js";
// ---- hosting: startServer and the serve app (docs/hosting.md) ----
export { startServer } from "./server/start-server.js";
export type { FlowServer, ServerOptions } from "./server/start-server.js";
export { createFlowMetrics } from "./server/metrics.js";
export type { FlowMetrics, MetricsSource } from "./server/metrics.js";
export { createServeApp } from "./server/serve-app.js";
export type { ServeApp, ServeOptions } from "./server/serve-app.js";
// ---- tracing: OpenTelemetry over OTLP/HTTP (docs/tracing.md) ----
export { createOtlpTracing, otlpTracingFromEnv } from "./tracing/otlp.js";
export type { OtlpTracing, OtlpTracingOptions } from "./tracing/otlp.js";
// ---- hosting: the Gateway (docs/hosting.md) ----
export { Gateway } from "./server/gateway.js";
export type { GatewayCloseOptions, GatewayListenOptions } from "./server/gateway.js";
export { cronPollMs, GATEWAY_DEFAULTS, resolveGatewayOptions } from "./server/gateway-options.js";
export type { GatewayOptions, GatewayRegisterOptions, GatewayUiConfig, GatewayWebhookConfig, ResolvedGatewayOptions } from "./server/gateway-options.js";
export type { UiMount, UiMounts } from "./server/ui/ui-mounts.js";
export type { UiSource, UiFile } from "./server/ui/ui-source.js";
export { assertOriginAllowed, gatewayAuthenticate } from "./server/auth/index.js";
export type { AuthClock, GatewayAuthConfig, JwtAuthConfig, TokenAuthConfig, TokenGrant, TrustedProxyAuthConfig } from "./server/auth/index.js";
export type { ExtensionContext, GatewayExtension } from "./server/extensions.js";
// ---- team workspaces (docs/multiplayer.md) ----
export type { GatewayTeamOptions } from "../sync/team-workspace.js";
export { prepareTeamWorkspace } from "../sync/team-workspace.js";
export { Membership, ROLE_SCOPES, WORKSPACE_ROLES } from "../sync/membership.js";
export type { WorkspaceMember, WorkspaceRole } from "../sync/membership.js";
export type { TeamWorkspaceRow } from "./sync/workspace-rpc.js";
export { signWebhookBody, verifyWebhookSignature } from "./server/webhooks/signature.js";
export type { WebhookResult } from "./server/webhooks/webhook-handler.js";
export type { ClientFrame, ConnectFrame, RequestFrame, RunSubscriptionRequest, ServerFrame } from "./server/ws/frames.js";
