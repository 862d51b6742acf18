/**
 * @module core/schema
 * Schema to tables: a workflow's output schemas as SQL tables (columns, the registry, ensuring
 * the tables exist in either dialect). Other areas import from here only.
 */
export { decodeRow, encodeValue } from "./columns.js";
export type { AnyObjectSchema, ColumnSpec } from "./columns.js";
export { ensureUserTables, ensureUserTablesSync } from "./ensure-tables.js";
export { INPUT_KEY, registryOptions, SchemaRegistry } from "./registry.js";
export type { TableEntry } from "./registry.js";
export type { FlowTable } from "./tables.js";
