/**
 * @module core/tools/http-request
 * One HTTP exchange of a tool (the HTTP tool and every OpenAPI tool), over an injected
 * web-standard `fetch`: the body rules and the result shape of SPEC.md `createHttpTool`.
 * Bodies: plain values become JSON (with a JSON content type unless one is set); strings,
 * blobs, form data, URL-search-params and byte buffers pass through; none for GET and HEAD.
 * Result: `ok`, `status`, `statusText`, `headers`, `body` (JSON parsed for JSON types, text
 * otherwise, null when empty or 204/205), capped at `maxOutputBytes`: the body is read as a
 * stream and reading stops at the cap, so a huge response costs no more memory than the cap.
 * Redirects are followed by http-redirect.ts (docs/tools.md "HTTP").
 */
import { FlowError, isFlowError } from "../errors.js";
import { fetchFollowingRedirects } from "./http-redirect.js";
import { OutputCollector } from "./output-limit.js";
import { TOOL_DEFAULTS } from "./types.js";

/**
 * SPEC.md HTTP methods of the HTTP tool.
 * @example
 * HTTP_METHODS.includes("PATCH"); // true
 */
export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"] as const;
/**
 * One of `HTTP_METHODS`.
 * @example
 * const method: HttpMethod = "POST";
 */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * What an HTTP call of a tool resolves to (SPEC.md `createHttpTool` output).
 * @example
 * const res: HttpToolResult = await http.execute({ url }); if (!res.ok) console.warn(res.status, res.body);
 */
export interface HttpToolResult {
  /** True for a 2xx status. */
  ok: boolean;
  status: number;
  statusText: string;
  /** Response headers, names lower-cased. */
  headers: Record<string, string>;
  /** Parsed JSON for a JSON content type, raw text otherwise, null for empty, 204 or 205. */
  body: unknown;
}

/** The request a tool sends. */
export interface HttpExchange {
  toolName: string;
  url: string;
  method: HttpMethod;
  headers: Headers;
  body?: unknown;
  /** Header names the tool set for authentication: never sent to another origin on a redirect. */
  credentialHeaders?: readonly string[];
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  fetch: typeof fetch;
}

/** Sends the request; non-2xx statuses are results, failures to get a response are errors. */
export async function sendHttp(x: HttpExchange): Promise<HttpToolResult> {
  const timeoutMs = Math.min(x.timeoutMs, TOOL_DEFAULTS.maxTimeoutMs);
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = x.signal ? AbortSignal.any([x.signal, timeout]) : timeout;
  const body = x.method === "GET" || x.method === "HEAD" ? undefined : encodeBody(x.body, x.headers);
  try {
    const response = await fetchFollowingRedirects({
      toolName: x.toolName,
      url: x.url,
      method: x.method,
      headers: x.headers,
      body,
      signal,
      fetch: x.fetch,
      ...(x.credentialHeaders ? { credentialHeaders: x.credentialHeaders } : {}),
    });
    return await readResponse(response, x);
  } catch (error) {
    if (x.signal?.aborted) {
      throw isFlowError(x.signal.reason) ? x.signal.reason : new FlowError("TASK_CANCELLED", `Tool "${x.toolName}": ${x.method} ${x.url} was cancelled.`, { toolName: x.toolName });
    }
    if (timeout.aborted) {
      throw new FlowError("TOOL_TIMEOUT", `Tool "${x.toolName}": ${x.method} ${x.url} got no complete response within ${timeoutMs} ms.`, { toolName: x.toolName, url: x.url, timeoutMs });
    }
    if (isFlowError(error)) throw error;
    const reason = (error as Error)?.cause instanceof Error ? `${(error as Error).message}: ${((error as Error).cause as Error).message}` : String((error as Error)?.message ?? error);
    throw new FlowError("TOOL_HTTP_FAILED", `Tool "${x.toolName}": ${x.method} ${x.url} failed without a response (${reason}). Check the URL and that the server is up.`, { toolName: x.toolName, url: x.url }, { cause: error });
  }
}

/** Encodes a body by the rules above; sets the JSON content type when it serializes. */
export function encodeBody(body: unknown, headers: Headers): BodyInit | undefined {
  if (body === undefined || body === null) return undefined;
  if (
    typeof body === "string" ||
    body instanceof Blob ||
    body instanceof FormData ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    body instanceof ReadableStream
  ) {
    return body as BodyInit;
  }
  if (!headers.has("content-type")) headers.set("content-type", "application/json");
  return JSON.stringify(body);
}

/** `Authorization: Basic` value: base64 of the UTF-8 `username:password`. */
export function basicAuthorization(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `Basic ${btoa(binary)}`;
}

async function readResponse(response: Response, x: HttpExchange): Promise<HttpToolResult> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const base = { ok: response.ok, status: response.status, statusText: response.statusText, headers };
  if (x.method === "HEAD" || response.status === 204 || response.status === 205) {
    await response.body?.cancel();
    return { ...base, body: null };
  }
  const { text, truncated } = await readBounded(response, x.maxOutputBytes);
  if (text === "") return { ...base, body: null };
  if (truncated) return { ...base, body: text };
  if (isJsonType(response.headers.get("content-type"))) {
    try {
      return { ...base, body: JSON.parse(text) };
    } catch {
      // A server that says JSON and sends something else: the model gets the text.
    }
  }
  return { ...base, body: text };
}

/** The body's text up to `maxBytes` (with the truncation notice); reading stops there. */
async function readBounded(response: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const collector = new OutputCollector(maxBytes);
  const reader = response.body?.getReader();
  if (!reader) return { text: "", truncated: false };
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: collector.text(), truncated: collector.total > maxBytes };
    collector.push(value);
    if (collector.total > maxBytes) {
      await reader.cancel();
      // The rest is not read: its size is the declared length when there is one, else unknown.
      return { text: collector.text(Number.isFinite(declared) && declared >= collector.total ? { total: declared } : {}), truncated: true };
    }
  }
}

/** True for `application/json` and any `...+json` media type (parameters ignored). */
export function isJsonType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}
