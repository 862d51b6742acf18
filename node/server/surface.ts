/**
 * @module node/server/surface
 * What the plain hosting surfaces (startServer, the serve app) share around the domain API:
 * the outer fetch (body limit before routing, errors as envelopes, request metrics), the
 * authenticate-everything middleware, and forwarding a route to a domain API path.
 */
import type { Hono } from "hono";
import { assertDeclaredSize, errorResponse } from "../../core/api/index.js";
import type { DomainHandler } from "../../core/api/index.js";
import type { DomainEnv } from "../../core/api/internal.js";
import type { FlowMetrics } from "./metrics.js";

/**
 * The fetch of a surface: refuses a declared body over `maxBodyBytes` before routing, answers
 * thrown errors as envelopes and counts every answer in `metrics`.
 * @example
 * const fetch = surfaceFetch(app, { maxBodyBytes: 1_048_576, metrics });
 */
export function surfaceFetch(app: Hono<DomainEnv>, opts: { maxBodyBytes: number; metrics?: FlowMetrics | undefined }): (req: Request) => Promise<Response> {
  return async (req) => {
    let res: Response;
    try {
      assertDeclaredSize(req, opts.maxBodyBytes);
      res = await app.fetch(req);
    } catch (error) {
      res = errorResponse(error);
    }
    opts.metrics?.observe(req.method, res.status);
    return res;
  };
}

/**
 * Authenticates every route registered after it (through the domain API's `authenticate`,
 * Origin check included) and stores the caller for `c.get("caller")`.
 * @example
 * app.get("/health", (c) => domain.fetch(c.req.raw)); // open
 * authenticateRoutes(app, domain);                      // everything below needs auth
 */
export function authenticateRoutes(app: Hono<DomainEnv>, domain: DomainHandler): void {
  app.onError((err) => errorResponse(err));
  app.use("*", async (c, next) => {
    c.set("caller", await domain.authenticate(c.req.raw));
    await next();
  });
}

/**
 * Answers a GET through the domain API at another path (query string and headers kept).
 * @example
 * app.get("/events", (c) => forwardGet(domain, c.req.raw, `/v1/api/runs/${runId}/events/stream`));
 */
export function forwardGet(domain: DomainHandler, req: Request, path: string): Promise<Response> {
  const url = new URL(req.url);
  url.pathname = path;
  return domain.fetch(new Request(url, { headers: req.headers }));
}
