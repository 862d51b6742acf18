/**
 * @module node/server/auth/cors
 * Cross-origin access for the origins in `allowedOrigins`: the app served from one origin (the
 * offline app, another Gateway's console) adds a Gateway at another origin as a workspace, and
 * the browser lets it read the answers only with CORS headers. Listing an origin is the opt-in:
 * with no list, no CORS headers are sent (same-origin pages and non-browser clients need none).
 * Preflights are answered before authentication (browsers send them without credentials).
 */

/** Response headers the app reads across origins (the change stream's ids, Electric's shape headers). */
const EXPOSED = ["electric-offset", "electric-handle", "electric-schema", "electric-cursor", "electric-up-to-date", "retry-after"].join(", ");

const norm = (o: string) => o.trim().replace(/\/+$/, "").toLowerCase();

/** Whether `origin` is listed (an empty or absent list lists nothing). */
function listed(allowedOrigins: readonly string[] | undefined, origin: string | null): origin is string {
  return !!origin && !!allowedOrigins?.length && allowedOrigins.some((o) => norm(o) === norm(origin));
}

/**
 * The answer to a CORS preflight from a listed origin, or undefined (not a preflight, or an
 * origin the Origin check then refuses).
 * @example
 * const early = corsPreflight(["https://app.example.com"], req);
 * if (early) return early;
 */
export function corsPreflight(allowedOrigins: readonly string[] | undefined, req: Request): Response | undefined {
  const origin = req.headers.get("origin");
  if (req.method !== "OPTIONS" || !req.headers.has("access-control-request-method") || !listed(allowedOrigins, origin)) return undefined;
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": req.headers.get("access-control-request-headers") ?? "authorization, content-type, last-event-id, flow-write-id",
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

/**
 * `res` with the CORS headers a listed origin needs to read it (unchanged for other requests).
 * @example
 * return withCors(["https://app.example.com"], req, await handle(req));
 */
export function withCors(allowedOrigins: readonly string[] | undefined, req: Request, res: Response): Response {
  const origin = req.headers.get("origin");
  if (!listed(allowedOrigins, origin)) return res;
  const out = new Response(res.body, res);
  out.headers.set("access-control-allow-origin", origin);
  out.headers.set("access-control-expose-headers", EXPOSED);
  out.headers.append("vary", "origin");
  return out;
}
