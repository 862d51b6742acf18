/**
 * @module core/store
 * The store port (execute, query, transaction, a dialect tag), the dialect helpers, the
 * numbered migrations and the contract suite every adapter runs. Other areas import from here only.
 */
export { closableExecutor } from "./closable.js";
export { inlinePostgresParams, quoteIdent, sqlType, toPositionalParams } from "./dialect.js";
export type { ColumnKind } from "./dialect.js";
export {
  migrateStore,
  migrateStoreSync,
  migrationLedger,
  MIGRATIONS,
  pendingMigrations,
  SCHEMA_VERSION,
} from "./migrations.js";
export { PGLITE_PARSERS, pgliteStatements } from "./pglite-statements.js";
export type { PgliteConnection } from "./pglite-statements.js";
export type { Dialect, SqlExecutor, SqlRow, SqlValue, StorePort, SyncScriptRunner } from "./port.js";
