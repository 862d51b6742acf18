/**
 * @module ui/workspace/last-seen
 * The last rows each collection of a Gateway workspace loaded, kept in this browser
 * (IndexedDB `flow-last-seen`), so a workspace opened while its Gateway cannot be reached shows
 * what was seen and says as of when (core/data/last-seen.ts serves them). The runs list, which
 * the change stream updates row by row, is saved again a moment after it changes. A team
 * workspace keeps its shapes here too (rows and resume point, sync/shape-cache.ts), and the
 * writes made offline wait in the same database (`writes`, sync/write-queue.ts) until sent.
 * This browser's workspace keeps them too: they are shown while its engine opens the database.
 */
import { type Accessor, createSignal } from "solid-js";
import type { LastSeenStore, LiveCollection } from "../../core/data/index.js";
import { savedRows, type QueuedWrite, type WriteQueueStore } from "../../sync/index.js";

const DB = "flow-last-seen";
const STORE = "loads";
const WRITES = "writes";

interface Saved {
  id: string;
  value: unknown;
  atMs: number;
}

let opening: Promise<IDBDatabase | undefined> | undefined;

function db(): Promise<IDBDatabase | undefined> {
  opening ??= new Promise((resolve) => {
    if (typeof indexedDB === "undefined") return resolve(undefined);
    const req = indexedDB.open(DB, 2);
    req.onupgradeneeded = () => {
      const names = req.result.objectStoreNames;
      if (!names.contains(STORE)) req.result.createObjectStore(STORE, { keyPath: "id" });
      if (!names.contains(WRITES)) req.result.createObjectStore(WRITES, { keyPath: "writeId" }).createIndex("queue", "queue");
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(undefined);
  });
  return opening;
}

async function tx<T>(mode: IDBTransactionMode, run: (store: IDBObjectStore) => IDBRequest<T>, name = STORE): Promise<T | undefined> {
  const d = await db();
  if (!d) return undefined;
  return new Promise((resolve) => {
    const req = run(d.transaction(name, mode).objectStore(name));
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => resolve(undefined);
  });
}

/** A write reaches the disk before the queue says it is kept: a failed put throws. */
async function strictTx(run: (store: IDBObjectStore) => void): Promise<void> {
  const d = await db();
  if (!d) throw new Error("This browser has no IndexedDB: a write made offline cannot be kept.");
  await new Promise<void>((resolve, reject) => {
    const t = d.transaction(WRITES, "readwrite", { durability: "strict" });
    run(t.objectStore(WRITES));
    t.oncomplete = () => resolve();
    t.onerror = () => reject(t.error);
    t.onabort = () => reject(t.error);
  });
}

/**
 * The writes queued offline (IndexedDB `flow-last-seen`, store `writes`): they survive a closed
 * tab and a browser restart.
 * @example
 * const queue = new WriteQueue(createWriteStore(), "https://flow.example.com#acme");
 */
export function createWriteStore(): WriteQueueStore {
  return {
    list: async (queue) => ((await tx<QueuedWrite[]>("readonly", (s) => s.index("queue").getAll(queue) as IDBRequest<QueuedWrite[]>, WRITES)) ?? []).sort((a, b) => a.seq - b.seq),
    put: (write) => strictTx((s) => void s.put(write)),
    delete: (writeId) => strictTx((s) => void s.delete(writeId)),
  };
}

/** A workspace's store of last loads, and when the oldest row shown from it was seen. */
export interface LastSeen extends LastSeenStore {
  /** When the rows shown instead of a live load were saved (undefined: every load was live). */
  shownFrom: Accessor<number | undefined>;
  /** Whether any load so far was answered from here rather than live (saved rows, or an unseen collection read as empty). */
  fromStore(): boolean;
  /** Whether the collection `id` was answered as empty because no gateway answered and this browser never saw it (until a load succeeds). */
  isUnseen(id: string): boolean;
  /** Saves a collection's rows a second after each change (the runs list). */
  follow(id: string, collection: LiveCollection<any, any>): () => void;
  /**
   * The store a team workspace's shapes are kept in: saving does not say the workspace answers
   * (a shape response the browser's HTTP cache serves offline is saved too), so it leaves
   * `shownFrom` alone; the change stream says whether the workspace answers.
   */
  shapes: LastSeenStore;
  /** A kept shape's rows and when they were saved (the members view offline). */
  keptShape(id: string): Promise<{ rows: object[]; atMs: number } | undefined>;
}

/** Options of `createLastSeen`. */
export interface LastSeenOptions {
  /** True while the workspace's source is starting: loads answer saved rows without waiting (core/data/last-seen.ts). */
  warming?: () => boolean;
  /**
   * Collections that read as empty while warming when nothing was saved for them: this
   * browser's runs on a first visit (a database that never answered a load here holds no runs).
   */
  emptyWhenUnseen?: readonly string[];
}

/**
 * The store of one workspace's collections.
 * @example
 * const lastSeen = createLastSeen();
 * createCollections(mode, queryClient, { lastSeen });
 */
export function createLastSeen(options: LastSeenOptions = {}): LastSeen {
  const [shownFrom, setShownFrom] = createSignal<number>();
  const [servedEmpty, setServedEmpty] = createSignal(false);
  const [unseenIds, setUnseenIds] = createSignal<ReadonlySet<string>>(new Set());
  const setUnseen = (id: string, unseen: boolean) =>
    setUnseenIds((ids) => {
      if (ids.has(id) === unseen) return ids;
      const next = new Set(ids);
      if (unseen) next.add(id);
      else next.delete(id);
      return next;
    });
  let served = false;
  const put = async (id: string, value: unknown) => {
    await tx("readwrite", (s) => s.put({ id, value, atMs: Date.now() } satisfies Saved));
  };
  // A load's rows may hold what IndexedDB cannot clone: saved as plain JSON values.
  const save = (id: string, value: unknown) => put(id, JSON.parse(JSON.stringify(value ?? null)));
  const load = async (id: string) => {
    const saved = (await tx<Saved>("readonly", (s) => s.get(id) as IDBRequest<Saved>)) ?? undefined;
    if (saved) setShownFrom((at) => Math.min(at ?? saved.atMs, saved.atMs));
    return saved?.value;
  };
  return {
    shownFrom,
    fromStore: () => served,
    async save(id, value) {
      setShownFrom(undefined);
      setServedEmpty(false);
      setUnseen(id, false);
      await save(id, value);
    },
    async load(id) {
      const saved = await load(id);
      if (saved !== undefined) served = true;
      else if (options.warming?.() && options.emptyWhenUnseen?.includes(id)) {
        served = true;
        setServedEmpty(true);
        return [];
      }
      return saved;
    },
    unseen: (id) => setUnseen(id, true),
    isUnseen: (id) => unseenIds().has(id),
    ...(options.warming ? { warming: options.warming } : {}),
    // A kept shape is plain data already (its rows JSON text, sync/shape-cache.ts).
    shapes: { save: put, load },
    async keptShape(id) {
      const saved = (await tx<Saved>("readonly", (s) => s.get(id) as IDBRequest<Saved>)) ?? undefined;
      const rows = savedRows(saved?.value);
      return saved && rows ? { rows, atMs: saved.atMs } : undefined;
    },
    follow(id, collection) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const sub = collection.subscribeChanges(() => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          // Rows served from here are not saved again as if seen now.
          if (collection.status === "ready" && shownFrom() === undefined && !servedEmpty()) void save(id, collection.toArray);
        }, 1000);
      });
      return () => {
        clearTimeout(timer);
        sub.unsubscribe();
      };
    },
  };
}
