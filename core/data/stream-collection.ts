/**
 * @module core/data/stream-collection
 * A TanStack DB collection whose rows the change stream writes one by one: the source of the
 * hot collections (`runs`, `runEvents`). A query collection re-diffs its whole row array on
 * every write (and copies the query cache), which costs milliseconds per change at 1000 rows;
 * here an upsert is one sync transaction of one row. `refetch()` reloads everything and writes
 * the difference (new, changed and gone rows). A failed load keeps the rows last served
 * (empty before the first success) and the collection stays usable (`lastError` says why).
 */
import { type Collection, createCollection } from "@tanstack/db";
import type { LiveCollectionUtils } from "./query-collection.js";

/**
 * What a stream collection is built from.
 * @example
 * streamCollection({ id: "events", fetch: () => listAllRunEvents(api, runId, 0), getKey: (e) => e.seq });
 */
export interface StreamCollectionSpec<T extends object, K extends string | number> {
  id: string;
  /** Every row (the full state). */
  fetch(): Promise<T[]>;
  getKey(row: T): K;
}

interface SyncControl<T extends object, K extends string | number> {
  begin(options?: { immediate?: boolean }): void;
  write(message: { type: "insert" | "update"; value: T } | { type: "delete"; key: K }): void;
  commit(): unknown;
  markReady(): void;
}

/**
 * Builds a stream collection.
 * @example
 * const runs = streamCollection({ id: "runs", fetch: () => allRuns(), getKey: (r) => r.runId });
 * runs.utils.writeUpsert(row); // one row, no refetch
 */
export function streamCollection<T extends object, K extends string | number>(spec: StreamCollectionSpec<T, K>): Collection<T, K, LiveCollectionUtils<T, K>> {
  let control: SyncControl<T, K> | undefined;
  const synced = new Map<K, T>();
  let loading: Promise<void> | undefined;
  const state = { lastError: undefined as unknown };

  const apply = (rows: T[], { replace }: { replace: boolean }) => {
    const c = control;
    if (!c) return;
    c.begin({ immediate: true });
    const seen = new Set<K>();
    for (const row of rows) {
      const key = spec.getKey(row);
      seen.add(key);
      const before = synced.get(key);
      const value = before && !replace ? { ...before, ...row } : row;
      c.write({ type: before ? "update" : "insert", value });
      synced.set(key, value);
    }
    if (replace) {
      for (const key of [...synced.keys()]) {
        if (seen.has(key)) continue;
        c.write({ type: "delete", key });
        synced.delete(key);
      }
    }
    c.commit();
  };

  const load = (): Promise<void> =>
    (loading ??= spec
      .fetch()
      .then(
        (rows) => {
          state.lastError = undefined;
          apply(rows, { replace: true });
        },
        (error: unknown) => {
          state.lastError = error;
        },
      )
      .finally(() => {
        loading = undefined;
        control?.markReady();
      }));

  const utils: LiveCollectionUtils<T, K> = {
    refetch: () => load(),
    writeUpsert: (rows) => apply((Array.isArray(rows) ? rows : [rows]) as T[], { replace: false }),
    writeDelete: (keys) => {
      const c = control;
      if (!c) return;
      c.begin({ immediate: true });
      for (const key of Array.isArray(keys) ? keys : [keys]) {
        if (!synced.delete(key)) continue;
        c.write({ type: "delete", key });
      }
      c.commit();
    },
    get lastError() {
      return state.lastError;
    },
    get isError() {
      return state.lastError !== undefined;
    },
  };

  return createCollection<T, K, LiveCollectionUtils<T, K>>({
    id: spec.id,
    getKey: spec.getKey,
    utils,
    sync: {
      rowUpdateMode: "full",
      sync: (params: unknown) => {
        control = params as unknown as SyncControl<T, K>;
        synced.clear();
        void load();
        return () => {
          control = undefined;
          synced.clear();
        };
      },
    },
  } as never) as unknown as Collection<T, K, LiveCollectionUtils<T, K>>;
}
