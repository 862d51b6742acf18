/**
 * @module core/store/dialect
 * The one helper for differences between the two SQL dialects (STYLE.md: dialect differences go
 * through one helper).
 */
import type { Dialect, SqlValue } from "./port.js";

/** Column types by abstract kind, per dialect. */
const TYPES = {
  sqlite: { text: "TEXT", int: "INTEGER", bigint: "INTEGER", real: "REAL", bool: "INTEGER", json: "TEXT" },
  postgres: { text: "TEXT", int: "INTEGER", bigint: "BIGINT", real: "DOUBLE PRECISION", bool: "BOOLEAN", json: "JSONB" },
} as const;

export type ColumnKind = keyof (typeof TYPES)["sqlite"];

/** SQL type name of a column kind in a dialect. */
export function sqlType(dialect: Dialect, kind: ColumnKind): string {
  return TYPES[dialect][kind];
}

const positionalCache = new Map<string, string>();

/**
 * Rewrites `?` placeholders to `$1, $2, ...` for PostgreSQL drivers. Flow's SQL never has `?`
 * inside string literals, so a plain scan is exact. Results are memoized: the engine reuses a
 * small set of statements.
 */
export function toPositionalParams(sql: string): string {
  let out = positionalCache.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  out = sql.replace(/\?/g, () => `$${++n}`);
  if (positionalCache.size < 2000) positionalCache.set(sql, out);
  return out;
}

/**
 * A PostgreSQL statement with its `?` parameters written in as literals, for sending many
 * statements in one simple-protocol script (`executeBatch`). Strings use the escape-string
 * form (quotes and backslashes doubled), so the result does not depend on
 * standard_conforming_strings; numbers, booleans and NULL are written as such.
 */
export function inlinePostgresParams(sql: string, params: readonly SqlValue[] = []): string {
  let i = 0;
  return sql.replace(/\?/g, () => postgresLiteral(params[i++] ?? null));
}

function postgresLiteral(v: SqlValue): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : `'${String(v)}'::float8`;
  if (v instanceof Uint8Array) return `E'\\\\x${Array.from(v, (b) => b.toString(16).padStart(2, "0")).join("")}'::bytea`;
  return `E'${v.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;
}

/** Quotes an identifier (table or column name) for both dialects. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `INSERT ... ON CONFLICT DO NOTHING` is spelled the same in both dialects (SQLite >= 3.24). */
export const ON_CONFLICT_DO_NOTHING = "ON CONFLICT DO NOTHING";
