/**
 * @module ui/launch/schema-form
 * A workflow's input JSON Schema (what `listWorkflows` answers, `z.toJSONSchema`) as a form
 * model: one field per property with its kind (text, number, integer, checkbox, select,
 * nested group, repeatable rows, JSON text), whether it is required, its limits, default and
 * help text. The form keeps what a person typed as text (`FormValues`, keyed by the field's
 * dotted path); `formToInput` turns it into the run input and `inputToForm` fills a form from
 * an input (re-run, switching back from raw JSON). Pure: docs/app-views-runs.md "Launch".
 */

/** How a field is edited. */
export type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "object" | "list" | "json";

/** One field of the form. */
export interface FieldModel {
  /** Dotted path from the input's root (`service`, `target.region`): the input's `name`. */
  key: string;
  /** The property name. */
  name: string;
  /** `title` of the schema, or the property name made readable. */
  label: string;
  kind: FieldKind;
  required: boolean;
  description?: string;
  default?: unknown;
  /** Numbers: inclusive bounds (exclusive ones narrowed by one step for integers). */
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  /** `email`, `uri`, `date`, `date-time`, ... (picks the input type). */
  format?: string;
  /** Choices of an enum. */
  options?: ReadonlyArray<string | number | boolean | null>;
  /** Fields of a nested object. */
  fields?: FieldModel[];
  /** The item of a list of plain values (strings, numbers, enums). */
  item?: FieldModel;
}

/** The form of a schema. */
export interface FormModel {
  fields: FieldModel[];
  /** The schema lists no properties (any object, or a shape a form cannot show): edit the input as raw JSON. */
  rawOnly: boolean;
}

/** What a person typed, per field key: text, a checkbox, or the rows of a list. */
export type FormValues = Record<string, string | boolean | string[]>;

type Schema = Record<string, unknown>;

const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * The form of an input schema (null schema: a workflow without input, an empty form).
 * @example
 * const model = formModel({ type: "object", properties: { name: { type: "string" } }, required: ["name"] });
 * model.fields[0]; // { key: "name", kind: "string", required: true, label: "Name", ... }
 */
export function formModel(schema: Schema | null | undefined): FormModel {
  if (!schema) return { fields: [], rawOnly: false };
  const root = resolve(schema, schema);
  return { fields: objectFields(root, schema, ""), rawOnly: typeof root.properties !== "object" };
}

function objectFields(node: Schema, root: Schema, prefix: string): FieldModel[] {
  const props = (node.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
  return Object.entries(props).map(([name, raw]) => field(name, prefix ? `${prefix}.${name}` : name, raw, root, required.has(name)));
}

function field(name: string, key: string, raw: Schema, root: Schema, requiredHere: boolean): FieldModel {
  const { schema, nullable } = unwrapNullable(resolve(raw, root), root);
  const base: FieldModel = {
    key,
    name,
    label: typeof schema.title === "string" ? schema.title : readable(name),
    kind: "json",
    // A default makes a field optional to the person filling the form: the default is prefilled.
    required: requiredHere && !nullable && schema.default === undefined,
    ...(typeof (schema.description ?? raw.description) === "string" ? { description: (schema.description ?? raw.description) as string } : {}),
    ...(schema.default !== undefined ? { default: schema.default } : raw.default !== undefined ? { default: raw.default } : {}),
  };
  if (Array.isArray(schema.enum)) return { ...base, kind: "enum", options: schema.enum as FieldModel["options"] & unknown[] };
  if ("const" in schema) return { ...base, kind: "enum", options: [schema.const as string] };
  const type = schema.type;
  if (type === "string") {
    return { ...base, kind: "string", ...num("minLength", schema.minLength), ...num("maxLength", schema.maxLength), ...(typeof schema.format === "string" ? { format: schema.format } : {}) };
  }
  if (type === "number" || type === "integer") {
    const step = type === "integer" ? 1 : 0;
    const min = typeof schema.minimum === "number" ? schema.minimum : typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + step : undefined;
    const max = typeof schema.maximum === "number" ? schema.maximum : typeof schema.exclusiveMaximum === "number" ? schema.exclusiveMaximum - step : undefined;
    // zod writes the safe-integer range for every .int(): not a limit worth showing.
    return { ...base, kind: type, ...(min !== undefined && min > -SAFE ? { min } : {}), ...(max !== undefined && max < SAFE ? { max } : {}) };
  }
  if (type === "boolean") return { ...base, kind: "boolean" };
  if (type === "object" && typeof schema.properties === "object") return { ...base, kind: "object", fields: objectFields(schema, root, key) };
  if (type === "array" && schema.items && typeof schema.items === "object") {
    const item = field(name, key, schema.items as Schema, root, true);
    if (["string", "number", "integer", "enum"].includes(item.kind)) return { ...base, kind: "list", item };
  }
  return base;
}

function num<K extends string>(k: K, v: unknown): Partial<Record<K, number>> {
  return typeof v === "number" ? ({ [k]: v } as Record<K, number>) : {};
}

/** Follows a local `$ref` (`#/$defs/x`, `#/definitions/x`). */
function resolve(node: Schema, root: Schema): Schema {
  const ref = node.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return node;
  let at: unknown = root;
  for (const part of ref.slice(2).split("/")) at = (at as Schema | undefined)?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return at && typeof at === "object" ? { ...(at as Schema), ...Object.fromEntries(Object.entries(node).filter(([k]) => k !== "$ref")) } : node;
}

/** `anyOf: [X, {type: "null"}]` (zod's `.nullable()`) is X, nullable. */
function unwrapNullable(node: Schema, root: Schema): { schema: Schema; nullable: boolean } {
  const alts = (node.anyOf ?? node.oneOf) as Schema[] | undefined;
  if (Array.isArray(alts) && alts.length === 2) {
    const rest = alts.filter((a) => a.type !== "null");
    if (rest.length === 1) {
      const { anyOf: _a, oneOf: _o, ...own } = node;
      return { schema: { ...resolve(rest[0]!, root), ...own }, nullable: true };
    }
  }
  return { schema: node, nullable: false };
}

function readable(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/[_-]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

/** Every field with a value of its own (not groups), depth first. */
export function leafFields(fields: readonly FieldModel[]): FieldModel[] {
  return fields.flatMap((f) => (f.kind === "object" ? leafFields(f.fields ?? []) : [f]));
}

/**
 * The text of one value as a form shows it (an enum option is its JSON, so numbers stay numbers).
 * @example
 * valueText({ kind: "integer" } as FieldModel, 4); // "4"
 */
export function valueText(f: FieldModel, value: unknown): string {
  if (value === undefined) return "";
  if (f.kind === "enum") return JSON.stringify(value);
  if (f.kind === "json") return JSON.stringify(value, null, 2);
  return typeof value === "string" ? value : String(value);
}

/**
 * Fills a form from an input (a run's, to re-run it; the raw JSON, when switching back). Fields
 * the input does not give take their default.
 * @example
 * inputToForm(model, { service: "api", shards: 4 }); // { service: "api", shards: "4", ... }
 */
export function inputToForm(model: FormModel, input: unknown): FormValues {
  const out: FormValues = {};
  for (const f of leafFields(model.fields)) {
    const given = pick(input, f.key);
    const value = given === undefined ? f.default : given;
    if (f.kind === "boolean") out[f.key] = value === true;
    else if (f.kind === "list") out[f.key] = Array.isArray(value) ? value.map((v) => valueText(f.item!, v)) : [];
    else out[f.key] = valueText(f, value);
  }
  return out;
}

function pick(input: unknown, key: string): unknown {
  let at = input;
  for (const part of key.split(".")) {
    if (!at || typeof at !== "object" || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

/** The input a form gives, and what could not be read (per field key). */
export interface FormInput {
  input: Record<string, unknown>;
  /** A number that is not one, JSON that does not parse. */
  errors: Record<string, string>;
}

/**
 * The run input of a form: empty optional fields are left out, numbers parsed, JSON fields
 * parsed; an optional group with nothing filled is left out.
 * @example
 * formToInput(model, { service: "api", shards: "4" }).input; // { service: "api", shards: 4 }
 */
export function formToInput(model: FormModel, values: FormValues): FormInput {
  const errors: Record<string, string> = {};
  const build = (fields: readonly FieldModel[]): Record<string, unknown> => {
    const obj: Record<string, unknown> = {};
    for (const f of fields) {
      if (f.kind === "object") {
        // An optional group nobody filled in is left out (its required fields then do not apply).
        if (f.required || leafFields(f.fields ?? []).some((l) => isFilled(values[l.key]))) obj[f.name] = build(f.fields ?? []);
        continue;
      }
      const v = readField(f, values[f.key], errors);
      if (v !== undefined) obj[f.name] = v;
    }
    return obj;
  };
  return { input: build(model.fields), errors };
}

function isFilled(raw: FormValues[string] | undefined): boolean {
  return raw === true || (typeof raw === "string" && raw.trim() !== "") || (Array.isArray(raw) && raw.some((r) => r.trim() !== ""));
}

function readField(f: FieldModel, raw: FormValues[string] | undefined, errors: Record<string, string>): unknown {
  if (f.kind === "boolean") {
    const on = raw === true;
    return on || f.required || f.default === true ? on : undefined;
  }
  if (f.kind === "list") {
    const rows = Array.isArray(raw) ? raw.filter((r) => r.trim() !== "") : [];
    const items = rows.map((r, i) => readText({ ...f.item!, key: `${f.key}.${i}` }, r, errors));
    return items.length || f.required ? items : undefined;
  }
  const text = typeof raw === "string" ? raw : "";
  if (text.trim() === "" && f.kind !== "string") return undefined;
  if (text === "" && !f.required) return undefined;
  return readText(f, text, errors);
}

function readText(f: FieldModel, text: string, errors: Record<string, string>): unknown {
  switch (f.kind) {
    case "number":
    case "integer": {
      const n = Number(text.trim());
      if (!Number.isFinite(n)) errors[f.key] = "Enter a number.";
      return Number.isFinite(n) ? n : text;
    }
    case "enum":
    case "json":
      try {
        return JSON.parse(text);
      } catch {
        if (f.kind === "enum") return text;
        errors[f.key] = "This is not valid JSON.";
        return undefined;
      }
    default:
      return text;
  }
}
