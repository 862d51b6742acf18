/**
 * @module node/store/postgres
 * The PostgreSQL store adapter (node-postgres). A pool serves statements; a transaction takes
 * one client of its own (`pool.connect()`), so statements outside it run on other clients and
 * never interleave with it. Many processes may share one database: that is how Flow scales past
 * one machine (DESIGN.md). See docs/store.md.
 */
import type pg from "pg";
import { FlowError } from "../../core/errors.js";
import { lazyPackage } from "../../core/util/index.js";
import { closableExecutor, inlinePostgresParams, toPositionalParams } from "../../core/store/index.js";
import type { SqlExecutor, SqlRow, SqlValue, StorePort } from "../../core/store/index.js";
import { withStoreFaults } from "./store-faults.js";

/** How to reach the server: a URL, or pg's connection object (host, user, password, ssl, ...). */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database`. */
  connectionString?: string;
  /** node-postgres `PoolConfig` (an alternative to the URL; both may be given, fields win). */
  connection?: pg.PoolConfig;
}

/** A PostgreSQL store, with its pool for callers that need it (Drizzle, LISTEN). */
export type PostgresStore = StorePort & {
  readonly pool: pg.Pool;
  /** Where the store is, with any password removed (for messages and logs). */
  readonly target: string;
};

const INT8_OID = 20;
const NUMERIC_OID = 1700;

/**
 * Type parsers of Flow's pools: BIGINT and NUMERIC come back as JS numbers (epoch-ms columns
 * are BIGINT; pg's default returns strings). Set per pool, never on pg's global `types`, so
 * other users of `pg` in the process keep their parsers.
 */
/** pg, loaded by the first PostgreSQL store (docs/package.md "What loads when"). */
const pgPackage = lazyPackage<typeof pg>(import.meta, "pg", () => import("pg").then((m) => m.default));

const flowTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if ((oid === INT8_OID || oid === NUMERIC_OID) && format !== "binary") return (value: string) => Number(value);
    return pgPackage().types.getTypeParser(oid, format as "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

/** A URL or connection object as text without its password. */
export function describePostgresTarget(opts: PostgresStoreOptions): string {
  if (opts.connectionString) return redactUrl(opts.connectionString);
  const c = opts.connection ?? {};
  if (c.connectionString) return redactUrl(c.connectionString);
  return `postgres://${c.user ? `${c.user}@` : ""}${c.host ?? "localhost"}:${c.port ?? 5432}/${c.database ?? ""}`;
}

/** The URL with its password replaced by `***`; text that is not a URL is returned as is. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** node-postgres wants Buffers for bytea; the port's values are otherwise passed through. */
function bind(params: readonly SqlValue[] = []): unknown[] {
  return params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
}

function executorOf(client: pg.Pool | pg.PoolClient): SqlExecutor {
  return {
    async execute(sql, params) {
      const r = await client.query(toPositionalParams(sql), bind(params));
      return r.rowCount ?? 0;
    },
    async query<T extends SqlRow>(sql: string, params?: readonly SqlValue[]) {
      const r = await client.query(toPositionalParams(sql), bind(params));
      return r.rows as T[];
    },
  };
}

/**
 * Runs `fn` on a dedicated client of the pool. When it fails, the transaction it opened is
 * rolled back; a client that cannot even roll back is destroyed instead of returned to the pool.
 */
async function onClient<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await fn(client);
  } catch (error) {
    try {
      await client.query("ROLLBACK");
    } catch (rollbackError) {
      broken = rollbackError as Error;
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Opens a PostgreSQL database as a store. Connections are made on first use; a wrong URL or
 * password fails the first statement.
 * @example
 * const store = openPostgresStore({ connectionString: process.env.FLOW_DATABASE_URL });
 * await store.query("SELECT 1 AS one");
 * await store.close();
 */
export function openPostgresStore(opts: PostgresStoreOptions): PostgresStore {
  const target = describePostgresTarget(opts);
  const pool = new (pgPackage().Pool)({
    ...(opts.connectionString ? { connectionString: opts.connectionString } : {}),
    ...opts.connection,
    types: flowTypes,
  });
  // An idle client can lose its server (restart, network); without a listener pg would throw
  // the error out of the process. The pool drops that client and the next statement reconnects.
  pool.on("error", () => {});
  const direct = executorOf(pool);
  let closed = false;
  const guard = () => {
    if (closed) throw new FlowError("STORE_OPEN_FAILED", `PostgreSQL store ${target} is closed; open a new one.`, { target });
  };

  return withStoreFaults({
    dialect: "postgres",
    // Its server options too: a `search_path` there is another set of tables on the same database.
    location: opts.connection?.options ? `${target} (${opts.connection.options})` : target,
    pool,
    target,
    ...closableExecutor(direct, guard),
    async transaction(fn) {
      guard();
      return onClient(pool, async (client) => {
        await client.query("BEGIN");
        const result = await fn(executorOf(client));
        await client.query("COMMIT");
        return result;
      });
    },
    async executeBatch(statements) {
      guard();
      // One round trip: the statements, with their parameters written in, as one simple-protocol
      // script in one transaction (a failure aborts it; onClient's ROLLBACK clears the aborted state).
      await onClient(pool, (client) => client.query(`BEGIN;\n${statements.map(([sql, params]) => inlinePostgresParams(sql, params)).join(";\n")};\nCOMMIT`));
    },
    async executeScript(sql) {
      guard();
      // Without parameters node-postgres uses the simple protocol, which runs several statements.
      await pool.query(sql);
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  }, target);
}
