/**
 * @module core/store/pglite-statements
 * The statements of a PGlite store, shared by the Node adapter (node/store/pglite.ts, a data
 * dir) and the browser one (browser/store/pglite-browser.ts, OPFS or IndexedDB): `?`
 * placeholders turned positional, changed-row counts, transactions on PGlite's own connection
 * lock, a scheduling step's batch sent as one script, and a guard that refuses work once the
 * store is closed. It names PGlite only structurally, so core stays free of the package.
 * See docs/store.md.
 */
import { closableExecutor } from "./closable.js";
import { inlinePostgresParams, toPositionalParams } from "./dialect.js";
import type { SqlExecutor, SqlRow, SqlValue, StorePort } from "./port.js";

/** What a PGlite transaction offers (`Transaction` of @electric-sql/pglite, structurally). */
export interface PgliteQueryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
  exec(sql: string): Promise<unknown>;
}

/** What a PGlite instance offers the store (`PGlite`, structurally). */
export interface PgliteConnection extends PgliteQueryable {
  transaction<T>(fn: (tx: PgliteQueryable) => Promise<T>): Promise<T>;
}

/** PostgreSQL's type oid of NUMERIC. */
const NUMERIC_OID = 1700;

/**
 * PGlite `parsers` every Flow store uses: NUMERIC as a JS number, like the pg adapter (PGlite
 * already returns safe BIGINTs as numbers).
 * @example
 * const pglite = await PGlite.create({ dataDir: "idb://flow", parsers: PGLITE_PARSERS });
 */
export const PGLITE_PARSERS: Record<number, (value: string) => unknown> = { [NUMERIC_OID]: (value: string) => Number(value) };

/**
 * `execute` and `query` over a PGlite instance or transaction (`?` placeholders).
 * @example
 * const rows = await pgliteExecutor(pglite).query("SELECT ? AS x", [1]);
 */
export function pgliteExecutor(db: PgliteQueryable): SqlExecutor {
  return {
    async execute(sql, params) {
      const r = await db.query(toPositionalParams(sql), params as unknown[] | undefined);
      return r.affectedRows ?? 0;
    },
    async query<T extends SqlRow>(sql: string, params?: readonly SqlValue[]) {
      const r = await db.query<T>(toPositionalParams(sql), params as unknown[] | undefined);
      return r.rows;
    },
  };
}

/**
 * Every statement method of a PGlite store; each calls `guard` first (it throws when the store
 * is closed or unusable). The adapter adds `dialect` and its own `close`.
 * @example
 * const store: StorePort = { dialect: "postgres", ...pgliteStatements(pglite, guard), close: () => pglite.close() };
 */
export function pgliteStatements(pglite: PgliteConnection, guard: () => void): Omit<StorePort, "dialect" | "close"> {
  return {
    ...closableExecutor(pgliteExecutor(pglite), guard),
    async transaction(fn) {
      guard();
      return pglite.transaction((tx) => fn(pgliteExecutor(tx)));
    },
    async executeBatch(statements) {
      guard();
      // One call into the wasm for the whole step instead of one per statement.
      await pglite.transaction((tx) => tx.exec(statements.map(([sql, params]) => inlinePostgresParams(sql, params)).join(";\n")));
    },
    async executeScript(sql) {
      guard();
      await pglite.exec(sql);
    },
  };
}
