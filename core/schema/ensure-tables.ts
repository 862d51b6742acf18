/**
 * @module core/schema/ensure-tables
 * Brings the user tables of a store in line with a workflow's schemas, so that many workflows
 * (and many versions of one) share a store (docs/store.md, "Many workflows in one store").
 *
 * A user table is shared by every workflow that declares its schema key: rows are keyed by
 * run, so workflows never read each other's rows. SQL enforces only the key columns; the zod
 * schema is the authority on which fields a row needs (Flow validates every row before it
 * writes it), so field columns are nullable and a table is the union of the fields its
 * workflows declare. Opening a store therefore:
 * - creates a missing table;
 * - adds the columns a schema gained (and widens an integer column a schema now declares as
 *   any number);
 * - drops NOT NULL from field columns (stores made before this rule, or columns another
 *   workflow declared as required);
 * - refuses, with SCHEMA_CONFLICT naming the table, the column and the fix, a column whose
 *   stored type cannot hold what the schema declares.
 * Async for every store, sync for SQLite; both follow one plan (`planTable`).
 */
import { FlowError } from "../errors.js";
import { quoteIdent, sqlType } from "../store/index.js";
import type { Dialect, StorePort, SyncScriptRunner } from "../store/index.js";
import { KEY_FIELDS, snakeCase, type ColumnSpec } from "./columns.js";
import type { SchemaRegistry, TableEntry } from "./registry.js";
import { createTableSql } from "./tables.js";

/** One column of an existing table, as the store describes it. */
interface StoredColumn {
  name: string;
  type: string;
  notNull: boolean;
}

const KEY_COLUMNS = new Set<string>(KEY_FIELDS.map(snakeCase));

/** Creates or evolves every user table (async stores). */
export async function ensureUserTables(store: StorePort, registry: SchemaRegistry): Promise<void> {
  for (const entry of registry.entries.values()) {
    const rows = await store.query<StoredColumnRow>(storedColumnsQuery(store.dialect), [entry.tableName]);
    for (const sql of planTable(store.dialect, entry, rows.map(toStoredColumn), registry.tablePrefixHint)) await store.executeScript(sql);
  }
}

/** Creates or evolves every user table (synchronous SQLite). */
export function ensureUserTablesSync(store: StorePort & SyncScriptRunner, registry: SchemaRegistry): void {
  for (const entry of registry.entries.values()) {
    const rows = store.querySync<StoredColumnRow>(storedColumnsQuery(store.dialect), [entry.tableName]);
    for (const sql of planTable(store.dialect, entry, rows.map(toStoredColumn), registry.tablePrefixHint)) store.executeScriptSync(sql);
  }
}

/**
 * The statements that make `stored` (empty: no table yet) fit `entry`. Throws SCHEMA_CONFLICT
 * for a column whose stored type cannot hold the schema's values.
 */
export function planTable(dialect: Dialect, entry: TableEntry, stored: readonly StoredColumn[], prefixHint: string): string[] {
  if (stored.length === 0) return [createTableSql(dialect, entry.tableName, entry.columns, entry.isInput)];
  const byName = new Map(stored.map((c) => [c.name, c]));
  const table = quoteIdent(entry.tableName);
  const out: string[] = [];
  for (const col of entry.columns) {
    const have = byName.get(col.column);
    if (!have) {
      out.push(`ALTER TABLE ${table} ADD COLUMN ${quoteIdent(col.column)} ${columnType(dialect, col)}`);
      continue;
    }
    const want = columnType(dialect, col);
    if (sameType(have.type, want)) continue;
    if (isWidening(dialect, have.type, col)) {
      // SQLite's INTEGER affinity keeps non-integral numbers as REAL: nothing to change there.
      if (dialect === "postgres") out.push(`ALTER TABLE ${table} ALTER COLUMN ${quoteIdent(col.column)} TYPE ${want}`);
      continue;
    }
    throw conflict(entry, col, have.type, want, prefixHint);
  }
  const required = stored.filter((c) => c.notNull && !KEY_COLUMNS.has(c.name));
  if (required.length > 0) {
    if (dialect === "postgres") {
      out.push(...required.map((c) => `ALTER TABLE ${table} ALTER COLUMN ${quoteIdent(c.name)} DROP NOT NULL`));
    } else {
      out.push(rebuildSqliteTable(entry, stored));
    }
  }
  return out;
}

/**
 * SQLite cannot drop a NOT NULL constraint in place: copy the table into one whose field
 * columns are nullable, in one transaction (https://sqlite.org/lang_altertable.html, section 7).
 */
function rebuildSqliteTable(entry: TableEntry, stored: readonly StoredColumn[]): string {
  const table = quoteIdent(entry.tableName);
  const temp = quoteIdent(`${entry.tableName}__flow_rebuild`);
  const defs = stored.map((c) => `${quoteIdent(c.name)} ${c.type}${KEY_COLUMNS.has(c.name) ? " NOT NULL" : ""}`);
  const isInput = !stored.some((c) => c.name === "node_id");
  defs.push(isInput ? `PRIMARY KEY ("run_id")` : `PRIMARY KEY ("run_id", "node_id", "iteration")`);
  const names = stored.map((c) => quoteIdent(c.name)).join(", ");
  return [
    "SAVEPOINT flow_rebuild",
    `CREATE TABLE ${temp} (${defs.join(", ")})`,
    `INSERT INTO ${temp} (${names}) SELECT ${names} FROM ${table}`,
    `DROP TABLE ${table}`,
    `ALTER TABLE ${temp} RENAME TO ${table}`,
    "RELEASE flow_rebuild",
  ].join(";\n");
}

function conflict(entry: TableEntry, col: ColumnSpec, have: string, want: string, prefixHint: string): FlowError {
  return new FlowError(
    "SCHEMA_CONFLICT",
    `Table "${entry.tableName}" column "${col.column}" is ${have} in this store, but schema "${entry.key}" declares field "${col.field}" as ${describeKind(col)} (${want}). ` +
      `Another workflow sharing the store (or an earlier version of this one) uses that column differently. ` +
      `Fix: rename the field, give this workflow tables of its own with createFlow(schemas, { tablePrefix: "${prefixHint}" }), or use another store.`,
    { table: entry.tableName, column: col.column, field: col.field, key: entry.key, storedType: have, schemaType: want },
  );
}

function describeKind(col: ColumnSpec): string {
  return { text: "a string", date: "a date", int: "an integer", bigint: "an integer", real: "a number", bool: "a boolean", json: "a JSON value" }[col.kind];
}

function columnType(dialect: Dialect, col: ColumnSpec): string {
  return sqlType(dialect, col.kind === "date" ? "text" : col.kind);
}

function sameType(have: string, want: string): boolean {
  return have.trim().toUpperCase() === want.toUpperCase();
}

/** An integer column whose schema now accepts any number: every stored value still fits. */
function isWidening(dialect: Dialect, have: string, col: ColumnSpec): boolean {
  if (col.kind !== "real") return false;
  const t = have.toUpperCase();
  return dialect === "sqlite" ? t === "INTEGER" : t === "BIGINT" || t === "INTEGER";
}

type StoredColumnRow = {
  name: string;
  type: string;
  not_null: number | boolean | string;
};

function toStoredColumn(r: StoredColumnRow): StoredColumn {
  return { name: r.name, type: r.type, notNull: r.not_null === true || r.not_null === 1 || r.not_null === "1" || r.not_null === "t" };
}

/** Query listing a table's columns (`name`, `type`, `not_null`), per dialect; bind the table name. */
function storedColumnsQuery(dialect: Dialect): string {
  return dialect === "sqlite"
    ? `SELECT name, type, "notnull" AS not_null FROM pragma_table_info(?)`
    : `SELECT column_name AS name, UPPER(data_type) AS type, (is_nullable = 'NO') AS not_null FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?`;
}
