/**
 * @module core/engine/input
 * Run input checks (SPEC.md: a fresh run validates the input row against the generated input
 * table before inserting it; the input is not parsed and defaults are not written back).
 */
import { FlowError } from "../errors.js";
import type { ColumnSpec } from "../schema/columns.js";
import type { TableEntry } from "../schema/registry.js";

/** Throws INPUT_INVALID unless every column of the input table accepts its value. */
export function assertInputFits(entry: TableEntry | undefined, input: unknown): void {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new FlowError("INPUT_INVALID", `Run input must be an object, got ${Array.isArray(input) ? "an array" : String(input)}.`);
  }
  if (!entry) return;
  const problems: string[] = [];
  for (const col of entry.columns) {
    const v = (input as Record<string, unknown>)[col.field];
    if (v === undefined || v === null) {
      if (!col.nullable) problems.push(`${col.field}: required`);
      continue;
    }
    if (!fits(col, v)) problems.push(`${col.field}: expected ${expected(col)}, got ${typeof v}`);
  }
  if (problems.length) {
    throw new FlowError("INPUT_INVALID", `Run input does not fit the input table: ${problems.join("; ")}.`, { problems });
  }
}

function fits(col: ColumnSpec, v: unknown): boolean {
  switch (col.kind) {
    case "text":
      return typeof v === "string";
    case "date":
      return typeof v === "string" || v instanceof Date;
    case "int":
    case "bigint":
      return typeof v === "number" && Number.isInteger(v);
    case "real":
      return typeof v === "number";
    case "bool":
      return typeof v === "boolean";
    default:
      return true;
  }
}

function expected(col: ColumnSpec): string {
  return { text: "a string", date: "a date string", int: "an integer", bigint: "an integer", real: "a number", bool: "a boolean", json: "JSON" }[col.kind];
}
