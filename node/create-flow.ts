/**
 * @module node/create-flow
 * `createFlow`: the synchronous factory over a SQLite file (SPEC.md "Factories").
 */
import type { drizzle } from "drizzle-orm/better-sqlite3";
import { createFlowApi, type CreateFlowOptions, type FlowApi } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import type { RuntimeEnv } from "../core/engine/index.js";
import { FlowError, isFlowError } from "../core/errors.js";
import { ensureUserTablesSync, registryOptions, SchemaRegistry } from "../core/schema/index.js";
import { migrateStoreSync } from "../core/store/index.js";
import { lazyPackage } from "../core/util/index.js";
import { markerPathOf, readMarker, resolveDbPath } from "./config/index.js";
import { createNodeEnv } from "./engine/index.js";
import { openSqliteStore } from "./store/index.js";

/** The Drizzle database `createFlow` returns as `db`. */
export type SqliteFlowDb = ReturnType<typeof drizzle>;

/** Drizzle's better-sqlite3 driver, loaded by the first `createFlow` (docs/package.md "What loads when"). */
const drizzleSqlite = lazyPackage<typeof import("drizzle-orm/better-sqlite3")>(import.meta, "drizzle-orm/better-sqlite3", () => import("drizzle-orm/better-sqlite3"));

/** Default database file, relative to the working directory, where neither `dbPath`, `FLOW_DB_PATH` nor flow.config.json names one. */
export const DEFAULT_DB_PATH = ".flow/flow.db";

/**
 * Creates a workflow api over a SQLite file (WAL). Synchronous. Without `dbPath`, the file the
 * project names (`FLOW_DB_PATH`, else `"dbPath"` in flow.config.json: `resolveDbPath`), else
 * `.flow/flow.db`; `:memory:` opens a store of this api's own in memory.
 * @example
 * const { flow, Workflow, Task, outputs } = createFlow({
 *   input: z.object({ name: z.string() }),
 *   output: z.object({ greeting: z.string() }),
 * });
 */
export function createFlow<S extends SchemaMap>(schemas: S, opts: CreateFlowOptions & { env?: Partial<RuntimeEnv> } = {}): FlowApi<S, SqliteFlowDb> {
  if (opts.backend && opts.backend !== "sqlite") {
    throw new FlowError("BACKEND_UNSUPPORTED", `createFlow serves only the sqlite backend; for "${opts.backend}" use createFlowPostgres or openFlowBackend.`, { backend: opts.backend });
  }
  const registry = new SchemaRegistry(schemas, "sqlite", registryOptions(opts));
  const path = resolveDbPath({ dbPath: opts.dbPath });
  const env = createNodeEnv(opts.env);
  if (path !== ":memory:") warnIfMigrated(path, env);
  const store = openSqliteStore({ path, journalMode: opts.journalMode ?? "WAL" });
  try {
    migrateStoreSync(store, env.clock.now());
    ensureUserTablesSync(store, registry);
  } catch (cause) {
    store.raw.close();
    if (isFlowError(cause)) throw cause;
    throw new FlowError("STORE_OPEN_FAILED", `Could not prepare the SQLite store at ${path}: ${(cause as Error).message}`, { path }, { cause });
  }
  return createFlowApi<S, SqliteFlowDb>({ store, registry, env, activeRuns: new Set() }, drizzleSqlite().drizzle(store.raw), opts);
}

/**
 * A store `migrateFlowStore` moved (its marker beside the file) opened as SQLite again: allowed,
 * but almost always a mistake, since a new SQLite file starts empty where the migration removed
 * it and its runs are in no store `flow runs` reads.
 */
function warnIfMigrated(path: string, env: RuntimeEnv): void {
  const markerPath = markerPathOf(path);
  const marker = readMarker(markerPath);
  if (!marker) return;
  env.warn(
    `The SQLite store ${path} was migrated to ${marker.target.backend} (marker ${markerPath}); it is opened as SQLite anyway (createFlow, or a backend setting that says sqlite), so runs started here are not in the migrated store. Open that one with openFlowBackend and no backend setting (it follows the marker), or createFlowPostgres.`,
    { markerPath },
  );
}
