/**
 * @module core/schema/columns
 * Maps a zod object schema to SQL columns, and rows to and from their stored form. One mapping
 * serves the engine's SQL, the Drizzle tables users query, and resume. See docs/store.md.
 */
import type { z } from "zod";
import { FlowError } from "../errors.js";
import type { ColumnKind, Dialect, SqlValue } from "../store/index.js";

/** Any zod object schema: the shape of one output table. */
export type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

/** One user column derived from a schema field. */
export interface ColumnSpec {
  /** Field name in the schema (and the Drizzle column key). */
  field: string;
  /** Column name in SQL (snake_case of the field). */
  column: string;
  kind: ColumnKind | "date";
  /** The SQL column accepts NULL (the field is optional or nullable). */
  nullable: boolean;
  /** How a stored NULL reads back: `null` when the schema accepts null, else the field is absent. */
  nullAs: "null" | "absent";
}

/** The key columns every output row carries (the input table has only `run_id`). */
export const KEY_FIELDS = ["runId", "nodeId", "iteration"] as const;

interface ZodDef {
  type: string;
  innerType?: ZodLike;
  in?: ZodLike;
  values?: unknown[];
  options?: ZodLike[];
}
interface ZodLike {
  _zod: { def: ZodDef };
  isInt?: boolean;
}

/** camelCase or PascalCase to snake_case; other characters are kept. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[-\s]+/g, "_")
    .toLowerCase();
}

/** Derives the columns of a schema; throws SCHEMA_INVALID for a field that clashes with a key column. */
export function columnsOf(key: string, schema: AnyObjectSchema): ColumnSpec[] {
  const shape = (schema as unknown as { shape?: Record<string, ZodLike> }).shape;
  if (!shape || typeof shape !== "object") {
    throw new FlowError("SCHEMA_INVALID", `Schema "${key}" is not a zod object schema (z.object({...})).`, { key });
  }
  const seen = new Set<string>(["run_id", "node_id", "iteration"]);
  return Object.entries(shape).map(([field, type]) => {
    const column = snakeCase(field);
    if ((KEY_FIELDS as readonly string[]).includes(field) || seen.has(column)) {
      throw new FlowError(
        "SCHEMA_INVALID",
        `Schema "${key}" field "${field}" clashes with column "${column}"; runId, nodeId and iteration are added by Flow, rename the field.`,
        { key, field },
      );
    }
    seen.add(column);
    const { kind, optional, acceptsNull } = classify(type);
    return { field, column, kind, nullable: optional || acceptsNull, nullAs: acceptsNull ? "null" : "absent" };
  });
}

function classify(type: ZodLike): { kind: ColumnSpec["kind"]; optional: boolean; acceptsNull: boolean } {
  let optional = false;
  let acceptsNull = false;
  let t = type;
  for (;;) {
    const def = t._zod.def;
    if (def.type === "optional") optional = true;
    if (def.type === "nullable") acceptsNull = true;
    if (def.innerType && ["optional", "nullable", "default", "prefault", "catch", "readonly", "nonoptional"].includes(def.type)) {
      t = def.innerType;
      continue;
    }
    if (def.type === "pipe" && def.in) {
      t = def.in;
      continue;
    }
    return { kind: kindOf(t), optional, acceptsNull };
  }
}

function kindOf(t: ZodLike): ColumnSpec["kind"] {
  const def = t._zod.def;
  switch (def.type) {
    case "string":
    case "enum":
      return def.type === "enum" && def.values?.some((v) => typeof v !== "string") ? "json" : "text";
    case "number":
      return t.isInt ? "bigint" : "real";
    case "boolean":
      return "bool";
    case "date":
      return "date";
    case "literal":
      if (def.values?.every((v) => typeof v === "string")) return "text";
      if (def.values?.every((v) => typeof v === "boolean")) return "bool";
      return def.values?.every((v) => typeof v === "number") ? "real" : "json";
    default:
      return "json";
  }
}

/** Encodes one field value for binding to its column. */
export function encodeValue(col: ColumnSpec, value: unknown, dialect: Dialect): SqlValue {
  if (value === undefined || value === null) return null;
  switch (col.kind) {
    case "bool":
      return dialect === "sqlite" ? (value ? 1 : 0) : Boolean(value);
    case "json":
      return JSON.stringify(value);
    case "date":
      return value instanceof Date ? value.toISOString() : String(value);
    default:
      return value as SqlValue;
  }
}

/** Decodes a stored column value back to what the schema produced. */
export function decodeValue(col: ColumnSpec, value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  switch (col.kind) {
    case "bool":
      return value === true || value === 1 || value === "1" || value === "t";
    case "json":
      return typeof value === "string" ? JSON.parse(value) : value;
    case "date":
      return new Date(String(value));
    case "bigint":
    case "real":
      return typeof value === "number" ? value : Number(value);
    default:
      return value;
  }
}

/** Decodes a stored row (snake_case columns) into a schema object. */
export function decodeRow(columns: readonly ColumnSpec[], row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const col of columns) {
    const raw = row[col.column];
    if (raw === null || raw === undefined) {
      if (col.nullAs === "null") out[col.field] = null;
    } else {
      out[col.field] = decodeValue(col, raw);
    }
  }
  return out;
}
