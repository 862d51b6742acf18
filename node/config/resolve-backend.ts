/**
 * @module node/config/resolve-backend
 * Which backend a project uses, and where its store is, from options, environment, config file
 * and migration marker. Precedence, highest first (docs/backends.md, "Choosing a backend"):
 *
 *   1. options passed in code       backend, connectionString, connection, pgliteDataDir, dbPath
 *   2. environment                  FLOW_BACKEND, FLOW_DATABASE_URL, FLOW_PGLITE_DIR, FLOW_DB_PATH
 *   3. config file                  flow.config.json in cwd (or configPath / FLOW_CONFIG)
 *   4. migration marker             <dbPath>.migrated.json, written by migrateFlowStore
 *   5. default                      sqlite at .flow/flow.db
 *
 * The backend comes from the highest level that names one, explicitly or by giving a location
 * only one backend uses (a URL names postgres, a PGlite dir names pglite). Each location field
 * comes from the highest level that has it, whichever level chose the backend.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import type pg from "pg";
import { FlowError } from "../../core/errors.js";
import { BACKENDS, type BackendName, type EnvMap, FLOW_ENV, findConfigFile, readConfigFile } from "./config-file.js";
import { markerPathOf, type MigrationMarker, readMarker } from "./migration-marker.js";

/** The inputs of backend resolution (SPEC.md `OpenFlowBackendOptions` without `CreateFlowOptions`). */
export interface ResolveBackendOptions {
  /** Forces a backend. */
  backend?: BackendName;
  /** Directory of `flow.config.json` and base of relative paths (default `process.cwd()`). */
  cwd?: string;
  /** Config file to read instead of `<cwd>/flow.config.json`. */
  configPath?: string;
  /** Environment to read (default `process.env`). */
  env?: EnvMap;
  /** PostgreSQL URL (implies `postgres`). */
  connectionString?: string;
  /** node-postgres connection object (implies `postgres`). */
  connection?: pg.PoolConfig;
  /** PGlite data dir (implies `pglite`). */
  pgliteDataDir?: string;
  /** SQLite file (and anchor of the migration marker). */
  dbPath?: string;
}

/** Where a decision came from. */
export type ConfigSource = "options" | "env" | "config" | "marker" | "default";

/** The outcome of resolution. Paths are absolute. */
export interface ResolvedBackend {
  backend: BackendName;
  /** The level that chose the backend. */
  source: ConfigSource;
  /** The SQLite store path (the store itself for `sqlite`; the marker's anchor otherwise). */
  dbPath: string;
  /** The PGlite data dir (for `pglite`). */
  pgliteDataDir: string;
  connectionString?: string;
  connection?: pg.PoolConfig;
  journalMode?: string;
  /** The config file that was read, if any. */
  configPath?: string;
  markerPath: string;
  /** The migration marker, when one exists at `markerPath`. */
  marker?: MigrationMarker;
}

interface Level {
  source: ConfigSource;
  backend?: string;
  connectionString?: string;
  connection?: pg.PoolConfig;
  pgliteDataDir?: string;
  journalMode?: string;
  /** Relative paths of this level resolve against this directory. */
  base: string;
  /** How to name this level's backend setting in an error message. */
  backendFrom: string;
}

const first = <K extends keyof Level>(levels: Level[], key: K): { value: NonNullable<Level[K]>; level: Level } | undefined => {
  for (const level of levels) {
    const value = level[key];
    if (value !== undefined && value !== "") return { value: value as NonNullable<Level[K]>, level };
  }
  return undefined;
};

const absolute = (base: string, p: string) => (isAbsolute(p) ? p : resolve(base, p));

function namedBackend(level: Level): string | undefined {
  if (level.backend) return level.backend;
  if (level.connectionString || level.connection) return "postgres";
  if (level.pgliteDataDir) return "pglite";
  return undefined;
}

/** A connection from the standard PG* variables of `env`, when it has any. */
function connectionFromPgEnv(env: EnvMap): pg.PoolConfig | undefined {
  if (!env.PGHOST && !env.PGDATABASE) return undefined;
  return {
    ...(env.PGHOST ? { host: env.PGHOST } : {}),
    ...(env.PGPORT ? { port: Number(env.PGPORT) } : {}),
    ...(env.PGUSER ? { user: env.PGUSER } : {}),
    ...(env.PGPASSWORD ? { password: env.PGPASSWORD } : {}),
    ...(env.PGDATABASE ? { database: env.PGDATABASE } : {}),
  };
}

/**
 * Resolves the backend of a project.
 * @example
 * const r = resolveBackend({ cwd: "/srv/app", env: { FLOW_DATABASE_URL: "postgres://localhost/flow" } });
 * r.backend; // "postgres"
 */
export function resolveBackend(opts: ResolveBackendOptions = {}): ResolvedBackend {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const env = opts.env ?? process.env;
  const configPath = findConfigFile(cwd, env, opts.configPath);
  const file = configPath ? readConfigFile(configPath, env) : undefined;
  const levels: Level[] = [
    { source: "options", ...stripUndefined(opts), base: cwd, backendFrom: "the backend option" },
    {
      source: "env",
      backend: env[FLOW_ENV.backend],
      connectionString: env[FLOW_ENV.databaseUrl],
      pgliteDataDir: env[FLOW_ENV.pgliteDir],
      base: cwd,
      backendFrom: FLOW_ENV.backend,
    },
    ...(file && configPath ? [{ source: "config" as const, ...file, base: dirname(configPath), backendFrom: `"backend" in ${configPath}` }] : []),
  ];

  // One rule for the SQLite file, shared with createFlow (it reads the config file again only when
  // neither the options nor the environment name the file).
  const dbPath = resolveDbPath(opts);
  const markerPath = markerPathOf(dbPath);
  const marker = readMarker(markerPath);

  let backend: string | undefined;
  let source: ConfigSource = "default";
  let backendFrom = "";
  for (const level of levels) {
    backend = namedBackend(level);
    if (backend) {
      source = level.source;
      backendFrom = level.backendFrom;
      break;
    }
  }
  if (!backend && marker) {
    backend = marker.target.backend;
    source = "marker";
  }
  backend ??= "sqlite";
  if (!(BACKENDS as readonly string[]).includes(backend)) {
    throw new FlowError("BACKEND_CONFIG_INVALID", `Unknown backend "${backend}" (from ${backendFrom}); use one of ${BACKENDS.join(", ")}.`, { backend, source });
  }

  const dirField = first(levels, "pgliteDataDir");
  const pgliteDataDir = dirField ? absolute(dirField.level.base, dirField.value) : (marker?.target.dataDir ?? join(dirname(dbPath), "pglite"));
  const resolved: ResolvedBackend = { backend: backend as BackendName, source, dbPath, pgliteDataDir, markerPath };
  if (configPath) resolved.configPath = configPath;
  if (marker) resolved.marker = marker;
  const journalMode = first(levels, "journalMode")?.value;
  if (journalMode) resolved.journalMode = journalMode;

  if (resolved.backend === "postgres") {
    const url = first(levels, "connectionString")?.value;
    const connection = first(levels, "connection")?.value;
    const fallbackUrl = env.DATABASE_URL ?? (marker?.target.url && !marker.target.url.includes(":***@") ? marker.target.url : undefined);
    const pgEnv = connectionFromPgEnv(env);
    if (url) resolved.connectionString = url;
    if (connection) resolved.connection = connection;
    if (!url && !connection) {
      if (fallbackUrl) resolved.connectionString = fallbackUrl;
      else if (pgEnv) resolved.connection = pgEnv;
      else {
        throw new FlowError(
          "BACKEND_CONFIG_INVALID",
          `The postgres backend (from ${source === "marker" ? `migration marker ${markerPath}` : backendFrom}) needs a connection: set ${FLOW_ENV.databaseUrl}, "connectionString" in flow.config.json, or pass connectionString.`,
          { source },
        );
      }
    }
  }
  return resolved;
}

/** A `dbPath` made absolute against `base` (`:memory:` stays itself). */
const dbPathAt = (base: string, value: string) => (value === ":memory:" ? value : absolute(base, value));

/**
 * The SQLite file a project names (`resolveBackend`'s `dbPath`): the option, else
 * `FLOW_DB_PATH`, else `"dbPath"` in the config file, else `.flow/flow.db`; absolute,
 * or `:memory:`. Reads the config file only when the option and the environment name none.
 * `createFlow` opens this file when it is given no `dbPath`, so `flow runs` and a workflow file
 * agree on the store without `--db`.
 * @example
 * resolveDbPath({ cwd: "/srv/app", env: { FLOW_DB_PATH: "runs.db" } }); // "/srv/app/runs.db"
 */
export function resolveDbPath(opts: Pick<ResolveBackendOptions, "cwd" | "configPath" | "env" | "dbPath"> = {}): string {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const env = opts.env ?? process.env;
  const named = opts.dbPath || env[FLOW_ENV.dbPath];
  if (named) return dbPathAt(cwd, named);
  const configPath = findConfigFile(cwd, env, opts.configPath);
  const fromFile = configPath ? readConfigFile(configPath, env).dbPath : undefined;
  return fromFile ? dbPathAt(dirname(configPath!), fromFile) : join(cwd, ".flow", "flow.db");
}

function stripUndefined(opts: ResolveBackendOptions): Partial<Level> {
  const out: Partial<Level> = {};
  if (opts.backend !== undefined) out.backend = opts.backend;
  if (opts.connectionString !== undefined) out.connectionString = opts.connectionString;
  if (opts.connection !== undefined) out.connection = opts.connection;
  if (opts.pgliteDataDir !== undefined) out.pgliteDataDir = opts.pgliteDataDir;
  return out;
}
