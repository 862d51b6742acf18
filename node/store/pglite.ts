/**
 * @module node/store/pglite
 * The PGlite store adapter (PostgreSQL in wasm, one connection, a data dir on disk). PGlite's
 * own `transaction()` holds its connection lock, so statements from other callers wait until a
 * transaction ends (the port's no-interleaving rule) without a lock of ours.
 *
 * A data dir is served by one PGlite instance per process: opening the same dir twice in one
 * process shares the instance (reference-counted; the last `close` shuts it). PGlite cannot be
 * shared between processes, so a lock file beside the dir names the owning pid; a second
 * process is refused, and the lock of a process that died is taken over. A new data dir starts
 * as a copy of an initialized template instead of running initdb (pglite-template.ts).
 * See docs/store.md.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { FlowError } from "../../core/errors.js";
import { PGLITE_PARSERS, pgliteStatements } from "../../core/store/index.js";
import type { StorePort } from "../../core/store/index.js";
import { withStoreFaults } from "./store-faults.js";
import { isOwnerAlive } from "../engine/index.js";
import { isInitializedDataDir, loadPglite, seedDataDir } from "./pglite-template.js";

export interface PgliteStoreOptions {
  /** Data directory (created when missing). Omitted: an in-memory database, gone on close. */
  dataDir?: string;
  /**
   * A data dir snapshot (`PGlite.dumpDataDir()` output) to start from when the dir is new:
   * far cheaper than initdb (about 0.5 s instead of 3-8 s).
   */
  loadDataDir?: Blob;
  /** PGlite's `relaxedDurability` (default false); in Node's NODEFS it changes little (docs/store.md). */
  relaxedDurability?: boolean;
  /**
   * A new data dir starts with Flow's `_flow_*` tables already made (a copy of a template that
   * holds them at this version), so applying Flow's migrations to it is a no-op: about half a
   * second less for each new store. createFlowPostgres sets it. Default false: an empty cluster.
   */
  withFlowTables?: boolean;
}

/** Stores opened in memory so far: each names itself apart (`StorePort.location`). */
let inMemory = 0;

/** A PGlite store, with the PGlite instance for callers that need it (Drizzle). */
export type PgliteStore = StorePort & {
  readonly pglite: PGlite;
  /** The resolved data dir, or null for an in-memory database. */
  readonly dataDir: string | null;
};

/**
 * The lock file a process keeps while it has a data dir open: `<dataDir>.lock`, beside the dir
 * rather than in it, so that a copy of the dir (a backup taken while it is open) does not carry
 * a lock naming a live process.
 */
export function pgliteLockPath(dataDir: string): string {
  return `${resolve(dataDir)}.lock`;
}

interface Shared {
  pglite: PGlite;
  refs: number;
  closing?: Promise<void>;
  /**
   * Set after a full disk: PGlite's wasm instance then hangs on every later statement (and on
   * close), so it is not used again; the next open, once space is freed, recovers from the files.
   */
  wedged?: FlowError;
}

/** Open data dirs of this process, by resolved path. */
const openDirs = new Map<string, Promise<Shared>>();

const HOST = hostname();

function lockOwner(): string {
  return `${HOST}:${process.pid}`;
}

/** Takes the data dir's lock file, or throws when a live process holds it. */
function takeLock(dir: string): void {
  const file = pgliteLockPath(dir);
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(file, lockOwner(), { flag: "wx" });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const owner = readLockOwner(file);
    // isOwnerAlive is false only for a pid on this host that is gone; any other holder counts
    // as alive, because two PGlite processes on one dir would corrupt it.
    if (owner !== null && isOwnerAlive(owner) !== false && owner !== lockOwner()) {
      throw new FlowError(
        "STORE_OPEN_FAILED",
        `PGlite data dir ${dir} is open in another process (${owner}). PGlite serves one process at a time: stop that process, or use the postgres backend for several workers.`,
        { dataDir: dir, owner },
      );
    }
    rmSync(file, { force: true });
  }
  throw new FlowError("STORE_OPEN_FAILED", `Could not take the lock file of PGlite data dir ${dir}.`, { dataDir: dir });
}

function readLockOwner(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim() || null;
  } catch {
    return null;
  }
}

function releaseLock(dir: string): void {
  const file = pgliteLockPath(dir);
  if (readLockOwner(file) === lockOwner()) rmSync(file, { force: true });
}

/** Locks left by this process are removed when it exits normally. */
process.once("exit", () => {
  for (const dir of openDirs.keys()) releaseLock(dir);
});

async function startPglite(opts: PgliteStoreOptions, dir: string | null): Promise<PGlite> {
  const { PGlite } = await loadPglite();
  const pglite = new PGlite({
    ...(dir ? { dataDir: dir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    ...(opts.relaxedDurability ? { relaxedDurability: true } : {}),
    parsers: PGLITE_PARSERS,
  });
  await pglite.waitReady;
  return pglite;
}

async function acquire(opts: PgliteStoreOptions, dir: string): Promise<Shared> {
  // Join the instance this process has open (or is opening) on the dir; wait out one that is
  // closing. Each turn re-reads the map, because other callers may have moved on meanwhile.
  for (let current = openDirs.get(dir); current; current = openDirs.get(dir)) {
    const shared = await current.catch(() => null);
    if (shared && !shared.closing) {
      shared.refs++;
      return shared;
    }
    if (shared?.closing) await shared.closing;
    else await Promise.resolve();
  }
  const pending = (async () => {
    mkdirSync(dirname(dir), { recursive: true });
    takeLock(dir);
    try {
      if (!opts.loadDataDir && !isInitializedDataDir(dir)) {
        if (existsSync(dir) && readdirSync(dir).length > 0) throw notADataDir(dir);
        await seedDataDir(dir, opts.withFlowTables);
      } else mkdirSync(dir, { recursive: true });
      return { pglite: await startPglite(opts, dir).catch((error: unknown) => Promise.reject(damaged(dir, error))), refs: 1 };
    } catch (error) {
      releaseLock(dir);
      throw error;
    }
  })();
  openDirs.set(dir, pending);
  try {
    return await pending;
  } catch (error) {
    openDirs.delete(dir);
    throw error;
  }
}

function notADataDir(dir: string): FlowError {
  return new FlowError(
    "STORE_OPEN_FAILED",
    `${dir} is not empty and is not a PGlite data dir (it has no PG_VERSION): an interrupted setup by an older Flow, or another directory. If it is a Flow data dir with nothing you need, delete it and open again; otherwise choose another dataDir.`,
    { dataDir: dir, fix: "delete the directory or choose another dataDir" },
  );
}

/** An initialized dir PGlite cannot start on: damaged (a copy cut short, a disk that filled up). */
function damaged(dir: string, cause: unknown): FlowError {
  if (cause instanceof FlowError) return cause;
  return new FlowError(
    "STORE_OPEN_FAILED",
    `PGlite could not start on data dir ${dir} (${(cause as Error)?.message ?? cause}). The dir looks damaged: an interrupted copy, a full disk, or files changed by hand. Free disk space if it is full and try again; otherwise restore ${dir} from a backup, or delete it to start empty (its runs are lost).`,
    { dataDir: dir, fix: "free disk space, restore the dir from a backup, or delete it" },
    { cause },
  );
}

/**
 * Opens a PGlite data dir (or an in-memory database) as a store.
 * @example
 * const store = await openPgliteStore({ dataDir: ".flow/pglite" });
 * await store.query("SELECT 1 AS one");
 * await store.close();
 */
export async function openPgliteStore(opts: PgliteStoreOptions = {}): Promise<PgliteStore> {
  const dir = opts.dataDir === undefined ? null : resolve(opts.dataDir);
  await loadPglite(); // an optional package: missing, it fails here (PACKAGE_MISSING), before any lock is taken
  let shared: Shared;
  try {
    shared = dir ? await acquire(opts, dir) : { pglite: await startPglite(opts, null), refs: 1 };
  } catch (cause) {
    if (cause instanceof FlowError) throw cause;
    throw new FlowError("STORE_OPEN_FAILED", `Could not open PGlite ${dir ? `data dir ${dir}` : "in memory"}: ${(cause as Error).message}`, { dataDir: dir }, { cause });
  }
  const { pglite } = shared;
  let closed = false;
  const guard = () => {
    if (shared.wedged) throw shared.wedged;
    if (closed) throw new FlowError("STORE_OPEN_FAILED", `PGlite store ${dir ?? "(in memory)"} is closed; open a new one.`, { dataDir: dir });
  };

  return withStoreFaults({
    dialect: "postgres",
    location: dir ?? `PGlite in memory #${++inMemory}`,
    pglite,
    dataDir: dir,
    ...pgliteStatements(pglite, guard),
    async close() {
      if (closed) return;
      closed = true;
      if (--shared.refs > 0) return;
      shared.closing = (shared.wedged ? Promise.resolve() : pglite.close()).finally(() => {
        if (dir) {
          openDirs.delete(dir);
          releaseLock(dir);
        }
      });
      await shared.closing;
    },
  }, dir ?? "PGlite (in memory)", (fault) => {
    if (fault.code === "STORE_FULL") shared.wedged = fault;
  });
}
