/**
 * @module core/tools/openapi-schema
 * OpenAPI schema objects to JSON Schema 2020-12 (docs/tools.md "OpenAPI schemas"). A `$ref`
 * to a schema becomes `#/$defs/<name>` and the referenced schema is converted once into that
 * def, so nested and circular references stay references and every tool's schema carries only
 * the defs it reaches. OpenAPI 3.0 forms are rewritten (`nullable`, boolean
 * `exclusiveMinimum`, `example`); keys that are not JSON Schema validation or annotation
 * keywords (`discriminator`, `xml`, `x-*`, ...) are dropped, as are regex `pattern`s JavaScript
 * cannot compile, so the result compiles in any 2020-12 validator.
 */
import { FlowError } from "../errors.js";
import type { OpenApiRef, OpenApiSpec } from "./openapi-types.js";
import type { JsonSchema } from "./types.js";

/** A converted schema and the pointers of the defs it references directly. */
export interface Converted {
  schema: JsonSchema | boolean;
  refs: Set<string>;
}

interface Def {
  name: string;
  schema: JsonSchema | boolean;
  refs: Set<string>;
}

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
/** Keywords copied as they are. */
const PLAIN_KEYS = ["title", "description", "format", "default", "const", "readOnly", "writeOnly", "deprecated", "uniqueItems", "contentMediaType", "contentEncoding"] as const;
const COUNT_KEYS = ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"] as const;
const SUBSCHEMA_LIST_KEYS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const SUBSCHEMA_KEYS = ["not", "contains", "propertyNames", "if", "then", "else"] as const;

/** Converts the schemas of one spec; defs are shared by all tools made from it. */
export class SchemaConverter {
  private readonly defs = new Map<string, Def>();
  private readonly usedNames = new Set<string>();
  private readonly is30: boolean;

  constructor(private readonly spec: OpenApiSpec) {
    this.is30 = spec.openapi.startsWith("3.0");
  }

  /** Converts one schema object (or boolean schema of 3.1). */
  convert(node: unknown): Converted {
    const refs = new Set<string>();
    return { schema: this.walk(node, refs), refs };
  }

  /** The `$defs` object for a set of def pointers and everything they reach. */
  defsFor(pointers: Iterable<string>): Record<string, JsonSchema | boolean> {
    const out: Record<string, JsonSchema | boolean> = {};
    const stack = [...pointers];
    const seen = new Set<string>();
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (seen.has(p)) continue;
      seen.add(p);
      const def = this.defs.get(p)!;
      out[def.name] = def.schema;
      stack.push(...def.refs);
    }
    return out;
  }

  /** Follows `$ref` chains of a non-schema object (parameter, request body, path item). */
  resolve<T extends object>(value: T | OpenApiRef): T {
    let current: unknown = value;
    const seen = new Set<string>();
    while (isRef(current)) {
      if (seen.has(current.$ref)) throw new FlowError("OPENAPI_INVALID", `The OpenAPI description has a reference cycle at ${current.$ref}.`, { ref: current.$ref });
      seen.add(current.$ref);
      current = this.pointer(current.$ref);
    }
    return current as T;
  }

  /** The value a local `$ref` points at. */
  pointer(ref: string): unknown {
    if (!ref.startsWith("#")) throw new FlowError("OPENAPI_UNSUPPORTED", `Reference ${ref} points into another document; load the description with the async functions so it is bundled.`, { ref });
    let node: unknown = this.spec;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      node = node !== null && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
      if (node === undefined) throw new FlowError("OPENAPI_INVALID", `The OpenAPI description references ${ref}, which does not exist.`, { ref });
    }
    return node;
  }

  private walk(node: unknown, refs: Set<string>): JsonSchema | boolean {
    if (typeof node === "boolean") return node;
    if (node === null || typeof node !== "object" || Array.isArray(node)) return {};
    const s = node as Record<string, unknown>;
    if (typeof s.$ref === "string") {
      const target = { $ref: `#/$defs/${this.def(s.$ref)}` };
      refs.add(s.$ref);
      // 3.0 ignores siblings of $ref; 3.1 (JSON Schema) keeps them.
      if (this.is30 || Object.keys(s).length === 1) return target;
      const rest = this.walk({ ...s, $ref: undefined }, refs);
      return typeof rest === "boolean" ? target : { ...rest, ...target };
    }
    const out: JsonSchema = {};
    const type = types(s.type);
    if (type.length > 0) out.type = type.length === 1 ? type[0] : type;
    for (const k of PLAIN_KEYS) if (s[k] !== undefined) out[k] = s[k];
    for (const k of COUNT_KEYS) if (Number.isInteger(s[k]) && (s[k] as number) >= 0) out[k] = s[k];
    for (const k of ["minimum", "maximum"] as const) if (typeof s[k] === "number") out[k] = s[k];
    if (typeof s.multipleOf === "number" && s.multipleOf > 0) out.multipleOf = s.multipleOf;
    for (const [k, bound] of [["exclusiveMinimum", "minimum"], ["exclusiveMaximum", "maximum"]] as const) {
      if (typeof s[k] === "number") out[k] = s[k];
      else if (s[k] === true && typeof s[bound] === "number") {
        out[k] = s[bound];
        delete out[bound];
      }
    }
    if (typeof s.pattern === "string" && compiles(s.pattern)) out.pattern = s.pattern;
    if (Array.isArray(s.enum) && s.enum.length > 0) out.enum = s.enum;
    if (Array.isArray(s.examples)) out.examples = s.examples;
    else if (s.example !== undefined) out.examples = [s.example];
    if (Array.isArray(s.required)) {
      const required = [...new Set(s.required.filter((r): r is string => typeof r === "string"))];
      if (required.length > 0) out.required = required;
    }
    for (const k of ["properties", "patternProperties", "dependentSchemas"] as const) {
      const map = s[k];
      if (map === null || typeof map !== "object" || Array.isArray(map)) continue;
      const converted: Record<string, JsonSchema | boolean> = {};
      for (const [name, sub] of Object.entries(map)) if (k !== "patternProperties" || compiles(name)) converted[name] = this.walk(sub, refs);
      out[k] = converted;
    }
    if (s.additionalProperties !== undefined) out.additionalProperties = this.walk(s.additionalProperties, refs);
    if (Array.isArray(s.items)) out.prefixItems = s.items.map((i) => this.walk(i, refs));
    else if (s.items !== undefined) out.items = this.walk(s.items, refs);
    for (const k of SUBSCHEMA_LIST_KEYS) {
      if (Array.isArray(s[k]) && (s[k] as unknown[]).length > 0) out[k] = (s[k] as unknown[]).map((sub) => this.walk(sub, refs));
    }
    for (const k of SUBSCHEMA_KEYS) if (s[k] !== undefined && typeof s[k] === "object") out[k] = this.walk(s[k], refs);
    return s.nullable === true ? nullable(out) : out;
  }

  /** The def name of a schema pointer, converting the schema on first use. */
  private def(ref: string): string {
    const known = this.defs.get(ref);
    if (known) return known.name;
    const def: Def = { name: this.nameFor(ref), schema: {}, refs: new Set() };
    // Registered before converting, so a schema that reaches itself finds its own name.
    this.defs.set(ref, def);
    def.schema = this.walk(this.pointer(ref), def.refs);
    return def.name;
  }

  private nameFor(ref: string): string {
    const segments = ref.split("/").map((p) => decodeURIComponent(p).replace(/~1/g, "/").replace(/~0/g, "~"));
    const short = ref.startsWith("#/components/schemas/") && segments.length === 4 ? segments[3]! : segments.slice(1).join("_");
    const base = short.replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let n = 2; this.usedNames.has(name); n++) name = `${base}_${n}`;
    this.usedNames.add(name);
    return name;
  }
}

/** True for a `{ $ref }` object. */
export function isRef(value: unknown): value is OpenApiRef {
  return value !== null && typeof value === "object" && typeof (value as OpenApiRef).$ref === "string";
}

function types(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return [...new Set(list.filter((t): t is string => typeof t === "string" && JSON_TYPES.has(t)))];
}

/** OpenAPI 3.0 `nullable: true`: null joins the type, the enum, or an `anyOf`. */
function nullable(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type)) out.type = out.type.includes("null") ? out.type : [...out.type, "null"];
  else return { anyOf: [out, { type: "null" }] };
  return out;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
