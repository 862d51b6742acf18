/**
 * @module core/data/query-collection
 * One TanStack DB collection over a TanStack Query query (query-db-collection): the source of
 * every collection in `local` mode. Defaults suit a change-stream-driven source: never stale
 * (refetched when the stream says so, not on focus or mount), no retries (the change stream
 * reconnects with backoff), and failed fetches keep the rows last served.
 */
import { type Collection, createCollection } from "@tanstack/db";
import type { QueryClient, QueryKey } from "@tanstack/query-core";
import { queryCollectionOptions } from "@tanstack/query-db-collection";

/**
 * What every collection of the data layer offers besides TanStack DB's API (query collections
 * and stream collections alike).
 * @example
 * if (collections.runs.utils.isError) console.log(collections.runs.utils.lastError);
 */
export interface LiveCollectionUtils<T extends object, K extends string | number> {
  /** Any (not unknown): TanStack DB types a collection's utils as `UtilsRecord`, so live queries accept these collections. */
  [key: string]: any;
  /** Reloads every row; resolves once they are applied. */
  refetch(): Promise<unknown>;
  /** Writes rows (merged into existing ones by key) as synced data, without a refetch. */
  writeUpsert(rows: Partial<T> | Array<Partial<T>>): void;
  /** Removes rows by key as synced data. */
  writeDelete(keys: K | K[]): void;
  /** The error of the last failed load (undefined after a success). */
  readonly lastError: unknown;
  readonly isError: boolean;
}

/**
 * A live collection of rows `T` keyed by `K` (a TanStack DB collection with `LiveCollectionUtils`).
 * @example
 * const open = collections.runs.toArray.filter((r) => r.status === "running");
 */
export type LiveCollection<T extends object, K extends string | number = string> = Collection<T, K, LiveCollectionUtils<T, K>>;

/**
 * What a query collection is built from.
 * @example
 * queryCollection({ id: "crons", queryKey: ["flow", "crons"], queryClient, fetch: () => api.listCrons(), getKey: (c) => c.cronId });
 */
export interface QueryCollectionSpec<T extends object, K extends string | number, D> {
  id: string;
  queryKey: QueryKey;
  queryClient: QueryClient;
  fetch(): Promise<D>;
  /** The rows of a fetched value (default: the value is the row array). */
  select?(data: D): T[];
  getKey(row: T): K;
}

/**
 * Builds a query collection.
 * @example
 * const workflows = queryCollection({ id: "workflows", queryKey: ["flow", "workflows"], queryClient, fetch: () => api.listWorkflows(), getKey: (w) => w.key });
 */
export function queryCollection<T extends object, K extends string | number, D = T[]>(spec: QueryCollectionSpec<T, K, D>): LiveCollection<T, K> {
  const options = queryCollectionOptions({
    id: spec.id,
    queryKey: spec.queryKey,
    queryClient: spec.queryClient,
    queryFn: () => spec.fetch() as Promise<never>,
    ...(spec.select ? { select: spec.select as (d: unknown) => T[] } : {}),
    getKey: spec.getKey as (row: object) => K,
    retry: false,
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  return createCollection(options as never) as unknown as LiveCollection<T, K>;
}
