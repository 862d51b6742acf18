/**
 * @module core/tools/openapi-request
 * Builds the HTTP request of an OpenAPI tool call (docs/tools.md "OpenAPI requests"): the base
 * URL (option, else the operation's, path item's or document's first server with its variables
 * at their defaults, relative ones resolved against the URL the description came from), path
 * parameters (style `simple`), query parameters (`form` exploded by default, `spaceDelimited`,
 * `pipeDelimited`, `deepObject` as `a[b]=c`), header parameters, the body in its media type,
 * the configured headers and auth.
 */
import { FlowError } from "../errors.js";
import { basicAuthorization, type HttpMethod } from "./http-request.js";
import type { OperationPlan } from "./openapi-operations.js";
import type { OpenApiParameter, OpenApiServer, OpenApiSpec, OpenApiToolsOptions } from "./openapi-types.js";

/**
 * The arguments of an OpenAPI tool (validated against its input schema).
 * @example
 * const args: OpenApiToolArgs = { path: { petId: 7 }, query: { fields: "name" }, body: { name: "Rex" } };
 */
export interface OpenApiToolArgs {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  header?: Record<string, unknown>;
  body?: unknown;
}

export interface BuiltRequest {
  url: string;
  method: HttpMethod;
  headers: Headers;
  body?: unknown;
  /** The configured apiKey header: never sent to another origin on a redirect. */
  credentialHeaders?: string[];
}

/** Where requests of a spec go, resolved once per tool set. */
export interface RequestContext {
  spec: OpenApiSpec;
  options: OpenApiToolsOptions;
  sourceUrl?: string;
}

/** The request for one call. */
export function buildRequest(plan: OperationPlan, args: OpenApiToolArgs, rc: RequestContext): BuiltRequest {
  const { entry } = plan;
  const base = baseUrlOf(plan, rc);
  let path = entry.path;
  const query = new URLSearchParams();
  const headers = new Headers(rc.options.headers);
  for (const p of plan.parameters) {
    if (p.in === "cookie") continue;
    const value = (args[p.in] as Record<string, unknown> | undefined)?.[p.name];
    if (value === undefined || value === null) continue;
    if (p.in === "path") path = path.split(`{${p.name}}`).join(encodeURIComponent(simple(p, value)));
    else if (p.in === "header") headers.set(p.name, simple(p, value));
    else appendQuery(query, p, value);
  }
  const auth = rc.options.auth;
  if (auth?.type === "apiKey" && auth.in === "query") query.set(auth.name, auth.value);
  else if (auth?.type === "apiKey") headers.set(auth.name, auth.value);
  else if (auth?.type === "bearer") headers.set("authorization", `Bearer ${auth.token}`);
  else if (auth?.type === "basic") headers.set("authorization", basicAuthorization(auth.username, auth.password));
  // `.` and `..` stay dot segments even percent-encoded (`%2e%2e`): a URL parser would collapse
  // them (`/items/..` is `/`), so such a value is refused, not sent somewhere else.
  if (path.split("/").some((segment, i) => /^(\.|%2e){1,2}$/i.test(segment) && entry.path.split("/")[i] !== segment)) {
    throw new FlowError("TOOL_INPUT_INVALID", `OpenAPI tool "${plan.entry.operationId}": a path parameter of ${entry.method.toUpperCase()} ${entry.path} is "." or "..", which would change the request path (${path}). Give the real value.`, {
      operationId: plan.entry.operationId,
      path,
    });
  }
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of query) url.searchParams.append(k, v);
  const request: BuiltRequest = { url: url.toString(), method: entry.method.toUpperCase() as HttpMethod, headers };
  if (auth?.type === "apiKey" && auth.in !== "query") request.credentialHeaders = [auth.name];
  if (plan.body && args.body !== undefined) {
    headers.set("content-type", plan.body.mediaType === "*/*" ? "application/json" : plan.body.mediaType);
    if (plan.body.kind === "json") request.body = JSON.stringify(args.body);
    else if (plan.body.kind === "form") request.body = formBody(args.body);
    else request.body = typeof args.body === "string" ? args.body : JSON.stringify(args.body);
  }
  return request;
}

/** The base URL of an operation: option, else first server of operation, path item or spec. */
function baseUrlOf(plan: OperationPlan, rc: RequestContext): string {
  if (rc.options.baseUrl) return rc.options.baseUrl;
  const server = (plan.servers ?? rc.spec.servers)?.[0];
  const url = server ? fillVariables(server) : undefined;
  if (url !== undefined) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return url;
    if (rc.sourceUrl) return new URL(url, rc.sourceUrl).toString();
  }
  throw new FlowError(
    "INVALID_ARGUMENT",
    `OpenAPI tool "${plan.entry.operationId}" has no absolute server URL${url ? ` (the description says "${url}")` : ""}. Pass options.baseUrl, e.g. "https://api.example.com".`,
    { operationId: plan.entry.operationId },
  );
}

/** A server URL with its `{variables}` replaced by their defaults. */
export function fillVariables(server: OpenApiServer): string {
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = server.variables?.[name];
    return v?.default !== undefined ? String(v.default) : whole;
  });
}

/** Style `simple` (path and header): arrays `a,b`, objects `k,v,k,v` (or `k=v,..` exploded). */
function simple(p: OpenApiParameter, value: unknown): string {
  if (isJsonContent(p)) return JSON.stringify(value);
  if (Array.isArray(value)) return value.map(String).join(",");
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return p.explode ? entries.map(([k, v]) => `${k}=${String(v)}`).join(",") : entries.flat().map(String).join(",");
  }
  return String(value);
}

function appendQuery(query: URLSearchParams, p: OpenApiParameter, value: unknown): void {
  if (isJsonContent(p)) return query.append(p.name, JSON.stringify(value));
  const style = p.style ?? "form";
  const explode = p.explode ?? style === "form";
  if (style === "deepObject") return appendBracketed(query, p.name, value);
  if (Array.isArray(value)) {
    if (style === "form" && explode) for (const v of value) query.append(p.name, String(v));
    else query.append(p.name, value.map(String).join(style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ","));
    return;
  }
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (explode) for (const [k, v] of entries) query.append(k, String(v));
    else query.append(p.name, entries.flat().map(String).join(","));
    return;
  }
  query.append(p.name, String(value));
}

/** `a[b][c]=v` and `a[]=v` for nested objects and arrays (deepObject, form bodies). */
function appendBracketed(out: URLSearchParams, key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) for (const v of value) appendBracketed(out, `${key}[]`, v);
  else if (typeof value === "object") for (const [k, v] of Object.entries(value)) appendBracketed(out, `${key}[${k}]`, v);
  else out.append(key, String(value));
}

function formBody(body: unknown): string {
  const out = new URLSearchParams();
  if (body !== null && typeof body === "object" && !Array.isArray(body)) for (const [k, v] of Object.entries(body)) appendBracketed(out, k, v);
  return out.toString();
}

function isJsonContent(p: OpenApiParameter): boolean {
  return p.schema === undefined && p.content !== undefined && Object.keys(p.content).some((t) => t.toLowerCase().includes("json"));
}
