/**
 * @module core/api
 * The domain API as web-standard `fetch` handlers: the wire contract (contract.ts), the RPC
 * methods and `/v1/api/*` routes, the host port and its local implementation, the read model,
 * the run-event hub and change feed. node/server mounts it; browser/worker serves it over comlink.
 * Other areas import from here only.
 */
export { assertDeclaredSize, MAX_ID_LENGTH, readBodyBytes, readBodyText, readJsonBody } from "./body.js";
export { ChangeFeed } from "./change-feed.js";
export type { ChangesSince, DomainChange, DomainChangeInit } from "./change-feed.js";
export {
  ANNOTATIONS,
  API_ROUTES,
  extStreamPath,
  HEADERS,
  PATHS,
  routeLabel,
  routeUrl,
  rpcPath,
} from "./contract.js";
export type { ApiRoute, ApiRouteName } from "./contract.js";
export {
  approvalRowSchema,
  attemptSchema,
  deliveryResultSchema,
  errorJsonSchema,
  launchRunResultSchema,
  pauseRunResultSchema,
  runEventsPageSchema,
  runNodeSchema,
  runPageSchema,
  runRowSchema,
  runStatusResultSchema,
  runSummaryRowSchema,
  runUsageSummarySchema,
  workflowRowSchema,
} from "./results.js";
export { forkRunResultSchema, hijackRunResultSchema, resetDecisionSchema, retryNodeResultSchema, rewindRunResultSchema, signalDeliveryResultSchema, waitInfoSchema } from "./results-changes.js";
export { cronDeleteResultSchema, cronRowSchema, cronRunResultSchema, memoryFactRowSchema, memoryNamespaceInfoSchema, memoryNoteSchema, scoreRowSchema } from "./results-data.js";
export {
  graphSnapshotSchema,
  nodeOutputResultSchema,
  promptRowSchema,
  runUsageSchema,
  transcriptAttemptSchema,
  whatHappenedSchema,
  workflowUsageSchema,
  workspaceDiffSchema,
} from "./results-reads.js";
export { createFlowApi } from "./create-api.js";
export type { CreateFlowOptions, FlowApi, TypedTask, TypedWaits } from "./create-api.js";
export { cronStore, nextFireOf } from "./cron-store.js";
export type { CronInit, CronRow } from "./cron-store.js";
export { defineWorkflows } from "./define-workflows.js";
export type { WorkflowSet } from "./define-workflows.js";
export { errorEnvelope, errorResponse, jsonResponse, okEnvelope, okResponse } from "./envelope.js";
export type { EnvelopeError, ErrorEnvelope, OkEnvelope, RpcEnvelope } from "./envelope.js";
export { EXTENSION_PREFIX } from "./ext-routes.js";
export { externalBuild } from "./external.js";
export type { ExternalConfig, SerializedCtx } from "./external.js";
export { createDomainHandler, DEFAULT_MAX_BODY_BYTES } from "./handler.js";
export type { DomainHandler, DomainHandlerOptions } from "./handler.js";
export { TERMINAL_EVENT_TYPES } from "./host.js";
export type {
  ActiveRun,
  GatewayHost,
  HijackPlanSummary,
  HijackRequest,
  RegisteredWorkflow,
  ResumeRunOptions,
  StartRunRequest,
  Unsubscribe,
} from "./host.js";
export {
  API_KEY_IDENTITY,
  bearerAuthenticate,
  bearerTokenOf,
  constantTimeEqual,
  runAuthOf,
} from "./identity.js";
export type { Authenticate, BearerAuthOptions, CallerIdentity, DomainEnv } from "./identity.js";
export { LocalGatewayHost, WORKFLOW_ANNOTATION } from "./local-host.js";
export type { LocalGatewayHostOptions } from "./local-host.js";
export type { MemoryNamespaceInfo } from "./memory-routes.js";
export { pickUpRuns } from "./pick-up.js";
export { listRunRows, runRow, summaryRow, workflowRow } from "./read-model.js";
export { annotatedWorkflowKey, runAuthColumn, runRowOf, runSummaryOf } from "./run-rows.js";
export type { RunColumns, RunRowContext } from "./run-rows.js";
export { approvalRowOf, nodeKey, nodeRowOf, promptRowsOf, runNodeKey } from "./node-rows.js";
export type { GatewayApprovalRow, GatewayPromptRow, GatewayRunEventRow, GatewayRunNode } from "./node-rows.js";
export type {
  GatewayRunRow,
  GatewayRunSummaryRow,
  GatewayWorkflowRow,
  RunFilter,
  RunPage,
  RunUsageSummary,
} from "./read-model.js";
export type { RetryNodeResult } from "./retry-node.js";
export { CRON_IDENTITY, fireCron } from "./rpc-cron.js";
export type { CRON_METHODS } from "./rpc-cron.js";
export type { HUMAN_METHODS } from "./rpc-human.js";
export { invokeRpc, RPC_METHODS } from "./rpc-methods.js";
export type { NodeOutputResult, READ_METHODS } from "./rpc-reads.js";
export type { RewindRunResult, RUN_METHODS, RunStatusResult } from "./rpc-runs.js";
export type { STREAM_METHODS } from "./rpc-streams.js";
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
export { bodyHashOf, isWriteIdTaken, recordInTransaction, senderOf, WRITE_ID_RETENTION_MS, WriteIdLedger, writeIdOf } from "./write-ids.js";
export type { RecordedWrite, WriteRequest } from "./write-ids.js";
export type { WhatHappened } from "./what-happened.js";
