/**
 * @module ui/components/queryable
 * A data-layer collection typed as `useLiveQuery` accepts. The data layer's collections carry
 * `LiveCollectionUtils` (with `isError`/`lastError` values beside functions), which TanStack
 * DB's `q.from` types reject (it wants utils of functions only); at runtime they are plain
 * TanStack DB collections, so this only changes the type.
 */
import type { Collection } from "@tanstack/db";
import type { LiveCollection } from "../../core/data/index.js";

/**
 * The collection, for `q.from`.
 * @example
 * const approvals = useLiveQuery((q) => q.from({ a: queryable(cols.approvals) }));
 */
export function queryable<T extends object, K extends string | number>(collection: LiveCollection<T, K>): Collection<T, K> {
  return collection as unknown as Collection<T, K>;
}
