/**
 * @module node/migrate/column-types
 * Column types of user tables copied from SQLite, and their repair once the schemas are known.
 *
 * A SQLite store does not say which zod type made a column: a boolean and an integer are both
 * `INTEGER`, a JSON value and a string both `TEXT`. `migrateFlowStore` takes no schemas, so it
 * creates such columns as BIGINT and TEXT (which hold every value losslessly) and records them
 * in `_flow_meta` under `migration.inferredColumns`. The first factory that opens the store with
 * the workflow's schemas converts each recorded column whose schema wants another type
 * (BIGINT 0/1 -> BOOLEAN, TEXT -> JSONB) and drops it from the record. See docs/backends.md.
 */
import { quoteIdent, sqlType } from "../../core/store/index.js";
import type { SchemaRegistry } from "../../core/schema/index.js";
import type { SqlExecutor, StorePort } from "../../core/store/index.js";
import { TABLES } from "../../core/protocol.js";

/** The `_flow_meta` key of the record of inferred columns. */
export const INFERRED_COLUMNS_KEY = "migration.inferredColumns";

/** Table name -> column name -> PostgreSQL type the migration chose without a schema. */
export type InferredColumns = Record<string, Record<string, string>>;

/**
 * The PostgreSQL type for a SQLite declared type, by SQLite's own affinity rules
 * (https://sqlite.org/datatype3.html, 3.1), and whether a schema may want another type.
 */
export function postgresTypeOf(declared: string): { type: string; ambiguous: boolean } {
  const t = declared.toUpperCase();
  if (t.includes("INT")) return { type: "BIGINT", ambiguous: true };
  if (t.includes("CHAR") || t.includes("CLOB") || t.includes("TEXT") || t === "") return { type: "TEXT", ambiguous: true };
  if (t.includes("BLOB")) return { type: "BYTEA", ambiguous: false };
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return { type: "DOUBLE PRECISION", ambiguous: false };
  if (t.includes("BOOL")) return { type: "BOOLEAN", ambiguous: false };
  return { type: "TEXT", ambiguous: true };
}

/** Reads the record of inferred columns (empty when the store was not migrated). */
export async function readInferredColumns(db: SqlExecutor): Promise<InferredColumns> {
  const [row] = await db.query<{ value: string | null }>(`SELECT value FROM ${TABLES.meta} WHERE key = ?`, [INFERRED_COLUMNS_KEY]);
  return row?.value ? (JSON.parse(row.value) as InferredColumns) : {};
}

/** Writes the record (deleting it when nothing is left to repair). */
export async function writeInferredColumns(db: SqlExecutor, record: InferredColumns): Promise<void> {
  if (Object.keys(record).length === 0) {
    await db.execute(`DELETE FROM ${TABLES.meta} WHERE key = ?`, [INFERRED_COLUMNS_KEY]);
    return;
  }
  await db.execute(`INSERT INTO ${TABLES.meta} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [INFERRED_COLUMNS_KEY, JSON.stringify(record)]);
}

/** The expression converting a column from the inferred type to the schema's type. */
function conversion(column: string, to: string): string {
  const c = quoteIdent(column);
  if (to === "BOOLEAN") return `${c} <> 0`;
  if (to === "JSONB") return `${c}::jsonb`;
  return `${c}::${to}`;
}

/**
 * Converts the inferred columns of the registry's tables to the types their schemas give, in
 * one transaction per table. A no-op on stores that were not migrated from SQLite.
 */
export async function reconcileMigratedColumns(store: StorePort, registry: SchemaRegistry): Promise<void> {
  if (store.dialect !== "postgres") return;
  const initial = await readInferredColumns(store);
  for (const entry of registry.entries.values()) {
    if (!initial[entry.tableName]) continue;
    await store.transaction(async (tx) => {
      const record = await readInferredColumns(tx);
      const inferred = record[entry.tableName];
      if (!inferred) return;
      for (const col of entry.columns) {
        const had = inferred[col.column];
        const want = sqlType("postgres", col.kind === "date" ? "text" : col.kind);
        if (had && had !== want) {
          await tx.execute(`ALTER TABLE ${quoteIdent(entry.tableName)} ALTER COLUMN ${quoteIdent(col.column)} TYPE ${want} USING ${conversion(col.column, want)}`);
        }
      }
      delete record[entry.tableName];
      await writeInferredColumns(tx, record);
    });
  }
}
