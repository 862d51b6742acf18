/**
 * @module sync/shape-cache
 * A shape collection kept in the browser (docs/multiplayer.md "Offline"): the rows the shape
 * last synced and Electric's resume point (`offset` + `handle`, what electric-db-collection
 * stages as its `electric:resume` collection metadata in the same sync transaction as the
 * rows) are saved after each sync commit that changes a row in a `LastSeenStore` (the app's IndexedDB,
 * ui/workspace/last-seen.ts), which is read as soon as the collection is built. When the
 * collection starts, the saved rows are written as its first sync transactions (1,000 rows
 * each, the page's main thread free between them, the resume point with the last), and the
 * collection is ready as soon as they are in:
 * a team workspace opens offline with the last-synced rows, and when the network is back the
 * stream resumes from the saved offset (only the changes since; a handle Electric no longer
 * knows answers `409 must-refetch`, and the collection truncates and reloads the shape).
 */
import type { LastSeenStore } from "../core/data/index.js";

/** What is saved per shape collection: its synced rows (never optimistic ones) and the resume point. */
export interface SavedShape {
  /** The rows as JSON arrays of up to `SEED_CHUNK` rows each. */
  parts: string[];
  /** How many rows the parts hold. */
  count: number;
  /** electric-db-collection's resume state (`{ kind: "resume", offset, handle, shapeId, ... }`). */
  resume: { kind: string } & Record<string, unknown>;
}

/** A shape saved before parts: its rows as objects. */
interface SavedShapeRows {
  rows: object[];
  resume: SavedShape["resume"];
}

/** A collection's sync config, as electric-db-collection builds it (only the parts wrapped here). */
interface SyncOptions {
  sync: { sync: (params: SyncParams) => unknown };
}
type SyncParams = {
  begin: (options?: { immediate?: boolean }) => void;
  write: (message: { type: string; value?: object; key?: string | number }) => void;
  commit: (signal?: AbortSignal) => true | Promise<unknown>;
  truncate: () => void;
  markReady: () => void;
  metadata?: { collection: { set(key: string, value: unknown): void; get(key: string): unknown } };
} & Record<string, unknown>;

const RESUME = "electric:resume";
/** Rows per saved part, and per sync transaction when a collection opens from the store. */
const SEED_CHUNK = 250;

/**
 * The parts of a saved shape, each parsed when asked for (either format); undefined when
 * `saved` is no saved shape.
 * @example
 * for (const part of savedParts(saved) ?? []) rows.push(...part());
 */
export function savedParts(saved: unknown): Array<() => object[]> | undefined {
  const s = saved as Partial<SavedShape & SavedShapeRows> | null | undefined;
  if (Array.isArray(s?.parts)) return s.parts.map((part) => () => JSON.parse(part) as object[]);
  if (!Array.isArray(s?.rows)) return undefined;
  const rows = s.rows;
  return Array.from({ length: Math.ceil(rows.length / SEED_CHUNK) }, (_, i) => () => rows.slice(i * SEED_CHUNK, (i + 1) * SEED_CHUNK));
}

/**
 * A saved shape's rows, all of them (the members view offline).
 * @example
 * const rows = savedRows(await lastSeen.shapes.load(id)) ?? [];
 */
export function savedRows(saved: unknown): object[] | undefined {
  return savedParts(saved)?.flatMap((part) => part());
}

/**
 * Wraps an electric collection's options so its rows and resume point persist in `store`
 * under `id`, and a saved state seeds the collection before the stream starts.
 * @example
 * const options = persistShape(electricCollectionOptions({ ... }), lastSeen, "flow:https://flow.example.com:runs:shape", (r) => r.runId);
 */
export function persistShape<O extends object>(options: O, store: LastSeenStore, id: string, getKey: (row: object) => string, saveDelayMs = 300): O {
  const inner = (options as unknown as SyncOptions).sync;
  // Read from the store now, not when a view first subscribes: the read (10,000 rows) overlaps
  // the app loading the view. A sync started again later reads the store again.
  let early: Promise<unknown> | undefined = Promise.resolve(store.load(id)).catch(() => undefined);
  const sync = (params: SyncParams) => {
    let stopped = false;
    let innerCleanup: (() => void) | undefined;
    const rows = new Map<string, object>();
    let resume: SavedShape["resume"] | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const save = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (stopped || resume?.kind !== "resume") return;
        keptHandle = resume.handle;
        const all = [...rows.values()];
        const parts = Array.from({ length: Math.ceil(all.length / SEED_CHUNK) }, (_, i) => JSON.stringify(all.slice(i * SEED_CHUNK, (i + 1) * SEED_CHUNK)));
        void Promise.resolve(store.save(id, { parts, count: all.length, resume } satisfies SavedShape)).catch(() => undefined);
      }, saveDelayMs);
    };
    // The transaction being staged: its writes reach `rows` once the collection applied it.
    let staged: { ops: Array<{ type: string; value?: object; key?: string | number }>; truncate: boolean; resume?: SavedShape["resume"] } | undefined;
    // The shape handle whose rows the store holds (loaded or saved): a transaction that changes
    // no row of it (an up-to-date, a response the HTTP cache serves offline) is not saved again,
    // since saving 10,000 rows takes the page's main thread for a good part of a second.
    let keptHandle: unknown;
    const apply = (tx: NonNullable<typeof staged>) => {
      const unchanged = !tx.truncate && tx.ops.length === 0 && keptHandle !== undefined && (tx.resume ?? resume)?.handle === keptHandle;
      if (tx.resume) resume = tx.resume;
      if (unchanged) return;
      if (tx.truncate) rows.clear();
      for (const op of tx.ops) {
        const key = op.type === "delete" && op.key !== undefined ? String(op.key) : getKey(op.value!);
        if (op.type === "delete") rows.delete(key);
        else rows.set(key, op.type === "update" ? { ...rows.get(key), ...op.value } : op.value!);
      }
      save();
    };
    const wrapped: SyncParams = {
      ...params,
      begin: (o) => {
        staged = { ops: [], truncate: false };
        params.begin(o);
      },
      write: (message) => {
        staged?.ops.push(message);
        params.write(message);
      },
      truncate: () => {
        if (staged) staged = { ops: [], truncate: true, ...(staged.resume ? { resume: staged.resume } : {}) };
        params.truncate();
      },
      commit: (signal) => {
        const tx = staged;
        staged = undefined;
        const applied = params.commit(signal);
        if (tx && !signal?.aborted) {
          if (applied === true) apply(tx);
          else void applied.then(() => apply(tx), () => undefined);
        }
        return applied;
      },
      ...(params.metadata
        ? {
            metadata: {
              ...params.metadata,
              collection: {
                ...params.metadata.collection,
                get: (key: string) => params.metadata!.collection.get(key),
                set: (key: string, value: unknown) => {
                  if (key === RESUME && staged) staged.resume = value as SavedShape["resume"];
                  params.metadata!.collection.set(key, value);
                },
              },
            },
          }
        : {}),
    };
    void (async () => {
      const loading = early ?? Promise.resolve(store.load(id)).catch(() => undefined);
      early = undefined;
      const saved = (await loading) as Partial<SavedShape> | undefined;
      if (stopped) return;
      const parts = savedParts(saved);
      if (saved?.resume?.kind === "resume" && parts && params.metadata) {
        // Each part is parsed and written as a sync transaction, the page's main thread free
        // between them (a click, a first page painted), the resume point with the last; the
        // collection is ready once all are in, offline included.
        for (let i = 0; i < parts.length || i === 0; i++) {
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 0));
          if (stopped) return;
          params.begin({ immediate: true });
          for (const row of parts[i]?.() ?? []) {
            params.write({ type: "insert", value: row });
            rows.set(getKey(row), row);
          }
          if (i >= parts.length - 1) params.metadata.collection.set(RESUME, saved.resume);
          params.commit();
        }
        resume = saved.resume;
        keptHandle = resume.handle;
        params.markReady();
      }
      const result = inner.sync(wrapped) as { cleanup?: () => void } | (() => void) | undefined;
      innerCleanup = typeof result === "function" ? result : result?.cleanup;
      if (stopped) innerCleanup?.();
    })();
    return {
      cleanup: () => {
        stopped = true;
        clearTimeout(timer);
        innerCleanup?.();
      },
    };
  };
  return { ...options, sync: { ...inner, sync } } as O;
}
