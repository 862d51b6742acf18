/**
 * @module core/time-travel/adapter
 * What time travel takes as its `adapter`: a FlowDb, or anything with a workflow's `db`
 * handle (an api object), as `retryTask` does.
 */
import { FlowDb } from "../engine/index.js";

/**
 * A FlowDb, or an object carrying a workflow's `db` handle.
 * @example
 * const adapter: FlowDbLike = api; // or new FlowDb(api.db)
 */
export type FlowDbLike = FlowDb | { db?: unknown };

/**
 * The FlowDb of an adapter.
 * @example
 * const db = flowDbOf(api); // same as new FlowDb(api.db)
 */
export function flowDbOf(adapter: FlowDbLike): FlowDb {
  return adapter instanceof FlowDb ? adapter : new FlowDb(adapter.db ?? adapter);
}
