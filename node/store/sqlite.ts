/**
 * @module node/store/sqlite
 * The SQLite store adapter (better-sqlite3). Statements run synchronously under an async port;
 * a transaction holds a lock so that statements issued by other callers wait until it ends.
 * See docs/store.md.
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type Database from "better-sqlite3";
import { FlowError } from "../../core/errors.js";
import type { SqlExecutor, SqlRow, SqlValue, StorePort, SyncScriptRunner } from "../../core/store/index.js";
import { storeFault, withStoreFaults } from "./store-faults.js";
import { lazyPackage } from "../../core/util/index.js";

/** better-sqlite3 (a native addon), loaded by the first SQLite store (docs/package.md "What loads when"). */
const sqlite = lazyPackage<typeof Database>(import.meta, "better-sqlite3", () => import("better-sqlite3").then((m) => m.default));

export interface SqliteStoreOptions {
  /** Database file path, or `:memory:`. Parent directories are created. */
  path: string;
  /** Journal mode (default `WAL`). */
  journalMode?: string;
}

export type SqliteStore = StorePort & SyncScriptRunner & { readonly path: string; readonly raw: Database.Database };

/** Stores opened in memory so far: each names itself apart (`StorePort.location`). */
let inMemory = 0;

/** Opens a SQLite file as a store. */
export function openSqliteStore(opts: SqliteStoreOptions): SqliteStore {
  let db: Database.Database;
  try {
    if (opts.path !== ":memory:") mkdirSync(dirname(opts.path), { recursive: true });
    db = new (sqlite())(opts.path);
    db.pragma(`journal_mode = ${opts.journalMode ?? "WAL"}`);
    // WAL + NORMAL is durable against process crashes (the SIGKILL case); only an OS crash can
    // lose the last commits. busy_timeout lets several processes share one file.
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 5000");
    db.pragma("foreign_keys = ON");
  } catch (cause) {
    const fault = storeFault(unwritableDir(cause, opts.path) ?? cause, opts.path);
    if (fault instanceof FlowError) throw fault;
    throw new FlowError("STORE_OPEN_FAILED", `Could not open SQLite store at ${opts.path}: ${(cause as Error).message}`, { path: opts.path }, { cause });
  }
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let st = statements.get(sql);
    if (!st) {
      st = db.prepare(sql);
      if (statements.size < 500) statements.set(sql, st);
    }
    return st;
  };
  const bind = (params: readonly SqlValue[] = []) => params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
  const runSync = (sql: string, params?: readonly SqlValue[]): number => {
    const st = prepare(sql);
    if (st.reader) {
      st.all(...bind(params));
      return 0;
    }
    return st.run(...bind(params)).changes;
  };
  const querySync = <T extends SqlRow>(sql: string, params?: readonly SqlValue[]): T[] => prepare(sql).all(...bind(params)) as T[];

  const direct: SqlExecutor = {
    execute: async (sql, params) => runSync(sql, params),
    query: async <T extends SqlRow>(sql: string, params?: readonly SqlValue[]) => querySync<T>(sql, params),
  };

  // One connection: a transaction must not interleave with statements from other callers.
  let lock: Promise<void> = Promise.resolve();
  let locked = false;
  const withLock = async <T>(fn: () => Promise<T>): Promise<T> => {
    const prev = lock;
    let release!: () => void;
    lock = new Promise((r) => (release = r));
    await prev;
    locked = true;
    try {
      return await fn();
    } finally {
      locked = false;
      release();
    }
  };
  let closed = false;
  const guard = () => {
    if (closed) throw new FlowError("STORE_OPEN_FAILED", `SQLite store ${opts.path} is closed.`);
  };

  return withStoreFaults({
    dialect: "sqlite",
    location: opts.path === ":memory:" ? `SQLite in memory #${++inMemory}` : opts.path,
    path: opts.path,
    raw: db,
    async execute(sql, params) {
      guard();
      return locked ? withLock(() => direct.execute(sql, params)) : runSync(sql, params);
    },
    async query<T extends SqlRow>(sql: string, params?: readonly SqlValue[]) {
      guard();
      return locked ? withLock(() => direct.query<T>(sql, params)) : querySync<T>(sql, params);
    },
    async transaction(fn) {
      guard();
      return withLock(async () => {
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await fn(direct);
          db.exec("COMMIT");
          return result;
        } catch (error) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw error;
        }
      });
    },
    async executeScript(sql) {
      guard();
      await withLock(async () => void db.exec(sql));
    },
    executeScriptSync(sql) {
      guard();
      db.exec(sql);
    },
    querySync,
    async close() {
      if (closed) return;
      await withLock(async () => {
        closed = true;
        db.close();
      });
    },
  }, opts.path);
}

/** SQLite says only SQLITE_CANTOPEN when it cannot create the file: the directory's own errno says why. */
function unwritableDir(cause: unknown, path: string): NodeJS.ErrnoException | undefined {
  if ((cause as { code?: string })?.code !== "SQLITE_CANTOPEN" || path === ":memory:") return undefined;
  try {
    accessSync(dirname(path), constants.W_OK);
    return undefined;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}
