/**
 * @module core/api
 * The domain API as web-standard `fetch` handlers: the wire contract (contract.ts), the RPC
 * methods and `/v1/api/*` routes, the host port and its local implementation, the read model,
 * the run-event hub and change feed. node/server mounts it; browser/worker serves it over comlink.
 * This front door holds the published names only (durable-flow/core re-exports it whole; the
 * row types durable-flow/data publishes too); what Flow's other areas take beyond them (the
 * contract's routes, paths and schemas, the row mappers, ...) is at the internal door,
 * core/api/internal.ts.
 */
export { assertDeclaredSize, readBodyText, readJsonBody } from "./body.js";
export { ChangeFeed } from "./change-feed.js";
export type { ChangesSince, DomainChange, DomainChangeInit } from "./change-feed.js";
export { createFlowApi } from "./create-api.js";
export type { CreateFlowOptions, FlowApi, TypedTask, TypedWaits } from "./create-api.js";
export { cronStore, nextFireOf } from "./cron-store.js";
export type { CronInit, CronRow } from "./cron-store.js";
export { defineWorkflows } from "./define-workflows.js";
export type { WorkflowSet } from "./define-workflows.js";
export { errorEnvelope, errorResponse, jsonResponse, okEnvelope, okResponse } from "./envelope.js";
export type { EnvelopeError, ErrorEnvelope, OkEnvelope, RpcEnvelope } from "./envelope.js";
export { externalBuild } from "./external.js";
export type { ExternalConfig, SerializedCtx } from "./external.js";
export { createDomainHandler, DEFAULT_MAX_BODY_BYTES } from "./handler.js";
export type { DomainHandler, DomainHandlerOptions } from "./handler.js";
export { TERMINAL_EVENT_TYPES } from "./host.js";
export type { ActiveRun, GatewayHost, RegisteredWorkflow, ResumeRunOptions, StartRunRequest, Unsubscribe } from "./host.js";
export { API_KEY_IDENTITY, bearerAuthenticate, bearerTokenOf, constantTimeEqual, runAuthOf } from "./identity.js";
export type { Authenticate, BearerAuthOptions, CallerIdentity } from "./identity.js";
export { LocalGatewayHost, WORKFLOW_ANNOTATION } from "./local-host.js";
export type { LocalGatewayHostOptions } from "./local-host.js";
export type { MemoryNamespaceInfo } from "./memory-routes.js";
export { pickUpRuns } from "./pick-up.js";
export { listRunRows, runRow, summaryRow, workflowRow } from "./read-model.js";
export type { GatewayPromptRow, GatewayRunNode } from "./node-rows.js";
export type { GatewayRunRow, GatewayRunSummaryRow, GatewayWorkflowRow, RunFilter, RunPage, RunUsageSummary } from "./read-model.js";
export { CRON_IDENTITY, fireCron } from "./rpc-cron.js";
export { invokeRpc, RPC_METHODS } from "./rpc-methods.js";
export type { NodeOutputResult } from "./rpc-reads.js";
export type { RewindRunResult, RunStatusResult } from "./rpc-runs.js";
export { isRpcStream, notAvailableMethod, rpcStream } from "./rpc-types.js";
export type { RpcMethod, RpcStream, RpcStreamFrame, RpcStreamSink } from "./rpc-types.js";
export { RunEventHub } from "./run-event-hub.js";
export { checkScope, hasScope, METHOD_SCOPES, methodNotFound, requireScope, SCOPES } from "./scopes.js";
export type { RpcMethodName, Scope } from "./scopes.js";
export { sseResponse } from "./sse.js";
export type { SseEvent, SseWriter } from "./sse.js";
export type { WaitInfo } from "./wait-routes.js";
export type { WorkflowUsage, WorkflowUsageDay } from "./workflow-usage.js";
export { whatHappened } from "./what-happened.js";
export type { WhatHappened } from "./what-happened.js";
