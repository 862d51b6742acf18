/**
 * @module node/server/gateway-routes
 * The Gateway's HTTP front: the routes only a Node gateway has (`/metrics`,
 * `POST /webhooks/<key>`, a team's shape proxy `/sync/`), in front of the domain API
 * (core/api/handler.ts) that answers everything else, `/v1/` included (extension methods
 * and streams too: one router for the contract's paths). The Origin check runs first, for every
 * route (listed origins get CORS headers and their preflights answered: node/server/auth/cors.ts);
 * a closing gateway answers 503. After the Gateway's own routes, the mounted UIs
 * (node/server/ui/) answer GETs of their paths, no token needed (API paths are never theirs).
 * See docs/hosting.md "Gateway".
 */
import { errorResponse, hasScope, okResponse, requireScope } from "../../core/api/index.js";
import { readBodyBytes } from "../../core/api/internal.js";
import type { DomainHandler, GatewayHost } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import { corsPreflight, withCors } from "./auth/cors.js";
import { assertOriginAllowed } from "./auth/origin.js";
import type { GatewayWebhookConfig } from "./gateway-options.js";
import type { GatewayMetrics } from "./gateway-metrics.js";
import { handleWebhook } from "./webhooks/webhook-handler.js";

export interface GatewayRoutesContext {
  host: GatewayHost;
  api: DomainHandler;
  /** Answers GET/HEAD of a mounted UI (node/server/ui/); undefined for anything else. */
  ui?: (req: Request) => Promise<Response | undefined>;
  metrics: GatewayMetrics;
  webhooks: ReadonlyMap<string, GatewayWebhookConfig>;
  allowedOrigins: string[] | undefined;
  maxBodyBytes: number;
  isClosing(): boolean;
  /** A team Gateway's shape proxy (`/sync/`, docs/multiplayer.md). */
  sync?: { serves(path: string): boolean; answer(req: Request): Promise<Response> };
}

/** The scope of a token that may scrape `/metrics` and nothing else (a reader's `run:read` may too). */
export const METRICS_SCOPE = "metrics:read";

/**
 * The Gateway's `fetch`.
 * @example
 * const fetch = gatewayFetch(ctx);
 * const res = await fetch(new Request("http://gw/health"));
 */
export function gatewayFetch(ctx: GatewayRoutesContext): (req: Request) => Promise<Response> {
  return async (req) => {
    const path = new URL(req.url).pathname;
    let res: Response;
    try {
      res = corsPreflight(ctx.allowedOrigins, req) ?? (await answer(ctx, req, path));
    } catch (error) {
      res = errorResponse(error);
      if (path.startsWith("/webhooks/")) ctx.metrics.webhookDeliveries.inc({ webhook: path.slice("/webhooks/".length), result: "refused" });
    }
    ctx.metrics.base.observe(req.method, res.status);
    // Errors too: the app reads a 401 to ask for a token.
    return res.headers.has("access-control-allow-origin") ? res : withCors(ctx.allowedOrigins, req, res);
  };
}

async function answer(ctx: GatewayRoutesContext, req: Request, path: string): Promise<Response> {
  if (ctx.isClosing()) throw new FlowError("GATEWAY_OVERLOADED", "The gateway is closing; retry against another one or in a moment.");
  assertOriginAllowed(ctx.allowedOrigins, req.headers.get("origin"));
  if (path === "/metrics" && req.method === "GET") {
    const caller = await ctx.api.authenticate(req);
    // The counters show a workspace's activity: a reader's scope, or a scrape-only token's.
    if (!hasScope(caller, METRICS_SCOPE)) requireScope(caller, "run:read", "GET /metrics (or the scope metrics:read)");
    return ctx.metrics.base.respond();
  }
  if (path.startsWith("/webhooks/") && req.method === "POST") {
    const key = decodeURIComponent(path.slice("/webhooks/".length));
    const config = ctx.webhooks.get(key);
    if (!config) throw new FlowError("ROUTE_NOT_FOUND", `No webhook is registered as "${key}"; register the workflow with { webhook: { secret } }.`, { webhook: key });
    const body = await readBodyBytes(req, ctx.maxBodyBytes);
    const result = await handleWebhook(ctx.host, key, config, req, body);
    ctx.metrics.webhookDeliveries.inc({ webhook: key, result: result.duplicate ? "duplicate" : "accepted" });
    return okResponse(result);
  }
  if (ctx.sync?.serves(path)) return ctx.sync.answer(req);
  // Last but the domain API, whose paths (`/v1/`, `/rpc`, `/health`, `/workflows`) a UI never answers.
  const page = await ctx.ui?.(req);
  if (page) return page;
  return ctx.api.fetch(req);
}
