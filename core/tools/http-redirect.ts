/**
 * @module core/tools/http-redirect
 * Redirects of the HTTP and OpenAPI tools, followed by Flow rather than by `fetch` (docs/tools.md
 * "HTTP", "Redirects"), so credentials stay with the origin they were meant for:
 *
 * - same origin: followed as `fetch` would (303, and 301/302 after a POST, become a GET without
 *   the body; 307/308 keep method and body);
 * - another origin (scheme, host or port differ): followed without `authorization`,
 *   `proxy-authorization`, `cookie`, the tool's own auth header, and any header whose name
 *   looks like a credential (`x-api-key`, `x-auth-token`, `x-session-id`, ...); a 307/308 that
 *   would re-send a body there is not followed: the 3xx response is the result;
 * - a location that is not http(s), or a stream body that cannot be sent twice: not followed;
 * - more than 20 hops: TOOL_HTTP_FAILED.
 */
import { FlowError } from "../errors.js";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
const ALWAYS_CREDENTIALS = ["authorization", "proxy-authorization", "cookie"];
/** Header names that carry credentials by convention. */
const CREDENTIAL_NAME = /api[-_]?key|token|secret|auth|session|passw|credential|signature|cookie/i;

/** One request, followed through redirects by the rules above. */
export interface RedirectRequest {
  toolName: string;
  url: string;
  method: string;
  headers: Headers;
  body: BodyInit | undefined;
  /** Header names the tool set for authentication (dropped on another origin). */
  credentialHeaders?: readonly string[];
  signal: AbortSignal;
  fetch: typeof fetch;
}

/** Sends the request and follows redirects; resolves to the final response (or an unfollowed 3xx). */
export async function fetchFollowingRedirects(req: RedirectRequest): Promise<Response> {
  let { url, method, body } = req;
  const headers = new Headers(req.headers);
  for (let hop = 0; ; hop++) {
    const init: RequestInit = { method, headers, signal: req.signal, redirect: "manual" };
    if (body !== undefined) init.body = body;
    const response = await req.fetch(url, init);
    if (response.type === "opaqueredirect") {
      throw new FlowError("TOOL_HTTP_FAILED", `Tool "${req.toolName}": ${method} ${url} answered with a redirect this runtime's fetch hides (a browser); Flow does not follow redirects blindly. Call the final URL directly.`, {
        toolName: req.toolName,
        url,
      });
    }
    const location = response.headers.get("location");
    if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
    const next = safeUrl(location, url);
    const keepsBody = response.status === 307 || response.status === 308;
    const crossOrigin = next !== undefined && next.origin !== new URL(url).origin;
    if (next === undefined || (keepsBody && body instanceof ReadableStream) || (keepsBody && crossOrigin && body !== undefined)) return response;
    if (hop === MAX_REDIRECTS) {
      await response.body?.cancel();
      throw new FlowError("TOOL_HTTP_FAILED", `Tool "${req.toolName}": ${req.method} ${req.url} redirected more than ${MAX_REDIRECTS} times (last to ${next}).`, { toolName: req.toolName, url: req.url });
    }
    await response.body?.cancel();
    if (!keepsBody && ((response.status === 303 && method !== "HEAD") || method === "POST")) {
      method = "GET";
      body = undefined;
      headers.delete("content-type");
      headers.delete("content-length");
    }
    if (crossOrigin) {
      const own = new Set([...ALWAYS_CREDENTIALS, ...(req.credentialHeaders ?? []).map((h) => h.toLowerCase())]);
      for (const name of [...headers.keys()]) if (own.has(name) || CREDENTIAL_NAME.test(name)) headers.delete(name);
    }
    url = next.toString();
  }
}

/** The absolute http(s) URL a location points to, or undefined. */
function safeUrl(location: string, base: string): URL | undefined {
  try {
    const next = new URL(location, base);
    return next.protocol === "http:" || next.protocol === "https:" ? next : undefined;
  } catch {
    return undefined;
  }
}
