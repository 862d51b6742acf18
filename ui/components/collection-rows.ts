/**
 * @module ui/components/collection-rows
 * A collection's rows as one array (sorted when asked), re-read once per batch of changes, for
 * a view that shows a whole collection (the runs list: 10,000 runs) or counts it (the approvals
 * badge). It stands in for a live query where the query would only sort or count: a live
 * query's first pass over 10,000 rows (its dataflow graph, then @tanstack/solid-db reconciling
 * every row into a deep Solid store) took seconds when a team workspace reopened offline with
 * its kept shapes (docs/performance.md "A team workspace offline"), where copying and sorting
 * the rows takes milliseconds; and the shell and the runs list, which open first, do not load
 * the live-query engine at all. The rows are the collection's own objects: a changed row is a
 * new object, so a view keyed by index re-renders that row only.
 */
import { type Accessor, createMemo, createSignal, onCleanup } from "solid-js";
import type { LiveCollection } from "../../core/data/index.js";

/** The rows and status of a followed collection (the parts of `useLiveQuery` the views read). */
export type CollectionRows<T> = Accessor<T[]> & { readonly isReady: boolean; readonly isError: boolean };

/**
 * Calls `onRows` with the collection's rows (sorted by `compare`, if given) once it is ready (now, or when
 * it turns ready) and after each batch of changes (changes in one task are read once), and
 * `onStatus` when the collection's status changes ("ready" right after the rows it brought). Returns the unsubscribe.
 * @example
 * const stop = followRows(cols.runs, (a, b) => b.createdAtMs - a.createdAtMs, (rows) => console.log(rows.length));
 */
export function followRows<T extends object>(collection: LiveCollection<T, any>, compare: ((a: T, b: T) => number) | undefined, onRows: (rows: T[]) => void, onStatus: (status: string) => void = () => {}): () => void {
  let queued = false;
  let stopped = false;
  // "ready" is told with the rows, once they are read: a view that read "ready" before its rows
  // showed an empty list for a moment (and a selection made on the rows shown meanwhile, the
  // runs list's kept first page, was dropped).
  let told: string | undefined;
  const tell = (status: string) => {
    if (status !== told) (told = status), onStatus(status);
  };
  // Read once ready: a collection that opens from kept rows commits them in several
  // transactions (sync/shape-cache.ts), and none of them is worth a sort of its own.
  const read = () => {
    queued = false;
    if (stopped || collection.status !== "ready") return;
    const rows = [...collection.values()];
    onRows(compare ? rows.sort(compare) : rows);
    tell("ready");
  };
  const later = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(read);
  };
  const offStatus = collection.on("status:change", (e) => (e.status === "ready" ? later() : tell(e.status)));
  // Subscribing starts the collection's sync (its status may change meanwhile). Every change
  // counts, deletes included: without `includeInitialState: false` the subscription drops a
  // delete of a row it never sent, and it sends none here (the rows are read, not streamed).
  const sub = collection.subscribeChanges(later, { includeInitialState: false });
  if (collection.status === "ready") read();
  else tell(collection.status);
  return () => {
    stopped = true;
    sub.unsubscribe();
    offStatus();
  };
}

/**
 * `followRows` as a Solid accessor, followed while the calling component lives.
 * @example
 * const runs = createCollectionRows(cols.runs, (a, b) => b.createdAtMs - a.createdAtMs);
 * <Show when={runs.isReady}>{runs().length} runs</Show>
 */
export function createCollectionRows<T extends object>(collection: LiveCollection<T, any>, compare?: (a: T, b: T) => number): CollectionRows<T> {
  const [rows, setRows] = createSignal<T[]>([], { equals: false });
  const [status, setStatus] = createSignal<string>(collection.status);
  onCleanup(followRows(collection, compare, setRows, setStatus));
  return Object.defineProperties(() => rows(), {
    isReady: { get: () => status() === "ready" },
    isError: { get: () => status() === "error" },
  }) as CollectionRows<T>;
}

/**
 * `createCollectionRows` of the collection `of()` names, followed anew when it names another
 * (a run page whose run id changed, another run picked to compare); undefined while it names none.
 * @example
 * const nodes = createRowsOf(() => cols.nodes(runId()));
 * <Show when={nodes()?.isReady}>{nodes()!().length} nodes</Show>
 */
export function createRowsOf<T extends object>(of: () => LiveCollection<T, any> | undefined, compare?: (a: T, b: T) => number): Accessor<CollectionRows<T> | undefined> {
  return createMemo(() => {
    const collection = of();
    return collection ? createCollectionRows(collection, compare) : undefined;
  });
}
