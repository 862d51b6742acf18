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
 * a backoff, until the files are free or `deadlineMs` has passed. See docs/app-browser.md
 * "Tabs".
 */
import { FlowError } from "../../core/errors.js";

/** What PGlite's OPFS layer uses of a synchronous access handle. */
interface SyncAccessHandle {
  close(): void;
}

type CreateSyncAccessHandle = (this: FileSystemFileHandle) => Promise<SyncAccessHandle>;

/** The handles one open asked for: those it got, how many are still pending, whether one was refused. */
interface Watch {
  opened: SyncAccessHandle[];
  pending: number;
  refused: Promise<void>;
  /** Resolves when no handle of this open is pending any more. */
  settled(): Promise<void>;
  stop(): void;
}

/** The browser refuses a second access handle on a file with this error. */
const HELD = "NoModificationAllowedError";

function watchHandles(): Watch {
  const proto = (globalThis as unknown as { FileSystemFileHandle: { prototype: { createSyncAccessHandle: CreateSyncAccessHandle } } }).FileSystemFileHandle.prototype;
  const original = proto.createSyncAccessHandle;
  let refuse!: () => void;
  let idle: (() => void) | undefined;
  const watch: Watch = {
    opened: [],
    pending: 0,
    refused: new Promise<void>((resolve) => (refuse = resolve)),
    settled: () => (watch.pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))),
    stop: () => void (proto.createSyncAccessHandle = original),
  };
  proto.createSyncAccessHandle = async function (this: FileSystemFileHandle) {
    watch.pending++;
    try {
      const handle = await original.call(this);
      watch.opened.push(handle);
      return handle;
    } catch (error) {
      if ((error as Error)?.name !== HELD) throw error;
      refuse();
      // Never answered: PGlite's open waits here, before PostgreSQL starts, until it is dropped.
      return new Promise<never>(() => undefined);
    } finally {
      if (--watch.pending === 0) idle?.();
    }
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
  for (let attempt = 1; ; attempt++) {
    const watch = watchHandles();
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
        // Let the open's other handle requests land, then give back every handle it got.
        await watch.settled();
        for (const handle of watch.opened) handle.close();
      }
    } finally {
      watch.stop();
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
