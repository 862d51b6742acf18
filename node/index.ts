/**
 * @module durable-flow
 * The Node entry: the whole API a Node user imports. It re-exports `durable-flow/core` and adds
 * what needs Node: the SQLite factory, the Node runtime env and store adapters.
 */
export * from "../core/index.js";
export { createFlow, DEFAULT_DB_PATH } from "./create-flow.js";
export type { SqliteFlowDb } from "./create-flow.js";
export { createNodeEnv } from "./engine/env.js";
export { openSqliteStore } from "./store/sqlite.js";
export type { SqliteStore, SqliteStoreOptions } from "./store/sqlite.js";
export { createExternalFlow } from "./create-external-flow.js";
export type { ExternalFlow } from "./create-external-flow.js";
// ---- backends (issue 3): PostgreSQL and PGlite stores, factories, config, store migration ----
export { openPostgresStore } from "./store/postgres.js";
export type { PostgresStore, PostgresStoreOptions } from "./store/postgres.js";
export { openPgliteStore } from "./store/pglite.js";
export type { PgliteStore, PgliteStoreOptions } from "./store/pglite.js";
export { bash, BASH_LIMITS, edit, grep, read, tools, write } from "./tools/index.js";
export { createFlowPostgres, DEFAULT_PGLITE_DIR } from "./create-flow-postgres.js";
export type { CreateFlowPostgresOptions, PostgresFlow, PostgresFlowDb } from "./create-flow-postgres.js";
export { openFlowBackend } from "./open-flow-backend.js";
export type { OpenedFlow, OpenFlowBackendOptions } from "./open-flow-backend.js";
export { resolveBackend } from "./config/resolve-backend.js";
export type { ConfigSource, ResolveBackendOptions, ResolvedBackend } from "./config/resolve-backend.js";
export { BACKENDS, CONFIG_FILE_NAME, FLOW_ENV } from "./config/config-file.js";
export type { BackendName, EnvMap, FlowConfigFile } from "./config/config-file.js";
