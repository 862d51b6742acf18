/**
 * @module node/store/store-faults
 * The Flow codes of a store the machine cannot write to (docs/store.md "When the disk is full
 * or read-only"): a full disk is STORE_FULL, a read-only file, directory, mount or database is
 * STORE_READ_ONLY, whatever the backend says it in (`SQLITE_FULL`, `SQLITE_READONLY*`,
 * PostgreSQL SQLSTATE `53100` / `25006`, `ENOSPC` / `EROFS`). The failed statement or
 * transaction wrote nothing (SQLite and PostgreSQL roll it back), so the run stays as it was
 * committed and resumes once the cause is fixed. Other errors pass through unchanged.
 */
import { FlowError } from "../../core/errors.js";
import type { StorePort, SyncScriptRunner } from "../../core/store/index.js";

/** Maps a full or read-only store failure of the store at `where` to its Flow code; anything else is returned as it is. */
export function storeFault(error: unknown, where: string): unknown {
  if (error instanceof FlowError || error === null || typeof error !== "object") return error;
  const code = String((error as { code?: unknown }).code ?? "");
  const message = (error as Error).message ?? String(error);
  const details = { store: where, cause: code || message };
  if (code.startsWith("SQLITE_FULL") || code === "53100" || code === "ENOSPC" || code === "EDQUOT") {
    return new FlowError(
      "STORE_FULL",
      `The store ${where} has no disk space left (${code || message}); the statement wrote nothing and committed work is intact. Free space on that disk (or raise the database's quota), then resume the run (flow up <file> --run-id <id> --resume).`,
      details,
      { cause: error },
    );
  }
  if (code.startsWith("SQLITE_READONLY") || code === "25006" || code === "EROFS") {
    return new FlowError(
      "STORE_READ_ONLY",
      `The store ${where} is read-only (${code || message}); nothing was written. Make the database writable (for SQLite the file, its -wal and -shm files and their directory; for PostgreSQL a primary, not a read-only replica or session), then resume the run.`,
      details,
      { cause: error },
    );
  }
  return error;
}

/**
 * `store` with every statement's full-disk and read-only failures given their Flow codes;
 * `onFault` hears each one (PGlite uses it to stop using an instance a full disk wedged).
 * @example
 * return withStoreFaults(openedStore, "/work/.flow/flow.db");
 */
export function withStoreFaults<T extends StorePort>(store: T, where: string, onFault?: (fault: FlowError) => void): T {
  const mapped = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        const fault = storeFault(error, where);
        if (onFault && fault !== error && fault instanceof FlowError) onFault(fault);
        throw fault;
      }
    };
  const wrapped: T = {
    ...store,
    execute: mapped(store.execute.bind(store)),
    query: mapped(store.query.bind(store)) as T["query"],
    transaction: mapped(store.transaction.bind(store)) as T["transaction"],
    executeScript: mapped(store.executeScript.bind(store)),
  };
  if (store.executeBatch) wrapped.executeBatch = mapped(store.executeBatch.bind(store));
  // SQLite's synchronous pair (createFlow's migrations at open) gets the same codes.
  const sync = wrapped as Partial<SyncScriptRunner>;
  for (const name of ["executeScriptSync", "querySync"] as const) {
    const fn = sync[name] as ((...args: unknown[]) => unknown) | undefined;
    if (!fn) continue;
    (sync as Record<string, unknown>)[name] = (...args: unknown[]) => {
      try {
        return fn(...args);
      } catch (error) {
        throw storeFault(error, where);
      }
    };
  }
  return wrapped;
}
