/**
 * @module ui/launch/validate-input
 * Checks a run input in the browser before it is sent: the workflow's input JSON Schema
 * compiled with Ajv (draft 2020-12, what `z.toJSONSchema` writes), its errors turned into one
 * short sentence per field key. The server checks again with the zod schema itself; its
 * INPUT_INVALID answer (`details.problems`, `"<path>: <message>"`) is read back per field by
 * `serverProblems`, so both show beside the same inputs.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";

/** Problems per field key (`""`: the input as a whole). */
export type FieldProblems = Record<string, string>;

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction | Error>();

/**
 * A checker of inputs against a schema (compiled once per schema object). A schema Ajv cannot
 * compile checks nothing here: the server still checks.
 * @example
 * const check = inputChecker(workflow.inputSchema);
 * check({ service: "" }); // { service: "At least 1 character." }
 */
export function inputChecker(schema: Record<string, unknown> | null | undefined): (input: unknown) => FieldProblems {
  if (!schema) return () => ({});
  let fn = compiled.get(schema);
  if (!fn) {
    try {
      fn = ajv.compile(withDefaultsOptional(schema) as Record<string, unknown>);
    } catch (error) {
      fn = error as Error;
    }
    compiled.set(schema, fn);
  }
  const validate = fn;
  if (validate instanceof Error) return () => ({});
  return (input) => (validate(input) ? {} : problemsOf(validate.errors ?? []));
}

/**
 * zod writes a property with a default as required (its output always has it), but an input
 * may leave it out: the copy Ajv checks does not require such properties.
 */
function withDefaultsOptional(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withDefaultsOptional);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === "default" || k === "const" || k === "enum" ? v : withDefaultsOptional(v);
  const props = out.properties as Record<string, { default?: unknown }> | undefined;
  if (Array.isArray(out.required) && props && typeof props === "object") out.required = (out.required as string[]).filter((name) => props[name]?.default === undefined);
  return out;
}

function problemsOf(errors: ErrorObject[]): FieldProblems {
  const out: FieldProblems = {};
  for (const e of errors) {
    const base = e.instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    const extra = e.keyword === "required" ? [String((e.params as { missingProperty: string }).missingProperty)] : [];
    const key = [...base, ...extra].join(".");
    // The first problem of a field is the one worth reading (an `anyOf` adds noise after it).
    out[key] ??= sentence(e);
  }
  return out;
}

function sentence(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required":
      return "Required.";
    case "minimum":
      return `At least ${p.limit}.`;
    case "maximum":
      return `At most ${p.limit}.`;
    case "exclusiveMinimum":
      return `More than ${p.limit}.`;
    case "exclusiveMaximum":
      return `Less than ${p.limit}.`;
    case "minLength":
      return p.limit === 1 ? "Required." : `At least ${p.limit} characters.`;
    case "maxLength":
      return `At most ${p.limit} characters.`;
    case "minItems":
      return `At least ${p.limit} ${p.limit === 1 ? "item" : "items"}.`;
    case "maxItems":
      return `At most ${p.limit} items.`;
    case "type":
      return `Must be ${p.type === "integer" ? "a whole number" : p.type === "array" ? "a list" : `${/^[aeiou]/.test(String(p.type)) ? "an" : "a"} ${p.type}`}.`;
    case "enum":
      return "Pick one of the options.";
    case "pattern":
      return `Must match ${p.pattern}.`;
    case "additionalProperties":
      return `"${p.additionalProperty}" is not an input of this workflow.`;
    default:
      return `${(e.message ?? "Invalid").replace(/\.+$/, "")}.`;
  }
}

/**
 * The server's INPUT_INVALID problems per field key (`details.problems` lines
 * `"shards: Too big: expected number to be <=50"`); other errors go to the input as a whole.
 * @example
 * serverProblems({ code: "INPUT_INVALID", details: { problems: ["shards: Too big"] } }); // { shards: "Too big" }
 */
export function serverProblems(error: unknown): FieldProblems | null {
  const e = error as { code?: string; message?: string; details?: { problems?: unknown } };
  if (e?.code !== "INPUT_INVALID") return null;
  const lines = Array.isArray(e.details?.problems) ? (e.details.problems as unknown[]).filter((l): l is string => typeof l === "string") : [];
  if (!lines.length) return { "": e.message ?? "The input does not match the workflow's input schema." };
  const out: FieldProblems = {};
  for (const line of lines) {
    const at = line.indexOf(": ");
    const path = at > 0 ? line.slice(0, at) : "(input)";
    const key = path === "(input)" ? "" : path;
    out[key] = out[key] ? `${out[key]} ${line.slice(at + 2)}` : at > 0 ? line.slice(at + 2) : line;
  }
  return out;
}
