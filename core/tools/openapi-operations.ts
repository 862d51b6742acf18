/**
 * @module core/tools/openapi-operations
 * The operations of a description and the tool input each one gets (docs/tools.md "OpenAPI
 * tool input"). The input groups arguments by where they go, so names never collide:
 * `{ path: {...}, query: {...}, header: {...}, body }`, each group present when the operation
 * has such parameters and required when one of them is. Operations without an `operationId`
 * get `<method>_<path>` (non-alphanumerics as `_`); a repeated id gets `_2`, `_3`, ...
 */
import { FlowError } from "../errors.js";
import { isJsonType } from "./http-request.js";
import { SchemaConverter, type Converted } from "./openapi-schema.js";
import { OPENAPI_METHODS, type OpenApiOperation, type OpenApiOperationInfo, type OpenApiParameter, type OpenApiPathItem, type OpenApiRequestBody, type OpenApiServer, type OpenApiSpec } from "./openapi-types.js";
import type { JsonSchema } from "./types.js";

/** One operation as found in `paths`. */
export interface OperationEntry extends OpenApiOperationInfo {
  operation: OpenApiOperation;
  pathItem: OpenApiPathItem;
}

/** How a request body is sent. */
export type BodyEncoding = { kind: "json"; mediaType: string } | { kind: "form"; mediaType: string } | { kind: "raw"; mediaType: string };

/** Parameter locations a tool input has, in SPEC.md order. */
export const PARAM_GROUPS = ["path", "query", "header"] as const;
export type ParamGroup = (typeof PARAM_GROUPS)[number];

/** What a tool needs to build requests for an operation. */
export interface OperationPlan {
  entry: OperationEntry;
  parameters: OpenApiParameter[];
  body?: BodyEncoding;
  servers?: OpenApiServer[];
  /** The tool's input schema (JSON Schema 2020-12, with the `$defs` it uses). */
  inputSchema: JsonSchema;
}

/** Every operation of the spec in document order, with unique operation ids. */
export function collectOperations(spec: OpenApiSpec, converter: SchemaConverter): OperationEntry[] {
  const out: OperationEntry[] = [];
  const ids = new Set<string>();
  for (const [path, raw] of Object.entries(spec.paths ?? {})) {
    if (raw === null || typeof raw !== "object") continue;
    const pathItem = converter.resolve<OpenApiPathItem>(raw);
    for (const method of OPENAPI_METHODS) {
      const operation = pathItem[method];
      if (operation === null || typeof operation !== "object") continue;
      const wanted = typeof operation.operationId === "string" && operation.operationId !== "" ? operation.operationId : `${method}_${path}`.replace(/[^A-Za-z0-9]+/g, "_").replace(/_+$/, "");
      let operationId = wanted;
      for (let n = 2; ids.has(operationId); n++) operationId = `${wanted}_${n}`;
      ids.add(operationId);
      out.push({ operationId, method, path, summary: typeof operation.summary === "string" ? operation.summary : "", operation, pathItem });
    }
  }
  return out;
}

/**
 * Plans the tool of one operation; throws OPENAPI_UNSUPPORTED when Flow cannot call it (a
 * required cookie parameter, or a required body in no supported media type).
 */
export function planOperation(entry: OperationEntry, converter: SchemaConverter): OperationPlan {
  const parameters = mergeParameters(entry, converter);
  const groups: Partial<Record<ParamGroup, { properties: Record<string, unknown>; required: string[] }>> = {};
  const refs = new Set<string>();
  for (const p of parameters) {
    if (p.in === "cookie") {
      if (p.required) throw unsupported(entry, `its required cookie parameter "${p.name}" (cookie parameters are not supported)`);
      continue;
    }
    const group = (groups[p.in] ??= { properties: {}, required: [] });
    const converted = converter.convert(parameterSchema(p));
    for (const r of converted.refs) refs.add(r);
    const schema = typeof converted.schema === "boolean" ? {} : converted.schema;
    const annotated: JsonSchema = { ...schema };
    if (p.description !== undefined && annotated.description === undefined) annotated.description = p.description;
    if (p.deprecated) annotated.deprecated = true;
    group.properties[p.name] = annotated;
    if (p.required || p.in === "path") group.required.push(p.name);
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const name of PARAM_GROUPS) {
    const g = groups[name];
    if (!g) continue;
    properties[name] = { type: "object", properties: g.properties, ...(g.required.length > 0 ? { required: g.required } : {}), additionalProperties: false };
    if (g.required.length > 0) required.push(name);
  }
  const plan: Omit<OperationPlan, "inputSchema"> & { inputSchema?: JsonSchema } = { entry, parameters };
  const requestBody = entry.operation.requestBody ? converter.resolve<OpenApiRequestBody>(entry.operation.requestBody) : undefined;
  if (requestBody?.content && typeof requestBody.content === "object") {
    const chosen = chooseMediaType(requestBody.content);
    if (chosen) {
      plan.body = chosen.encoding;
      const converted: Converted = chosen.encoding.kind === "raw" ? { schema: { type: "string" }, refs: new Set() } : converter.convert(chosen.schema ?? {});
      for (const r of converted.refs) refs.add(r);
      const body: JsonSchema = typeof converted.schema === "boolean" ? {} : { ...converted.schema };
      if (requestBody.description !== undefined && body.description === undefined) body.description = requestBody.description;
      properties.body = body;
      if (requestBody.required) required.push("body");
    } else if (requestBody.required) {
      throw unsupported(entry, `its request body, whose media types (${Object.keys(requestBody.content).join(", ")}) are not JSON, form-urlencoded or text`);
    }
  }
  const servers = entry.operation.servers ?? entry.pathItem.servers;
  if (servers && servers.length > 0) plan.servers = servers;
  const defs = converter.defsFor(refs);
  plan.inputSchema = { type: "object", properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false, ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}) };
  return plan as OperationPlan;
}

/** Path-level parameters, overridden by operation-level ones with the same name and place. */
function mergeParameters(entry: OperationEntry, converter: SchemaConverter): OpenApiParameter[] {
  const byKey = new Map<string, OpenApiParameter>();
  for (const list of [entry.pathItem.parameters, entry.operation.parameters]) {
    for (const raw of list ?? []) {
      const p = converter.resolve<OpenApiParameter>(raw);
      if (typeof p?.name !== "string" || !["query", "header", "path", "cookie"].includes(p.in)) {
        throw new FlowError("OPENAPI_INVALID", `Operation "${entry.operationId}" has a parameter without a valid name and "in".`, { operationId: entry.operationId });
      }
      byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  return [...byKey.values()];
}

/** A parameter's schema: `schema`, or the schema of its single `content` media type. */
export function parameterSchema(p: OpenApiParameter): unknown {
  if (p.schema !== undefined) return p.schema;
  const media = p.content ? Object.values(p.content)[0] : undefined;
  return media?.schema ?? { type: "string" };
}

/** JSON first, then form-urlencoded, then a text-like type sent as a string. */
function chooseMediaType(content: Record<string, { schema?: unknown }>): { encoding: BodyEncoding; schema?: unknown } | undefined {
  const types = Object.keys(content);
  const pick = (test: (t: string) => boolean, kind: BodyEncoding["kind"]) => {
    const mediaType = types.find((t) => test(t.toLowerCase()));
    return mediaType === undefined ? undefined : { encoding: { kind, mediaType } as BodyEncoding, schema: content[mediaType]?.schema };
  };
  return (
    pick((t) => isJsonType(t), "json") ??
    pick((t) => t.startsWith("application/x-www-form-urlencoded"), "form") ??
    pick((t) => t === "*/*", "json") ??
    pick((t) => t.startsWith("text/") || t === "application/octet-stream" || t.endsWith("/xml") || t.endsWith("+xml"), "raw")
  );
}

function unsupported(entry: OperationEntry, what: string): FlowError {
  return new FlowError("OPENAPI_UNSUPPORTED", `Operation "${entry.operationId}" (${entry.method.toUpperCase()} ${entry.path}) cannot be made a tool because of ${what}.`, {
    operationId: entry.operationId,
    method: entry.method,
    path: entry.path,
  });
}

/** `listOperations` entries of collected operations. */
export function operationInfos(entries: OperationEntry[]): OpenApiOperationInfo[] {
  return entries.map(({ operationId, method, path, summary }) => ({ operationId, method, path, summary }));
}
