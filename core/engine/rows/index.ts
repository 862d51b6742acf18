/**
 * @module core/engine/rows
 * The engine's light front door: its row readers (`toRun`, `runFields`, `nodeFields`,
 * `pendingApprovalFields`) and status lists, without the engine itself (its database layer,
 * agents and the packages they load), for readers of rows such as a browser's shapes
 * (sync/shape-rows.ts) and the API's row mappers and result schemas. The same names are at
 * `core/engine/internal.ts`, which loads the whole engine.
 */
export { nodeFields, pendingApprovalFields, runFields, toRun } from "../row-fields.js";
export { NODE_STATES, RUN_STATUSES } from "../status.js";
