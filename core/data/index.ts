/**
 * @module durable-flow/data
 * The data layer every Flow UI stands on (SPEC.md "Data layer"): `createDataClient` (the domain
 * API and its change stream, with the connection status) and `createCollections` (live
 * TanStack DB collections of runs, approvals, workflows, crons, ... kept current by the change
 * stream, with optimistic writes). Runs in browsers, workers and Node 20+. See docs/client.md.
 */
export type { ChangeStream, ChangeStreamEvent, ConnectionStatus, DataNotice, EventSourceConstructor, EventSourceLike } from "./change-stream.js";
export { createCollections } from "./collections.js";
export type { FlowCollections } from "./collections.js";
export type { DataApi, RunEventsPage } from "./data-api.js";
export { listAllRunEvents } from "./data-api.js";
export type { MemoryNamespaceInfo } from "../api/index.js";
export type { WaitInfo } from "../api/index.js";
export type { WorkflowUsage, WorkflowUsageDay } from "../api/index.js";
export { createDataClient } from "./data-client.js";
export type { DataClient, DataClientOptions } from "./data-client.js";
export type { LastSeenStore } from "./last-seen.js";
export type { LocalWorkspaceMode, MultiplayerWorkspaceMode, WorkspaceMode } from "./mode.js";
export type { LiveCollection } from "./query-collection.js";
export type {
  GatewayApprovalRow,
  GatewayCronRow,
  GatewayDocRow,
  GatewayMemoryFactRow,
  GatewayPromptRow,
  GatewayRunEventRow,
  GatewayRunNode,
  GatewayRunRow,
  GatewayRunSummaryRow,
  GatewayRunTreeRow,
  GatewayScoreRow,
  GatewayTicketRow,
  GatewayWorkflowRow,
} from "./rows.js";
export type { CollectionName, CollectionsOptions } from "./source.js";
export type { DataWrites } from "./writes.js";

// For Flow's other areas (not part of the documented entry).
export { createDataApi } from "./data-api.js";
export { assertMultiplayerMode, mergeHeaders } from "./mode.js";
export { runNodeKey } from "./rows.js";
export { localSource } from "./source.js";
export type { CollectionSource } from "./source.js";
