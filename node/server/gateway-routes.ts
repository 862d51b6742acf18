/**
 * @module node/server/gateway-routes
 * The Gateway's HTTP front: the routes only a Node gateway has (`/metrics`,
 * `POST /webhooks/<key>`, extension RPC and streams), in front of the domain API
 * (core/api/handler.ts) that answers everything else. The Origin check runs first, for every
 * route (listed origins get CORS headers and their preflights answered: node/server/auth/cors.ts);
 * a closing gateway answers 503. After the Gateway's own routes, the mounted UIs
 * (node/server/ui/) answer GETs of their paths, no token needed (API paths are never theirs).
 * See docs/hosting.md "Gateway".
 */
import { readBodyBytes, readJsonBody } from "../../core/api/body.js";
import { errorResponse, okResponse } from "../../core/api/envelope.js";
import type { DomainHandler } from "../../core/api/handler.js";
import type { GatewayHost } from "../../core/api/host.js";
import { hasScope, requireScope } from "../../core/api/scopes.js";
import { sseResponse } from "../../core/api/sse.js";
import { FlowError, httpStatusOf } from "../../core/errors.js";
import { corsPreflight, withCors } from "./auth/cors.js";
import { assertOriginAllowed } from "./auth/origin.js";
import { EXTENSION_PREFIX, type ExtensionRegistry } from "./extensions.js";
import type { GatewayWebhookConfig } from "./gateway-options.js";
import type { GatewayMetrics } from "./gateway-metrics.js";
import { handleWebhook } from "./webhooks/webhook-handler.js";

export interface GatewayRoutesContext {
  host: GatewayHost;
  api: DomainHandler;
  /** Answers GET/HEAD of a mounted UI (node/server/ui/); undefined for anything else. */
  ui?: (req: Request) => Promise<Response | undefined>;
  extensions: ExtensionRegistry;
  metrics: GatewayMetrics;
  webhooks: ReadonlyMap<string, GatewayWebhookConfig>;
  allowedOrigins: string[] | undefined;
  maxBodyBytes: number;
  heartbeatMs: number;
  isClosing(): boolean;
  /** A team Gateway's shape proxy (`/sync/`, docs/multiplayer.md). */
  sync?: { serves(path: string): boolean; answer(req: Request): Promise<Response> };
}

/** The scope of a token that may scrape `/metrics` and nothing else (a reader's `run:read` may too). */
export const METRICS_SCOPE = "metrics:read";

const EXT_STREAM = /^\/v1\/ext\/([^/]+)\/([^/]+)\/stream$/;

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
  if (path.startsWith(`/v1/rpc/${EXTENSION_PREFIX}`) && req.method === "POST") {
    const caller = await ctx.api.authenticate(req);
    const params = await readJsonBody(req, ctx.maxBodyBytes);
    const method = decodeURIComponent(path.slice("/v1/rpc/".length));
    return okResponse(await ctx.extensions.call(method, params, { caller, signal: req.signal, host: ctx.host }));
  }
  if (ctx.sync?.serves(path)) return ctx.sync.answer(req);
  const stream = EXT_STREAM.exec(path);
  if (stream && req.method === "GET") return extensionStream(ctx, req, `${EXTENSION_PREFIX}${decodeURIComponent(stream[1]!)}.${decodeURIComponent(stream[2]!)}`);
  // Last but the domain API, whose paths (`/v1/`, `/rpc`, `/health`, `/workflows`) a UI never answers.
  const page = await ctx.ui?.(req);
  if (page) return page;
  return ctx.api.fetch(req);
}

/** An extension stream as server-sent events: `data` per item, then `end` (or `error`). */
async function extensionStream(ctx: GatewayRoutesContext, req: Request, method: string): Promise<Response> {
  const caller = await ctx.api.authenticate(req);
  const raw = new URL(req.url).searchParams.get("params");
  let params: unknown = {};
  try {
    params = raw === null ? {} : JSON.parse(raw);
  } catch {
    throw new FlowError("INVALID_ARGUMENT", `The params query of ${method} is not JSON.`, { method });
  }
  const controller = new AbortController();
  const iterable = ctx.extensions.stream(method, params, { caller, signal: controller.signal, host: ctx.host });
  return sseResponse(
    async (out) => {
      void (async () => {
        try {
          for await (const item of iterable) {
            if (controller.signal.aborted) return;
            out.send({ event: "data", data: item });
          }
          out.send({ event: "end", data: {} });
        } catch (error) {
          const e = FlowError.from(error);
          out.send({ event: "error", data: { code: e.code, message: e.message, status: httpStatusOf(e.code) } });
        }
        out.close();
      })();
      return () => controller.abort();
    },
    { clock: ctx.host.db.binding.env.clock, heartbeatMs: ctx.heartbeatMs },
  );
}
