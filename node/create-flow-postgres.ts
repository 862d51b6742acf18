/**
 * @module node/create-flow-postgres
 * `createFlowPostgres`: the asynchronous factory for the two PostgreSQL-dialect backends
 * (SPEC.md "Factories"): `postgres` (a server, through node-postgres) and `pglite` (a data dir).
 * It mirrors the synchronous `createFlow`: open the store, apply Flow's migrations, create or
 * widen the user tables, then build the api over a Drizzle database of the same connection.
 * See docs/backends.md.
 */
import type { PgDatabase, PgQueryResultHKT, PgTable } from "drizzle-orm/pg-core";
import type pg from "pg";
import { createFlowApi, type CreateFlowOptions, type FlowApi } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import type { RuntimeEnv } from "../core/engine/index.js";
import { FlowError, isFlowError } from "../core/errors.js";
import { ensureUserTables, registryOptions, SchemaRegistry } from "../core/schema/index.js";
import type { FlowTable } from "../core/schema/index.js";
import { migrateStore } from "../core/store/index.js";
import type { StorePort } from "../core/store/index.js";
import { createNodeEnv } from "./engine/index.js";
import { reconcileMigratedColumns } from "./migrate/index.js";
import { openPgliteStore, openPostgresStore, type PgliteStore, type PostgresStore } from "./store/index.js";

/**
 * Default PGlite data dir, relative to the working directory.
 * @example
 * await createFlowPostgres(schemas, { provider: "pglite" }); // opens DEFAULT_PGLITE_DIR
 */
export const DEFAULT_PGLITE_DIR = ".flow/pglite";

/** The Drizzle database `createFlowPostgres` returns as `db` (node-postgres or PGlite). */
export type PostgresFlowDb = PgDatabase<PgQueryResultHKT>;

/**
 * SPEC.md `CreateFlowPostgresOptions`: `CreateFlowOptions` plus a union on `provider`.
 * @example
 * const opts: CreateFlowPostgresOptions = { provider: "pglite", dataDir: ".flow/pglite", readableName: "Writer" };
 */
export type CreateFlowPostgresOptions = CreateFlowOptions & { env?: Partial<RuntimeEnv> } & (
    | {
        /** Default. */
        provider?: "postgres";
        /** `postgres://user:password@host:5432/database`. */
        connectionString?: string;
        /** node-postgres connection object (an alternative to the URL). */
        connection?: pg.PoolConfig;
      }
    | {
        provider: "pglite";
        /** Default `.flow/pglite`. */
        dataDir?: string;
      }
  );

/** A user table on a PostgreSQL-dialect store (a Drizzle `pgTable`). */
export type PgFlowTable = Extract<FlowTable, PgTable>;

/** What `createFlowPostgres` returns: the api (with Drizzle `pgTable`s) plus `close()`. */
export type PostgresFlow<S extends SchemaMap> = Omit<FlowApi<S, PostgresFlowDb>, "tables"> & {
  /** One Drizzle `pgTable` per schema key (including `input`). */
  tables: { readonly [K in keyof S]: PgFlowTable };
  /** Releases the connection (ends the pool, or closes PGlite). Call it after runs settle. */
  close(): Promise<void>;
};

/** Startup lock key: migrations and user-table DDL of workers starting together take turns. */
const STARTUP_LOCK = 7331000;

/**
 * Runs `fn` while holding a session advisory lock on a connection of its own, so that workers
 * opening one database at the same moment prepare it one after the other (CREATE TABLE IF NOT
 * EXISTS races on PostgreSQL otherwise). PGlite has one connection and needs no lock.
 */
async function withStartupLock<T>(store: StorePort, fn: () => Promise<T>): Promise<T> {
  const pool = (store as Partial<PostgresStore>).pool;
  if (!pool) return fn();
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${STARTUP_LOCK})`);
    try {
      return await fn();
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${STARTUP_LOCK})`);
    }
  } finally {
    client.release();
  }
}

/**
 * Prepares an open PostgreSQL-dialect store for `schemas` and builds the api over it. The store
 * is closed when preparing fails. Shared by `createFlowPostgres` and the test backends.
 */
export async function bindPostgresStore<S extends SchemaMap>(
  schemas: S,
  store: PostgresStore | PgliteStore,
  opts: CreateFlowOptions & { env?: Partial<RuntimeEnv> },
  target: string,
): Promise<PostgresFlow<S>> {
  const env = createNodeEnv(opts.env);
  let registry: SchemaRegistry;
  try {
    registry = new SchemaRegistry(schemas, "postgres", registryOptions(opts));
    await withStartupLock(store, async () => {
      await migrateStore(store, env.clock.now());
      await reconcileMigratedColumns(store, registry);
      await ensureUserTables(store, registry);
    });
  } catch (cause) {
    await store.close();
    if (isFlowError(cause)) throw cause;
    throw new FlowError("STORE_OPEN_FAILED", `Could not prepare the store at ${target}: ${(cause as Error).message}`, { target }, { cause });
  }
  // Each driver's Drizzle adapter loads with its store (docs/package.md "What loads when").
  const db = ("pool" in store ? (await import("drizzle-orm/node-postgres")).drizzle({ client: store.pool }) : (await import("drizzle-orm/pglite")).drizzle({ client: store.pglite })) as unknown as PostgresFlowDb;
  const api = createFlowApi<S, PostgresFlowDb>({ store, registry, env, activeRuns: new Set() }, db, opts);
  return Object.assign(api as Omit<typeof api, "tables"> & { tables: PostgresFlow<S>["tables"] }, { close: () => store.close() });
}

/**
 * Creates a workflow api over PostgreSQL (`provider: "postgres"`, the default) or PGlite
 * (`provider: "pglite"`, a data dir). Asynchronous; `close()` releases the connection.
 * @example
 * const { flow, Workflow, Task, outputs, close } = await createFlowPostgres(
 *   { input: z.object({ topic: z.string() }), output: z.object({ summary: z.string() }) },
 *   { connectionString: process.env.FLOW_DATABASE_URL },
 * );
 */
export async function createFlowPostgres<S extends SchemaMap>(schemas: S, opts: CreateFlowPostgresOptions = {}): Promise<PostgresFlow<S>> {
  if (opts.backend === "sqlite") {
    throw new FlowError("BACKEND_UNSUPPORTED", `createFlowPostgres serves the pglite and postgres backends; for "sqlite" use createFlow or openFlowBackend.`, { backend: opts.backend });
  }
  const provider = opts.provider ?? (opts.backend === "pglite" ? "pglite" : "postgres");
  if (opts.provider && opts.backend && opts.backend !== opts.provider) {
    throw new FlowError("INVALID_ARGUMENT", `createFlowPostgres got backend "${opts.backend}" and provider "${opts.provider}"; give one of them.`, { backend: opts.backend, provider: opts.provider });
  }
  if (provider === "pglite") {
    const dataDir = ("dataDir" in opts ? opts.dataDir : undefined) ?? DEFAULT_PGLITE_DIR;
    const store = await openPgliteStore({ dataDir, withFlowTables: true });
    return bindPostgresStore(schemas, store, opts, `pglite:${store.dataDir}`);
  }
  const { connectionString, connection } = opts as { connectionString?: string; connection?: pg.PoolConfig };
  const store = openPostgresStore({ ...(connectionString ? { connectionString } : {}), ...(connection ? { connection } : {}) });
  return bindPostgresStore(schemas, store, opts, store.target);
}
