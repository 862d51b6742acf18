/**
 * @module node/migrate/postgres-target
 * The write side of a store migration, on a PostgreSQL-dialect transaction (PGlite or a
 * server): the target's columns, the check that it is empty, user tables created from their
 * SQLite definitions, batched inserts with values converted to each column's type, and counts.
 * See docs/backends.md, "Migrating a store".
 */
import { FlowError } from "../../core/errors.js";
import { quoteIdent } from "../../core/store/index.js";
import type { SqlExecutor, SqlValue, StorePort } from "../../core/store/index.js";
import { postgresTypeOf } from "./column-types.js";
import type { SourceTable } from "./sqlite-source.js";

/** A column of a target table. */
export interface TargetColumn {
  name: string;
  /** information_schema `data_type`, lower case (`bigint`, `boolean`, `jsonb`, ...). */
  type: string;
  /** Computed by the database (a GENERATED column): never copied. */
  generated: boolean;
}

/** PostgreSQL allows 65535 parameters per statement. */
const MAX_PARAMS = 65_000;

/** The columns of `table` in the current schema; empty when the table does not exist. */
export async function targetColumns(tx: SqlExecutor, table: string): Promise<TargetColumn[]> {
  const rows = await tx.query<{ name: string; type: string; generated: string }>(
    `SELECT column_name AS name, data_type AS type, is_generated AS generated FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => ({ name: r.name, type: r.type.toLowerCase(), generated: r.generated === "ALWAYS" }));
}

/** Fails with MIGRATION_TARGET_NOT_EMPTY when any of `tables` exists in the target with rows. */
export async function assertTargetEmpty(tx: SqlExecutor, tables: readonly string[], target: string): Promise<void> {
  const existing = new Set(
    (await tx.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`)).map((r) => r.name),
  );
  const full: string[] = [];
  for (const t of tables) {
    if (existing.has(t) && (await tx.query(`SELECT 1 FROM ${quoteIdent(t)} LIMIT 1`)).length > 0) full.push(t);
  }
  if (full.length > 0) {
    throw new FlowError(
      "MIGRATION_TARGET_NOT_EMPTY",
      `The target ${target} already has rows in ${full.join(", ")}. Migrate into an empty database or data dir (or remove those rows); nothing was migrated.`,
      { target, tables: full },
    );
  }
}

/**
 * `CREATE TABLE` for a user table from its SQLite columns, and the columns whose type was
 * inferred (to be repaired when a factory opens the store with the schemas: column-types.ts).
 */
export function userTableDdl(table: SourceTable): { sql: string; inferred: Record<string, string> } {
  const inferred: Record<string, string> = {};
  const defs = table.columns.map((c) => {
    const { type, ambiguous } = postgresTypeOf(c.type);
    // The key columns Flow adds are not schema fields: their types are known.
    const keyType = c.name === "iteration" ? "INTEGER" : c.name === "run_id" || c.name === "node_id" ? "TEXT" : undefined;
    if (!keyType && ambiguous) inferred[c.name] = type;
    return `${quoteIdent(c.name)} ${keyType ?? type}${c.notNull ? " NOT NULL" : ""}${c.defaultSql !== null ? ` DEFAULT ${c.defaultSql}` : ""}`;
  });
  const pk = table.columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  if (pk.length > 0) defs.push(`PRIMARY KEY (${pk.map((c) => quoteIdent(c.name)).join(", ")})`);
  return { sql: `CREATE TABLE IF NOT EXISTS ${quoteIdent(table.name)} (${defs.join(", ")})`, inferred };
}

/** A SQLite value (integers as BigInt) as a parameter for a column of `type`. */
function convert(value: unknown, type: string): SqlValue {
  if (value === null || value === undefined) return null;
  if (type === "boolean") {
    if (typeof value === "bigint") return value !== 0n;
    if (typeof value === "number") return value !== 0;
    return value as SqlValue;
  }
  if (typeof value === "bigint") return type === "double precision" || type === "real" ? Number(value) : value.toString();
  return value as SqlValue;
}

/** Rows per INSERT: `batchSize`, fewer for wide tables (parameter limit). */
export function rowsPerInsert(batchSize: number, columnCount: number): number {
  return Math.max(1, Math.min(batchSize, Math.floor(MAX_PARAMS / Math.max(1, columnCount))));
}

/** Inserts rows (arrays in `columns` order) in one multi-row statement. */
export async function insertRows(tx: SqlExecutor, table: string, columns: readonly TargetColumn[], rows: readonly unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const tuple = `(${columns.map(() => "?").join(", ")})`;
  const params: SqlValue[] = [];
  for (const row of rows) columns.forEach((c, i) => params.push(convert(row[i], c.type)));
  await tx.execute(`INSERT INTO ${quoteIdent(table)} (${columns.map((c) => quoteIdent(c.name)).join(", ")}) VALUES ${rows.map(() => tuple).join(", ")} ON CONFLICT DO NOTHING`, params);
}

export async function countRows(tx: SqlExecutor, table: string): Promise<number> {
  const [row] = await tx.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${quoteIdent(table)}`);
  return Number(row?.n ?? 0);
}

/**
 * A store whose statements and transactions all run in the open transaction `tx`, so code that
 * takes a store (the memory area's note search) joins the migration's one transaction.
 */
export function storeInTransaction(tx: SqlExecutor): StorePort {
  return {
    dialect: "postgres",
    execute: (sql, params) => tx.execute(sql, params),
    query: (sql, params) => tx.query(sql, params),
    transaction: (fn) => fn(tx),
    executeScript: async (sql) => void (await tx.execute(sql)),
    close: async () => {},
  };
}
