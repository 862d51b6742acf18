/**
 * @module durable-flow/sync
 * Team workspaces (DESIGN.md "sync/", docs/multiplayer.md): the Electric shapes a team
 * workspace serves (`TEAM_SHAPES`), the multiplayer collections that read them
 * (`createTeamCollections`: `runs` and `approvals` from shapes, writes confirmed by txid),
 * membership and roles, the Gateway's authorizing shape proxy, and the preparation of a
 * PostgreSQL store for a workspace. Runtime-agnostic: it imports `core/` only; the Node half
 * (txid capture on `pg`, the Gateway's team hooks, the `workspace` extension) is node/sync/,
 * reached through `GatewayOptions.team` of `durable-flow`.
 *
 * Only this entry loads `@tanstack/electric-db-collection`: a local-only user of
 * `durable-flow/data` never bundles it.
 */
export { createTeamCollections, multiplayerSource } from "./source-multiplayer.js";
export type { TeamOfflineOptions } from "./source-multiplayer.js";
export { savedRows } from "./shape-cache.js";
export { isQueued } from "./team-writes.js";
export type { QueuedAnswer } from "./team-writes.js";
export { assertRoleAllows, describeRefusal, notReached, WriteQueue } from "./write-queue.js";
export type { QueuedWrite, QueuedWriteKind, WriteQueueStore } from "./write-queue.js";
// What the Gateway uses too (its own door, sync/server.ts, leaves the collections out).
export * from "./server.js";
