/**
 * @module browser/store/opfs-handles
 * Opening PGlite on OPFS only once every file it needs is free. PGlite's OPFS file system
 * (`opfs-ahp`) opens a synchronous access handle on every file of the database before
 * PostgreSQL starts, and a file may have one such handle at a time. When a tab closes, the
 * browser releases its handles some time after its Web Lock, so the tab that takes over (or a
 * reload of the same tab) can find some still held. PGlite then runs on a half-opened database:
 * a refused data file is logged ("Error opening file handle for node") and read later as
 * `undefined` (`Cannot read properties of undefined (reading 'sh')`); a refused pool file leaves
 * its open waiting forever.
 *
 * So while the store opens, the worker's `createSyncAccessHandle` is watched: a refused handle
 * (`NoModificationAllowedError`) never answers, which holds that open before PostgreSQL
 * starts; the open is abandoned, every handle it did get is closed, and a new one starts after
 * a backoff, until the files are free or `deadlineMs` has passed. An abandoned open still asks
 * for the handles of the files it looked up; those asks never reach the browser (they would be
 * refused and logged, or granted and never closed). See docs/app-browser.md "Tabs".
 */
import { FlowError } from "../../core/errors.js";

/** What PGlite's OPFS layer uses of a synchronous access handle. */
interface SyncAccessHandle {
  close(): void;
}

type CreateSyncAccessHandle = (this: FileSystemFileHandle) => Promise<SyncAccessHandle>;
type GetFileHandle = (this: FileSystemDirectoryHandle, name: string, options?: { create?: boolean }) => Promise<FileSystemFileHandle>;

/** The handles one open asked for: those it got, how many are still pending, whether one was refused. */
interface Watch {
  opened: SyncAccessHandle[];
  pending: number;
  refused: Promise<void>;
  refuse(): void;
  /** Resolves when no handle of this open is pending any more. */
  settled(): Promise<void>;
  /** Resolves the wait of `settled`. */
  idle?: () => void;
}

/** The browser refuses a second access handle on a file with this error. */
const HELD = "NoModificationAllowedError";

/**
 * The worker's gate on access handles, installed on the first open and kept. Each file handle is
 * marked with the open that looked it up: an abandoned open goes on asking for handles (its
 * files are looked up before any is opened, and each is opened once its lookup answers), and
 * those asks must never reach the browser. Let through, one would be refused and logged by
 * PGlite, or granted and never closed, holding that file against the next open.
 */
interface Gate {
  /** The latest open (numbered from 1): a file looked up from now on is its. */
  open: number;
  /** That open's handles, while it runs. */
  watch: Watch | undefined;
  /** Opens that were dropped: their asks are never answered. */
  abandoned: Set<number>;
}

let gate: Gate | undefined;
const lookedUpBy = new WeakMap<FileSystemFileHandle, number>();

function installGate(): Gate {
  if (gate) return gate;
  const g: Gate = { open: 0, watch: undefined, abandoned: new Set() };
  const scope = globalThis as unknown as { FileSystemDirectoryHandle: { prototype: { getFileHandle: GetFileHandle } }; FileSystemFileHandle: { prototype: { createSyncAccessHandle: CreateSyncAccessHandle } } };
  const dirProto = scope.FileSystemDirectoryHandle.prototype;
  const getFileHandle = dirProto.getFileHandle;
  dirProto.getFileHandle = async function (this: FileSystemDirectoryHandle, name, options) {
    const open = g.open;
    const handle = await getFileHandle.call(this, name, options);
    lookedUpBy.set(handle, open);
    return handle;
  };
  const fileProto = scope.FileSystemFileHandle.prototype;
  const createSyncAccessHandle = fileProto.createSyncAccessHandle;
  fileProto.createSyncAccessHandle = async function (this: FileSystemFileHandle) {
    // Never answered: an abandoned open waits here for good.
    if (g.abandoned.has(lookedUpBy.get(this) ?? g.open)) return new Promise<never>(() => undefined);
    const watch = g.watch;
    if (!watch) return createSyncAccessHandle.call(this);
    watch.pending++;
    try {
      const handle = await createSyncAccessHandle.call(this);
      watch.opened.push(handle);
      return handle;
    } catch (error) {
      if ((error as Error)?.name !== HELD) throw error;
      watch.refuse();
      // Never answered: PGlite's open waits here, before PostgreSQL starts, until it is dropped.
      return new Promise<never>(() => undefined);
    } finally {
      if (--watch.pending === 0) watch.idle?.();
    }
  };
  gate = g;
  return g;
}

function newWatch(): Watch {
  let refuse!: () => void;
  const watch: Watch = {
    opened: [],
    pending: 0,
    refused: new Promise<void>((resolve) => (refuse = resolve)),
    refuse: () => refuse(),
    settled: () => (watch.pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (watch.idle = resolve))),
  };
  return watch;
}

/** Options of `openWhenHandlesFree`. */
export interface HandleWaitOptions {
  /** Give up (STORE_OPEN_FAILED) after this long (ms). */
  deadlineMs: number;
  /** Called each time an open found a file still held and will try again. */
  onWait?: (attempt: number) => void;
}

const FIRST_BACKOFF_MS = 25;
const MAX_BACKOFF_MS = 500;

/**
 * Runs `open` (PGlite on OPFS) until it got every access handle it asked for: an open that was
 * refused one is dropped (its handles closed) and started again after a backoff. Only one open
 * may be watched at a time in a worker (the engine opens one database).
 * @example
 * const pglite = await openWhenHandlesFree(() => PGlite.create({ fs: new OpfsAhpFS("flow") }), { deadlineMs: 20_000 });
 */
export async function openWhenHandlesFree<T>(open: () => Promise<T>, opts: HandleWaitOptions): Promise<T> {
  const end = performance.now() + opts.deadlineMs;
  let backoff = FIRST_BACKOFF_MS;
  const g = installGate();
  for (let attempt = 1; ; attempt++) {
    const watch = newWatch();
    g.open++;
    g.watch = watch;
    let outcome: { value: T } | { error: unknown } | "refused";
    try {
      outcome = await Promise.race([
        open().then(
          (value) => ({ value }),
          (error: unknown) => ({ error }),
        ),
        watch.refused.then(() => "refused" as const),
      ]);
      if (outcome === "refused" || "error" in outcome) {
        // Abandoned: it gets no handle from here on; those it asked for land, then every one it got is given back.
        g.abandoned.add(g.open);
        await watch.settled();
        for (const handle of watch.opened) handle.close();
      }
    } finally {
      g.watch = undefined;
    }
    if (outcome !== "refused") {
      if ("error" in outcome) throw outcome.error;
      return outcome.value;
    }
    if (performance.now() + backoff > end) throw new FlowError("STORE_OPEN_FAILED", `Some files of the database were still held by another tab after ${opts.deadlineMs} ms (tried ${attempt} times).`, { attempts: attempt });
    opts.onWait?.(attempt);
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
  }
}
