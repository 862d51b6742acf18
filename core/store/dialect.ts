/**
 * @module core/store/dialect
 * The one helper for differences between the two SQL dialects (STYLE.md: dialect differences go
 * through one helper).
 */
import type { Dialect } from "./port.js";

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

/** Quotes an identifier (table or column name) for both dialects. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** `INSERT ... ON CONFLICT DO NOTHING` is spelled the same in both dialects (SQLite >= 3.24). */
export const ON_CONFLICT_DO_NOTHING = "ON CONFLICT DO NOTHING";
