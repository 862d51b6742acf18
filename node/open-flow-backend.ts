/**
 * @module node/open-flow-backend
 * `openFlowBackend`: the factory that lets a project move from a laptop (SQLite) to PGlite or
 * to many workers on one PostgreSQL without changing workflow code. It resolves the backend
 * from options, environment, `flow.config.json` and the migration marker
 * (node/config/resolve-backend.ts), then calls `createFlow` or `createFlowPostgres`.
 * See docs/backends.md.
 */
import type { CreateFlowOptions, FlowApi } from "../core/api/index.js";
import type { SchemaMap } from "../core/components/index.js";
import type { RuntimeEnv } from "../core/engine/index.js";
import type { BackendName } from "./config/index.js";
import { resolveBackend, type ResolveBackendOptions } from "./config/index.js";
import { createFlow, type SqliteFlowDb } from "./create-flow.js";
import { createFlowPostgres, type PostgresFlowDb } from "./create-flow-postgres.js";

/**
 * SPEC.md `OpenFlowBackendOptions`: `CreateFlowOptions` plus where to look for the backend.
 * @example
 * await openFlowBackend(schemas, { cwd: "/srv/app", env: { FLOW_BACKEND: "pglite" }, runtime: { claimStaleMs: 60_000 } });
 */
export interface OpenFlowBackendOptions extends CreateFlowOptions, ResolveBackendOptions {
  /** Forces a backend (otherwise: environment, config file, migration marker, `sqlite`). */
  backend?: BackendName;
  /** The runtime env of the engine (clock, ids, claim timings); not the environment variables. */
  runtime?: Partial<RuntimeEnv>;
}

/** What `openFlowBackend` returns: the api, which backend it is on, and `close` for pglite/postgres. */
export type OpenedFlow<S extends SchemaMap> = FlowApi<S, SqliteFlowDb | PostgresFlowDb> & {
  /** The backend that was chosen. */
  readonly backend: BackendName;
  /** Present for `pglite` and `postgres`: releases the connection. */
  close?: () => Promise<void>;
};

/**
 * Opens the project's store on the backend its options, environment and config choose.
 * @example
 * // FLOW_DATABASE_URL=postgres://... node worker.js   -> PostgreSQL
 * // no settings                                       -> SQLite at .flow/flow.db
 * const api = await openFlowBackend({ input: z.object({ topic: z.string() }), output: z.object({ text: z.string() }) });
 * try { await runWorkflow(api.flow(build), { input: { topic: "x" } }); } finally { await api.close?.(); }
 */
export async function openFlowBackend<S extends SchemaMap = {}>(schemas?: S, opts: OpenFlowBackendOptions = {}): Promise<OpenedFlow<S>> {
  const resolved = resolveBackend(opts);
  const runtime = opts.runtime;
  const flowOpts: CreateFlowOptions & { env?: Partial<RuntimeEnv> } = {
    ...(opts.readableName !== undefined ? { readableName: opts.readableName } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.alertPolicy !== undefined ? { alertPolicy: opts.alertPolicy } : {}),
    ...(runtime ? { env: runtime } : {}),
  };
  const map = (schemas ?? {}) as S;
  if (resolved.backend === "sqlite") {
    const journalMode = opts.journalMode ?? resolved.journalMode;
    // Resolved already (with this call's cwd and env): createFlow checks only the migration marker.
    const api = createFlow(map, { ...flowOpts, backend: "sqlite", dbPath: resolved.dbPath, ...(journalMode ? { journalMode } : {}) });
    return Object.assign(api, { backend: "sqlite" as const });
  }
  const api =
    resolved.backend === "pglite"
      ? await createFlowPostgres(map, { ...flowOpts, provider: "pglite", dataDir: resolved.pgliteDataDir })
      : await createFlowPostgres(map, {
          ...flowOpts,
          provider: "postgres",
          ...(resolved.connectionString ? { connectionString: resolved.connectionString } : {}),
          ...(resolved.connection ? { connection: resolved.connection } : {}),
        });
  return Object.assign(api, { backend: resolved.backend });
}
