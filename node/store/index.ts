/**
 * @module node/store
 * The store port's Node adapters: SQLite (better-sqlite3), PGlite with a data dir, PostgreSQL (pg).
 */
export { ensurePgliteSeed } from "./pglite-seed.js";
export { openPgliteStore, pgliteLockPath } from "./pglite.js";
export type { PgliteStore, PgliteStoreOptions } from "./pglite.js";
export { openPostgresStore, redactUrl } from "./postgres.js";
export type { PostgresStore, PostgresStoreOptions } from "./postgres.js";
export { openSqliteStore } from "./sqlite.js";
export type { SqliteStore, SqliteStoreOptions } from "./sqlite.js";
