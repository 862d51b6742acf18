/**
 * @module core/api/handler
 * `createDomainHandler`: the domain API as one web-standard `fetch` handler (a Hono app), the
 * same in Node, a Web Worker and a service worker (DESIGN.md seam 2). Routes: `GET /health`,
 * `GET /workflows`, `POST /v1/rpc/<method>` (extension methods `ext.*` too), `POST /rpc`,
 * `/v1/api/*` with the change stream `GET /v1/api/stream`, and extension streams
 * `GET /v1/ext/<namespace>/<key>/stream`: one router for every path of the contract
 * (core/api/contract.ts). Every answer is an envelope (core/api/envelope.ts); the body limit,
 * the Origin check and authentication run before routing. See docs/hosting.md.
 */
import type { Hono } from "hono";
import { systemClock } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { mountApiRoutes } from "./api-routes.js";
import { assertDeclaredSize, readJsonBody } from "./body.js";
import { PATHS } from "./contract.js";
import { errorResponse, jsonResponse, okResponse } from "./envelope.js";
import { type DomainExtensions, EXTENSION_PREFIX, mountExtensionStreams } from "./ext-routes.js";
import type { GatewayHost } from "./host.js";
import type { Authenticate, CallerIdentity, DomainEnv } from "./identity.js";
import { invokeRpc, RPC_METHODS } from "./rpc-methods.js";
import { isRpcStream, type RpcStream } from "./rpc-types.js";
import type { RpcMethodName } from "./scopes.js";
import { sseResponse } from "./sse.js";

/**
 * Default body limit (SPEC.md Limits).
 * @example
 * createDomainHandler({ host, maxBodyBytes: 4 * DEFAULT_MAX_BODY_BYTES });
 */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** Options of `createDomainHandler`. */
export interface DomainHandlerOptions {
  host: GatewayHost;
  /** Default: no auth (every caller is anonymous and may do everything). */
  authenticate?: Authenticate;
  /** Default 1048576; bodies over it answer 413 PAYLOAD_TOO_LARGE on every route. */
  maxBodyBytes?: number;
  /** Browser origins allowed to call (empty or absent: no check; requests without `Origin` always pass). */
  allowedOrigins?: string[];
  /** Advertised on `/health` (default 1). */
  protocol?: number;
  /** Advertised on `/health` (default `["streaming", "runs"]`). */
  features?: string[];
  /** Heartbeat interval of SSE streams (default 15000 ms). */
  heartbeatMs?: number;
  /** Extension methods and streams (`ext.<namespace>.<key>`; the Gateway's `extend`). */
  extensions?: DomainExtensions;
}

/** The domain API. */
export interface DomainHandler {
  /** Answers a request. */
  fetch(req: Request): Promise<Response>;
  /** Calls an RPC method as `caller` (what WebSocket request frames use); streaming methods resolve to an `RpcStream`. */
  invoke(method: string, params: unknown, caller: CallerIdentity | null): Promise<unknown>;
  /** Authenticates a request (the Origin check included), as every route but `/health` does. */
  authenticate(req: Request): Promise<CallerIdentity | null>;
  /** The RPC method names. */
  methods: RpcMethodName[];
}

/** Hono variables of a request. */
/**
 * Builds the domain API of a host.
 * @example
 * const api = createDomainHandler({ host: new LocalGatewayHost({ workflows: { review } }), authenticate: bearerAuthenticate({ token: "s3cret" }) });
 * const res = await api.fetch(new Request("http://flow/v1/rpc/listWorkflows", { method: "POST", headers: { authorization: "Bearer s3cret" }, body: "{}" }));
 */
export function createDomainHandler(opts: DomainHandlerOptions): DomainHandler {
  const { host } = opts;
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const allowed = opts.allowedOrigins ?? [];
  const clock = () => {
    try {
      return host.db.binding.env.clock;
    } catch {
      return undefined;
    }
  };
  const invoke = (method: string, params: unknown, caller: CallerIdentity | null) => invokeRpc(host, method, params, caller);

  const authenticate = async (req: Request): Promise<CallerIdentity | null> => {
    const origin = req.headers.get("origin");
    if (allowed.length > 0 && origin !== null && !allowed.includes(origin)) {
      throw new FlowError("FORBIDDEN", `Requests from origin ${origin} are not allowed; allowed origins: ${allowed.join(", ")}.`, { origin });
    }
    return opts.authenticate ? opts.authenticate(req) : null;
  };

  /** An RPC result as a response: JSON envelope, or SSE frames for a stream. */
  const answer = (result: unknown): Response => (isRpcStream(result) ? streamResponse(result) : okResponse(result));
  const streamResponse = (stream: RpcStream): Response =>
    sseResponse(
      (out) =>
        stream.open({
          next: (f) => out.send({ event: f.event, ...(f.seq !== undefined ? { id: String(f.seq) } : {}), data: f.payload }),
          end: () => {
            out.send({ event: "end", data: {} });
            out.close();
          },
        }),
      { clock: clock() ?? systemClock, heartbeatMs },
    );

  // The routes are a Hono app, made (and hono loaded) at the first request: hosting code is
  // not paid for by a process that never serves (docs/package.md "What loads when").
  let routes: Promise<Hono<DomainEnv>> | undefined;
  const makeRoutes = async (): Promise<Hono<DomainEnv>> => {
    const { Hono } = await import("hono");
    const app = new Hono<DomainEnv>();
    app.onError((err) => errorResponse(err));
    app.notFound((c) => errorResponse(new FlowError("ROUTE_NOT_FOUND", `No route ${c.req.method} ${new URL(c.req.url).pathname}; see docs/hosting.md for the routes.`, { method: c.req.method, path: new URL(c.req.url).pathname })));
    app.get(PATHS.health, () => jsonResponse({ ok: true, status: "ok", protocol: opts.protocol ?? 1, features: opts.features ?? ["streaming", "runs"] }));
    app.use("*", async (c, next) => {
      c.set("caller", await authenticate(c.req.raw));
      await next();
    });
    app.get(PATHS.workflows, async (c) => answer(await invoke("listWorkflows", {}, c.get("caller"))));
    app.post(`${PATHS.rpc}:method`, async (c) => {
      const method = c.req.param("method");
      const params = await readJsonBody(c.req.raw, maxBodyBytes);
      if (opts.extensions && method.startsWith(EXTENSION_PREFIX)) return okResponse(await opts.extensions.call(method, params, { caller: c.get("caller"), signal: c.req.raw.signal, host }));
      return answer(await invoke(method, params, c.get("caller")));
    });
    app.post(PATHS.rpcEnvelope, async (c) => {
      const body = await readJsonBody(c.req.raw, maxBodyBytes);
      if (typeof body !== "object" || body === null || typeof (body as { method?: unknown }).method !== "string") {
        throw new FlowError("INVALID_ARGUMENT", 'POST /rpc takes { "method": "<name>", "params": { ... } }.');
      }
      const { method, params } = body as { method: string; params?: unknown };
      return answer(await invoke(method, params ?? {}, c.get("caller")));
    });
    mountApiRoutes(app, { host, invoke, answer, maxBodyBytes, heartbeatMs, clock: () => clock() ?? systemClock });
    mountExtensionStreams(app, { host, extensions: opts.extensions, heartbeatMs, clock: () => clock() ?? systemClock });
    return app;
  };

  return {
    async fetch(req) {
      try {
        assertDeclaredSize(req, maxBodyBytes);
        return await (await (routes ??= makeRoutes())).fetch(req);
      } catch (error) {
        return errorResponse(error);
      }
    },
    invoke,
    authenticate,
    methods: Object.keys(RPC_METHODS) as RpcMethodName[],
  };
}
