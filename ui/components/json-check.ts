/**
 * @module ui/components/json-check
 * Reads JSON a person typed and checks it against a JSON Schema, with messages that name
 * the field: what the signal, human-task and cron forms show under their JSON fields.
 */
import { inputChecker } from "../launch/validate-input.js";

/** What `checkJson` answers. */
export type JsonCheck = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Parses `text` as JSON (empty text is `emptyAs`) and checks it against `schema` when given
 * (the launch form's Ajv checker: a schema it cannot compile checks nothing, the server still checks).
 * @example
 * checkJson('{"ref": 3}', { type: "object", properties: { ref: { type: "string" } } });
 * // { ok: false, error: "ref: ..." } (the checker's sentence for the field)
 */
export function checkJson(text: string, schema?: object | null, emptyAs?: unknown): JsonCheck {
  let value: unknown;
  if (!text.trim() && emptyAs !== undefined) value = emptyAs;
  else {
    try {
      value = JSON.parse(text);
    } catch (error) {
      return { ok: false, error: `Not JSON: ${(error as Error).message}` };
    }
  }
  const problems = Object.entries(inputChecker(schema as Record<string, unknown> | null | undefined)(value));
  if (!problems.length) return { ok: true, value };
  return { ok: false, error: problems.map(([key, message]) => (key ? `${key}: ${message}` : message)).join(" ") };
}

/**
 * A starting value for a JSON Schema: each property with an example of its type (the first
 * enum value, `""`, `0`, `false`, `[]`, nested objects filled the same way).
 * @example
 * skeletonOf({ type: "object", properties: { label: { enum: ["bug", "idea"] }, n: { type: "number" } } }); // { label: "bug", n: 0 }
 */
export function skeletonOf(schema: unknown): unknown {
  const s = (schema ?? {}) as { type?: string | string[]; enum?: unknown[]; properties?: Record<string, unknown>; default?: unknown; const?: unknown };
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type;
  if (type === "object" || s.properties) return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, skeletonOf(v)]));
  if (type === "array") return [];
  if (type === "number" || type === "integer") return 0;
  if (type === "boolean") return false;
  if (type === "string") return "";
  return null;
}
