/**
 * @module node/sync
 * The Node half of team workspaces: txid capture on `pg`, the Gateway's team hooks, the
 * `workspace` extension's RPC.
 */
export { TeamGateway } from "./team-gateway.js";
export type { TeamWorkspaceRow } from "../../sync/server.js";
