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
import { FLOW_ENV, markerPathOf, readMarker, resolveBackend, resolveDbPath } from "./config/index.js";
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
  if (path !== ":memory:") warnIfNotProjectStore(path, opts.backend === "sqlite", env);
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
 * Says when the SQLite file createFlow opens is not the store the project's settings name, which
 * `flow runs` (given no `--workflow` or `--db`) and `openFlowBackend` open: those would not see
 * the runs started here. Either a backend setting (FLOW_BACKEND, FLOW_DATABASE_URL, FLOW_PGLITE_DIR, or
 * flow.config.json) names another backend, or `migrateFlowStore` moved this file (its marker
 * beside it, where a new SQLite file starts empty). `forced`: the code asked for SQLite
 * (`backend: "sqlite"`, as openFlowBackend does once it resolved the settings), so only the marker counts.
 */
function warnIfNotProjectStore(path: string, forced: boolean, env: RuntimeEnv): void {
  const elsewhere = forced ? undefined : settingElsewhere(path);
  const markerPath = markerPathOf(path);
  const marker = elsewhere ? undefined : readMarker(markerPath);
  if (elsewhere) env.warn(elsewhere, { path });
  else if (marker) {
    env.warn(
      `The SQLite store ${path} was migrated to ${marker.target.backend} (marker ${markerPath}); it is opened as SQLite anyway (createFlow, or a backend setting that says sqlite), so runs started here are not in the migrated store. Open that one with openFlowBackend and no backend setting (it follows the marker), or createFlowPostgres.`,
      { markerPath },
    );
  }
}

/** What the project's environment or flow.config.json says against SQLite at `path`; undefined where neither names another backend. */
function settingElsewhere(path: string): string | undefined {
  try {
    const project = resolveBackend({ dbPath: path });
    if (project.backend === "sqlite" || (project.source !== "env" && project.source !== "config")) return undefined;
    const from = project.source === "env" ? `the environment (${FLOW_ENV.backend}, ${FLOW_ENV.databaseUrl} or ${FLOW_ENV.pgliteDir})` : project.configPath;
    return `createFlow opens the SQLite store ${path}, but ${from} names the ${project.backend} backend: flow runs (and the other flow commands given no --workflow or --db) and openFlowBackend open that store instead, so they do not see the runs started here. Open the project's store with openFlowBackend, or remove the setting.`;
  } catch (error) {
    // A setting names a backend it cannot open (postgres without a connection, an unknown name);
    // a migration marker's own gap is left to the marker's warning.
    if (!isFlowError(error) || error.details?.source === "marker") return undefined;
    return `createFlow opens the SQLite store ${path}, but this project's backend setting names another one, which cannot be opened: ${error.message}`;
  }
}
