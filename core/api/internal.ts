/**
 * @module core/api/internal
 * The domain API's internal door: the names Flow's other areas (core/client, core/data, node/,
 * sync/, browser/, ui/) take from core/api that are not published (the wire contract's routes,
 * paths and result schemas, the row mappers, the RPC groups, write ids, body limits). The
 * published names are at the front door, core/api/index.ts, which durable-flow/core re-exports
 * whole. docs/architecture.md "Areas and their front doors".
 */
export { MAX_ID_LENGTH, readBodyBytes } from "./body.js";
export { ANNOTATIONS, API_ROUTES, extStreamPath, HEADERS, PATHS, routeLabel, routeUrl, rpcPath } from "./contract.js";
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
export {
  forkRunResultSchema,
  hijackRunResultSchema,
  resetDecisionSchema,
  retryNodeResultSchema,
  rewindRunResultSchema,
  signalDeliveryResultSchema,
  waitInfoSchema,
} from "./results-changes.js";
export {
  cronDeleteResultSchema,
  cronRowSchema,
  cronRunResultSchema,
  memoryFactRowSchema,
  memoryNamespaceInfoSchema,
  memoryNoteSchema,
  scoreRowSchema,
} from "./results-data.js";
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
export { EXTENSION_PREFIX } from "./ext-routes.js";
export type { HijackPlanSummary, HijackRequest } from "./host.js";
export type { DomainEnv } from "./identity.js";
export { annotatedWorkflowKey, runAuthColumn, runRowOf, runSummaryOf } from "./run-rows.js";
export type { RunColumns, RunRowContext } from "./run-rows.js";
export { approvalRowOf, nodeKey, nodeRowOf, promptRowsOf, runNodeKey } from "./node-rows.js";
export type { GatewayApprovalRow, GatewayRunEventRow } from "./node-rows.js";
export type { RetryNodeResult } from "./retry-node.js";
export type { CRON_METHODS } from "./rpc-cron.js";
export type { HUMAN_METHODS } from "./rpc-human.js";
export type { READ_METHODS } from "./rpc-reads.js";
export type { RUN_METHODS } from "./rpc-runs.js";
export type { STREAM_METHODS } from "./rpc-streams.js";
export { bodyHashOf, isWriteIdTaken, recordInTransaction, senderOf, WRITE_ID_RETENTION_MS, WriteIdLedger, writeIdOf } from "./write-ids.js";
export type { RecordedWrite, WriteRequest } from "./write-ids.js";
