/**
 * @module core/schema/tables
 * Drizzle table objects for user schemas (the `tables` users query), and the DDL that creates
 * them. Both come from `columnsOf`, so the engine's SQL and the Drizzle view always agree.
 * Each dialect's Drizzle module loads when a store of that dialect first makes its tables
 * (core/util/lazy-package.ts), so a SQLite process never loads `drizzle-orm/pg-core`.
 */
import type { pgTable, text as pgText } from "drizzle-orm/pg-core";
import type { sqliteTable, text } from "drizzle-orm/sqlite-core";
import { lazyPackage } from "../util/index.js";
import { quoteIdent, sqlType } from "../store/index.js";
import type { Dialect } from "../store/index.js";
import type { ColumnSpec } from "./columns.js";

const drizzleCore = lazyPackage<typeof import("drizzle-orm")>(import.meta, "drizzle-orm", () => import("drizzle-orm"));
const sqliteCore = lazyPackage<typeof import("drizzle-orm/sqlite-core")>(import.meta, "drizzle-orm/sqlite-core", () => import("drizzle-orm/sqlite-core"));
const pgCore = lazyPackage<typeof import("drizzle-orm/pg-core")>(import.meta, "drizzle-orm/pg-core", () => import("drizzle-orm/pg-core"));

/** A Drizzle table of either dialect. */
export type FlowTable = ReturnType<typeof sqliteTable> | ReturnType<typeof pgTable>;

/** Builds the Drizzle table of a schema: key columns, then one column per field. */
export function drizzleTableOf(dialect: Dialect, tableName: string, columns: readonly ColumnSpec[], isInput: boolean): FlowTable {
  return dialect === "sqlite" ? sqliteTableOf(tableName, columns, isInput) : pgTableOf(tableName, columns, isInput);
}

function sqliteTableOf(name: string, columns: readonly ColumnSpec[], isInput: boolean) {
  const { integer, primaryKey, real, sqliteTable, text } = sqliteCore();
  const cols: Record<string, unknown> = { runId: text("run_id").notNull() };
  if (!isInput) {
    cols.nodeId = text("node_id").notNull();
    cols.iteration = integer("iteration").notNull().default(0);
  }
  for (const c of columns) {
    const b =
      c.kind === "bool" ? integer(c.column, { mode: "boolean" })
      : c.kind === "bigint" || c.kind === "int" ? integer(c.column)
      : c.kind === "real" ? real(c.column)
      : c.kind === "json" ? text(c.column, { mode: "json" })
      : text(c.column);
    cols[c.field] = c.nullable ? b : b.notNull();
  }
  // Columns are only known at run time, so the builders are typed loosely here; users get
  // precise row types from the zod schemas (RowOf), not from these tables.
  return sqliteTable(name, cols as Record<string, ReturnType<typeof text>>, (t) =>
    isInput ? [] : [primaryKey({ columns: [t.runId!, t.nodeId!, t.iteration!] })],
  );
}

function pgTableOf(name: string, columns: readonly ColumnSpec[], isInput: boolean) {
  const { bigint, boolean, doublePrecision, integer: pgInteger, jsonb, pgTable, primaryKey: pgPrimaryKey, text: pgText } = pgCore();
  const cols: Record<string, unknown> = { runId: pgText("run_id").notNull() };
  if (!isInput) {
    cols.nodeId = pgText("node_id").notNull();
    cols.iteration = pgInteger("iteration").notNull().default(0);
  }
  for (const c of columns) {
    const b =
      c.kind === "bool" ? boolean(c.column)
      : c.kind === "bigint" ? bigint(c.column, { mode: "number" })
      : c.kind === "int" ? pgInteger(c.column)
      : c.kind === "real" ? doublePrecision(c.column)
      : c.kind === "json" ? jsonb(c.column)
      : pgText(c.column);
    cols[c.field] = c.nullable ? b : b.notNull();
  }
  return pgTable(name, cols as Record<string, ReturnType<typeof pgText>>, (t) =>
    isInput ? [] : [pgPrimaryKey({ columns: [t.runId!, t.nodeId!, t.iteration!] })],
  );
}

/** The SQL name of a Drizzle table. */
export function tableNameOf(table: FlowTable): string {
  return drizzleCore().getTableName(table);
}

/**
 * `CREATE TABLE IF NOT EXISTS` for a user table. Only the key columns are NOT NULL: the zod
 * schema decides which fields a row needs, and a table may serve several workflows
 * (core/schema/ensure-tables.ts).
 */
export function createTableSql(dialect: Dialect, tableName: string, columns: readonly ColumnSpec[], isInput: boolean): string {
  const defs = [`"run_id" ${sqlType(dialect, "text")} NOT NULL`];
  if (!isInput) {
    defs.push(`"node_id" ${sqlType(dialect, "text")} NOT NULL`, `"iteration" ${sqlType(dialect, "int")} NOT NULL DEFAULT 0`);
  }
  for (const c of columns) defs.push(`${quoteIdent(c.column)} ${sqlType(dialect, c.kind === "date" ? "text" : c.kind)}`);
  defs.push(isInput ? `PRIMARY KEY ("run_id")` : `PRIMARY KEY ("run_id", "node_id", "iteration")`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(tableName)} (${defs.join(", ")})`;
}
