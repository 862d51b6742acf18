/**
 * @module browser/store/pglite-browser
 * The store of the engine in this browser: PGlite (PostgreSQL in wasm) over the Origin Private
 * File System (`opfs-ahp://<name>`) where the browser offers synchronous access handles (a
 * dedicated worker in Chromium and Firefox), else IndexedDB (`idb://<name>`). Its statements
 * are the Node adapter's (core/store/pglite-statements.ts). PGlite's wasm and data files are
 * Vite assets of the app, so they load from the app's own origin and the service worker can
 * precache them. One tab at a time may open a database (the engine worker's leader lock sees
 * to it). See docs/app-browser.md "Storage".
 */
import { PGlite } from "@electric-sql/pglite";
import { OpfsAhpFS } from "@electric-sql/pglite/opfs-ahp";
import { FlowError } from "../../core/errors.js";
import { PGLITE_PARSERS, pgliteStatements } from "../../core/store/index.js";
import type { PgliteConnection, StorePort } from "../../core/store/index.js";
import { openWhenHandlesFree } from "./opfs-handles.js";
import { type WriteBackCounts, writeBackOnlyChanges } from "./write-back.js";

/** Where a browser database lives: `auto` picks OPFS where it works, else IndexedDB. */
export type BrowserStorage = "opfs" | "idb" | "memory";

/** Options of `openBrowserPgliteStore`. */
export interface BrowserPgliteStoreOptions {
  /** The database name (default `flow`): the OPFS directory or IndexedDB database `/pglite/<name>`. */
  name?: string;
  /** Default `auto`: OPFS in a worker that offers sync access handles, else IndexedDB. */
  storage?: BrowserStorage | "auto";
  /**
   * A data dir snapshot (`PGlite.dumpDataDir()` output) to start a new database from instead of
   * running initdb in the browser (seconds of wasm work on a first visit). A function is called
   * only when the database does not exist yet; undefined from it means initdb.
   */
  loadDataDir?: Blob | (() => Promise<Blob | undefined>);
  /**
   * OPFS: called each time the open found a file still held by a closing tab and will try again
   * (browser/store/opfs-handles.ts); it gives up after `handleWaitMs` (default 20 s).
   */
  onHandleWait?: (attempt: number) => void;
  handleWaitMs?: number;
}

/** A browser PGlite store, with the PGlite instance (for Drizzle) and where it lives. */
export type BrowserPgliteStore = StorePort & {
  readonly pglite: PGlite;
  readonly storage: BrowserStorage;
  readonly name: string;
  /**
   * How often the database asked to be written back to its storage, and how often it was
   * (IndexedDB and memory: a write-back with no changed file is skipped; browser/store/write-back.ts).
   * OPFS writes each file as PostgreSQL writes it, so it has none (both stay 0).
   */
  readonly writeBacks: Readonly<WriteBackCounts>;
};

/**
 * Whether this context can hold OPFS synchronous access handles (a dedicated worker in a
 * browser that has them): what PGlite's `opfs-ahp` file system needs.
 * @example
 * const storage = offersOpfs() ? "opfs" : "idb";
 */
export function offersOpfs(): boolean {
  const scope = globalThis as { WorkerGlobalScope?: unknown; FileSystemFileHandle?: { prototype: object }; navigator?: { storage?: { getDirectory?: unknown } } };
  return (
    scope.WorkerGlobalScope !== undefined &&
    typeof scope.navigator?.storage?.getDirectory === "function" &&
    scope.FileSystemFileHandle !== undefined &&
    "createSyncAccessHandle" in scope.FileSystemFileHandle.prototype
  );
}

/**
 * Whether the browser database `name` exists in `storage` (PGlite keeps an OPFS database in a
 * directory `<name>` with a `state.txt`, an IndexedDB one as the database `/pglite/<name>`).
 * @example
 * if (!(await browserDatabaseExists("idb", "flow"))) console.log("first visit");
 */
export async function browserDatabaseExists(storage: BrowserStorage, name: string): Promise<boolean> {
  try {
    if (storage === "idb") return (await indexedDB.databases()).some((db) => db.name === `/pglite/${name}`);
    if (storage === "opfs") {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle(name);
      return (await (await dir.getFileHandle("state.txt")).getFile()).size > 0;
    }
  } catch {
    return false;
  }
  return false;
}

/** How long the engine may keep the worker's event loop before a statement lets it run. */
const TURN_MS = 8;

/**
 * PGlite with a turn of the event loop before a statement once the worker has been busy for
 * `TURN_MS`. PGlite answers in microtasks (its file system is synchronous on OPFS), so a run
 * of fast tasks would otherwise hold the worker until it ends: the page's requests and its
 * change stream's reads wait, and a run's page shows only once it has finished. A macrotask
 * (a MessageChannel message, which no timer clamp delays) lets them in between statements.
 */
function withTurns(pglite: PGlite): PgliteConnection & { close(): void } {
  let since = performance.now();
  const channel = typeof MessageChannel === "undefined" ? undefined : new MessageChannel();
  const waiting: (() => void)[] = [];
  if (channel) channel.port1.onmessage = () => waiting.shift()?.();
  const turn = async () => {
    if (!channel || performance.now() - since < TURN_MS) return;
    await new Promise<void>((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
    since = performance.now();
  };
  return {
    query: async (sql, params) => (await turn(), pglite.query(sql, params)),
    exec: async (sql) => (await turn(), pglite.exec(sql)),
    transaction: async (fn) => (await turn(), pglite.transaction(fn)),
    close: () => channel?.port1.close(),
  };
}
/**
 * OPFS keeps each of PostgreSQL's files in a pooled access handle. A new cluster plus Flow's
 * migrations is about a thousand files, PGlite's default pool (1,000, topped up by 100 between
 * statements): past it, a migration fails for want of a handle and the engine never answers.
 */
const OPFS_POOL = { initialPoolSize: 1_600, maintainedPoolSize: 200 };

const whereOf = (storage: BrowserStorage, name: string) =>
  storage === "opfs" ? { fs: new OpfsAhpFS(name, OPFS_POOL) } : storage === "idb" ? { dataDir: `idb://${name}` } : {};

/** How long an OPFS open waits for a closing tab's access handles by default. */
const HANDLE_WAIT_MS = 20_000;

async function startPglite(storage: BrowserStorage, name: string, opts: BrowserPgliteStoreOptions): Promise<PGlite> {
  const load = opts.loadDataDir;
  // A new OpfsAhpFS per open: an open that found a file still held is dropped and started again.
  const once = (loadDataDir: Blob | undefined) => PGlite.create({ ...whereOf(storage, name), ...(loadDataDir ? { loadDataDir } : {}), parsers: PGLITE_PARSERS });
  const create =
    storage === "opfs"
      ? (loadDataDir: Blob | undefined) => openWhenHandlesFree(() => once(loadDataDir), { deadlineMs: opts.handleWaitMs ?? HANDLE_WAIT_MS, onWait: opts.onHandleWait })
      : once;
  const isNew = storage === "memory" || !(await browserDatabaseExists(storage, name));
  const seed = typeof load === "function" ? (isNew ? await load().catch(() => undefined) : undefined) : load;
  try {
    return await create(seed);
  } catch (error) {
    // A database our check missed: open it as it is.
    if (seed && /already exists/i.test((error as Error)?.message ?? "")) return create(undefined);
    throw error;
  }
}

/**
 * Opens (creating when new) the browser database `name` as a store. `memory` (nothing kept)
 * also works outside a browser, which is how the store contract runs it in Node.
 * @example
 * const store = await openBrowserPgliteStore({ name: "flow" });
 * await store.query("SELECT 1 AS one");
 * await store.close();
 */
export async function openBrowserPgliteStore(opts: BrowserPgliteStoreOptions = {}): Promise<BrowserPgliteStore> {
  const name = opts.name ?? "flow";
  const wanted = opts.storage ?? "auto";
  const storage: BrowserStorage = wanted === "auto" ? (offersOpfs() ? "opfs" : "idb") : wanted;
  let pglite: PGlite;
  try {
    pglite = await startPglite(storage, name, opts);
  } catch (cause) {
    throw new FlowError(
      "STORE_OPEN_FAILED",
      `Could not open the browser database "${name}" in ${storage} (${(cause as Error)?.message ?? cause}). Close other tabs of this app and reload; if it persists, the browser's site data for this app may be damaged: clear it to start empty (its runs are lost).`,
      { name, storage },
      { cause },
    );
  }
  let closed = false;
  const turns = withTurns(pglite);
  const writeBacks = storage === "opfs" ? { asked: 0, written: 0, committed: async () => undefined, restore: () => undefined } : writeBackOnlyChanges(pglite);
  const connection: PgliteConnection = {
    ...turns,
    async transaction(fn) {
      const out = await turns.transaction(fn);
      await writeBacks.committed();
      return out;
    },
  };
  const guard = () => {
    if (closed) throw new FlowError("STORE_OPEN_FAILED", `The browser database "${name}" is closed; open it again.`, { name, storage });
  };
  return {
    dialect: "postgres",
    location: `this browser's ${storage} database "${name}"`,
    pglite,
    storage,
    name,
    writeBacks,
    ...pgliteStatements(connection, guard),
    async close() {
      if (closed) return;
      closed = true;
      turns.close();
      writeBacks.restore();
      await pglite.close();
    },
  };
}
