/**
 * @module node/config/config-file
 * The project config file `flow.config.json` and the environment variables that choose a
 * backend. The file's fields are named like the `openFlowBackend` options they stand for, so a
 * setting moves between code, file and environment without renaming. String values may name
 * environment variables as `${NAME}` (keep secrets out of the file). See docs/backends.md.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";

/**
 * The config file looked for in `cwd` when no `configPath` is given.
 * @example
 * writeFileSync(join(cwd, CONFIG_FILE_NAME), JSON.stringify({ backend: "pglite" }));
 */
export const CONFIG_FILE_NAME = "flow.config.json";

/**
 * The environment variables Flow reads to choose and reach a backend.
 * @example
 * spawn("node", ["worker.js"], { env: { ...process.env, [FLOW_ENV.databaseUrl]: url } });
 */
export const FLOW_ENV = {
  /** `sqlite` | `pglite` | `postgres`. */
  backend: "FLOW_BACKEND",
  /** PostgreSQL URL; implies `postgres`. */
  databaseUrl: "FLOW_DATABASE_URL",
  /** PGlite data dir; implies `pglite`. */
  pgliteDir: "FLOW_PGLITE_DIR",
  /** SQLite file (also the source of `migrateFlowStore`). */
  dbPath: "FLOW_DB_PATH",
  /** Path of the config file, instead of `./flow.config.json`. */
  config: "FLOW_CONFIG",
} as const;

/**
 * The names a backend can be given by.
 * @example
 * if (!BACKENDS.includes(name)) throw new Error(`unknown backend ${name}`);
 */
export const BACKENDS = ["sqlite", "pglite", "postgres"] as const;
export type BackendName = (typeof BACKENDS)[number];

/** An environment: a map of string to string or undefined (`process.env` by default). */
export type EnvMap = Record<string, string | undefined>;

const connectionSchema = z
  .object({
    host: z.string().optional(),
    port: z.number().int().positive().optional(),
    user: z.string().optional(),
    password: z.string().optional(),
    database: z.string().optional(),
    ssl: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
    max: z.number().int().positive().optional(),
    options: z.string().optional(),
    application_name: z.string().optional(),
  })
  .strict();

/**
 * The contents of `flow.config.json`. Every field is optional.
 * @example
 * const config: FlowConfigFile = { backend: "postgres", connectionString: "postgres://app:${DB_PASSWORD}@db/flow" };
 */
export const configFileSchema = z
  .object({
    $schema: z.string().optional(),
    backend: z.enum(BACKENDS).optional(),
    dbPath: z.string().optional(),
    journalMode: z.string().optional(),
    connectionString: z.string().optional(),
    connection: connectionSchema.optional(),
    pgliteDataDir: z.string().optional(),
  })
  .strict();

export type FlowConfigFile = z.infer<typeof configFileSchema>;

/** Replaces `${NAME}` in every string of a parsed JSON value; a name missing from `env` is an error. */
function interpolate(value: unknown, env: EnvMap, file: string): unknown {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined) {
        throw new FlowError("BACKEND_CONFIG_INVALID", `${file} uses \${${name}}, but the environment has no ${name}. Set it, or write the value in the file.`, { configPath: file, variable: name });
      }
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, file));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, file)]));
  return value;
}

/**
 * Finds the config file: `configPath` (option), else FLOW_CONFIG, else `flow.config.json` in
 * `cwd` when it exists. A path that was asked for explicitly must exist.
 */
export function findConfigFile(cwd: string, env: EnvMap, configPath?: string): string | undefined {
  const asked = configPath ?? env[FLOW_ENV.config];
  if (asked) {
    const path = isAbsolute(asked) ? asked : resolve(cwd, asked);
    if (!existsSync(path)) {
      const via = configPath ? "configPath" : FLOW_ENV.config;
      throw new FlowError("BACKEND_CONFIG_INVALID", `Config file ${path} (from ${via}) does not exist.`, { configPath: path });
    }
    return path;
  }
  const path = join(cwd, CONFIG_FILE_NAME);
  return existsSync(path) ? path : undefined;
}

/** Reads, interpolates and validates a config file. */
export function readConfigFile(path: string, env: EnvMap): FlowConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new FlowError("BACKEND_CONFIG_INVALID", `Config file ${path} is not valid JSON: ${(cause as Error).message}`, { configPath: path }, { cause });
  }
  const parsed = configFileSchema.safeParse(interpolate(raw, env, path));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; ");
    throw new FlowError("BACKEND_CONFIG_INVALID", `Config file ${path} is invalid: ${issues}. Fields: backend, dbPath, journalMode, connectionString, connection, pgliteDataDir.`, {
      configPath: path,
      issues: parsed.error.issues,
    });
  }
  return parsed.data;
}
