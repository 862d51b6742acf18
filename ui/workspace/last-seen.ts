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
import type { QueuedWrite, WriteQueueStore } from "../../sync/index.js";

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
  let served = false;
  const save = async (id: string, value: unknown) => {
    await tx("readwrite", (s) => s.put({ id, value: JSON.parse(JSON.stringify(value ?? null)), atMs: Date.now() } satisfies Saved));
  };
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
    ...(options.warming ? { warming: options.warming } : {}),
    shapes: { save, load },
    async keptShape(id) {
      const saved = (await tx<Saved>("readonly", (s) => s.get(id) as IDBRequest<Saved>)) ?? undefined;
      const rows = (saved?.value as { rows?: unknown } | null | undefined)?.rows;
      return saved && Array.isArray(rows) ? { rows, atMs: saved.atMs } : undefined;
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
