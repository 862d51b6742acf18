/**
 * @module core/api/wire
 * The domain API's light front door: what a client of the API needs (the route contract, the
 * scopes, the rows of runs and nodes as the API answers them, the write-id retention) without
 * the handler, the engine and the packages they load. The app's first view imports this, so a
 * page opens without evaluating the whole API (docs/performance.md "A team workspace
 * offline"); the same names are at the front door (published) or the internal door, which load the whole API.
 */
export { ANNOTATIONS, API_ROUTES, extStreamPath, HEADERS, routeLabel, routeUrl, rpcPath } from "../contract.js";
export type { ApiRouteName } from "../contract.js";
export { TERMINAL_EVENT_TYPES } from "../host.js";
export { approvalRowOf, nodeKey, nodeRowOf, runNodeKey } from "../node-rows.js";
export { annotatedWorkflowKey, runRowOf, runSummaryOf } from "../run-rows.js";
export type { RunRowContext } from "../run-rows.js";
export { hasScope, METHOD_SCOPES, requireScope, SCOPES } from "../scopes.js";
export type { RpcMethodName } from "../scopes.js";
export { MAX_ID_LENGTH } from "../body.js";
export { WRITE_ID_RETENTION_MS } from "../write-ids.js";
