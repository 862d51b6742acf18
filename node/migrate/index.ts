/**
 * @module node/migrate
 * Store migration: reading a SQLite store and writing it into PostgreSQL.
 */
export { reconcileMigratedColumns, writeInferredColumns } from "./column-types.js";
export type { InferredColumns } from "./column-types.js";
export {
  assertTargetEmpty,
  countRows,
  insertRows,
  rowsPerInsert,
  storeInTransaction,
  targetColumns,
  userTableDdl,
} from "./postgres-target.js";
export { SqliteSource } from "./sqlite-source.js";
export type { SourceTable } from "./sqlite-source.js";
