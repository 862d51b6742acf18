/**
 * @module node/server/start-server
 * `startServer(opts)`: the single HTTP server (SPEC.md "Single HTTP server"). It serves
 * workflows by file path under `rootDir` and the whole domain API (core/api/handler.ts) on one
 * port, with bearer auth (`authToken` or `FLOW_API_KEY`), `/metrics` and the Node timeouts.
 * Routes are listed in docs/hosting.md "startServer".
 */
import type { Server } from "node:http";
import type { serve as Serve } from "@hono/node-server";
import type { Hono as HonoClass } from "hono";
import { bearerAuthenticate, createDomainHandler, DEFAULT_MAX_BODY_BYTES, LocalGatewayHost, okResponse, readJsonBody } from "../../core/api/index.js";
import { API_ROUTES, type DomainEnv, PATHS, routeUrl } from "../../core/api/internal.js";
import { FlowError } from "../../core/errors.js";
import { lazyPackage } from "../../core/util/index.js";
import { createFlowMetrics } from "./metrics.js";
import { authenticateRoutes, forwardGet, surfaceFetch } from "./surface.js";
import { workflowKeyOfPath, workflowPathLoader } from "./workflow-paths.js";

// Loaded when a server starts, not with the package (docs/package.md "What loads when").
const hono = lazyPackage<{ Hono: typeof HonoClass }>(import.meta, "hono", () => import("hono"));
const nodeServer = lazyPackage<{ serve: typeof Serve }>(import.meta, "@hono/node-server", () => import("@hono/node-server"));

/** SPEC.md `ServerOptions`. */
export interface ServerOptions {
  /** Default 7331; 0 picks a free port (read it from `server.address()`). */
  port?: number;
  /** A store (`FlowDb` or a factory's `db` handle): enables `GET /v1/runs` and `GET /v1/approvals`, and is where runs are read from. */
  db?: object;
  /** Bearer token every route but `/health` requires; default env `FLOW_API_KEY`; auth is off when neither is set. */
  authToken?: string;
  /** Default 1048576. */
  maxBodyBytes?: number;
  /** Sandbox root of workflow paths and tools (default: the process working directory). */
  rootDir?: string;
  /** Network access of the `bash` tool in runs (default false). */
  allowNetwork?: boolean;
  /** Default 30000 ms. */
  headersTimeout?: number;
  /** Default 60000 ms. */
  requestTimeout?: number;
  /** Interface to listen on (default: all, as Node's `listen`). */
  hostname?: string;
}

/** What `startServer` returns: a listening Node HTTP server; `close()` also pauses its active runs and ends open event streams. */
export type FlowServer = Server;

/**
 * Starts the HTTP server (synchronously: it is listening, or about to, when this returns).
 * @example
 * const server = startServer({ port: 0, rootDir: "./flows", authToken: "s3cret" });
 * server.once("listening", () => console.log((server.address() as AddressInfo).port));
 * // POST /v1/runs {"workflowPath":"review.tsx","input":{"repo":"."}}  ->  {"ok":true,"result":{"runId":"..."}}
 */
export function startServer(opts: ServerOptions = {}): FlowServer {
  const rootDir = opts.rootDir ?? process.cwd();
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const host = new LocalGatewayHost({
    ...(opts.db ? { db: opts.db } : {}),
    loadWorkflow: workflowPathLoader(rootDir),
    // Runs of the same store executed by another process (a `flow up`) stream too.
    eventPollMs: 1000,
    runDefaults: { rootDir, allowNetwork: opts.allowNetwork ?? false },
  });
  const authenticate = bearerAuthenticate({ token: opts.authToken ?? process.env.FLOW_API_KEY });
  const domain = createDomainHandler({ host, authenticate, maxBodyBytes });
  const metrics = createFlowMetrics({ changes: host.changes, activeRunCount: () => host.activeRuns().length, subscriptionCount: () => host.subscriptionCount });
  const requireDb = (route: string) => {
    if (!host.hasDb) throw new FlowError("NOT_AVAILABLE", `${route} needs the server's db option (startServer({ db })).`, { route });
  };

  const app = new (hono().Hono)<DomainEnv>();
  // The domain API authenticates on its own (and leaves /health open).
  for (const path of [PATHS.health, PATHS.workflows, PATHS.rpcEnvelope, `${PATHS.rpc}*`, `${PATHS.api}*`]) app.all(path, (c) => domain.fetch(c.req.raw));
  authenticateRoutes(app, domain);
  app.get("/metrics", () => metrics.respond());

  const invoke = async (method: string, params: unknown, caller: DomainEnv["Variables"]["caller"]) => okResponse(await domain.invoke(method, params, caller));
  const body = async (req: Request) => (await readJsonBody(req, maxBodyBytes)) as Record<string, unknown>;

  app.post(`${PATHS.served}`, async (c) => {
    const b = await body(c.req.raw);
    const paths = Array.isArray(b.workflowPaths) ? (b.workflowPaths as unknown[]) : [b.workflowPath];
    if (paths.length === 0 || paths.some((p) => typeof p !== "string" || p === "")) {
      throw new FlowError("INVALID_ARGUMENT", `POST ${PATHS.served} takes { "workflowPath": "<file under rootDir>", "input": {...} } (or "workflowPaths": [...] to start several).`);
    }
    const started: unknown[] = [];
    for (const path of paths as string[]) {
      const workflow = workflowKeyOfPath(rootDir, path);
      const runId = paths.length === 1 && typeof b.runId === "string" ? { runId: b.runId } : {};
      started.push(await domain.invoke("launchRun", { workflow, input: b.input ?? {}, ...runId }, c.get("caller")));
    }
    return okResponse(paths.length === 1 && !Array.isArray(b.workflowPaths) ? started[0] : started, 202);
  });
  app.get(`${PATHS.served}`, (c) => {
    requireDb(`GET ${PATHS.served}`);
    const limit = c.req.query("limit");
    return invoke("listRuns", { ...(c.req.query("status") ? { status: c.req.query("status") } : {}), ...(limit ? { limit: Number(limit) } : {}), ...(c.req.query("cursor") ? { cursor: c.req.query("cursor") } : {}) }, c.get("caller"));
  });
  app.get(`${PATHS.served}/:runId`, (c) => invoke("getRun", { runId: c.req.param("runId") }, c.get("caller")));
  app.post(`${PATHS.served}/:runId/resume`, async (c) => invoke("resumeRun", { ...(await body(c.req.raw)), runId: c.req.param("runId") }, c.get("caller")));
  app.post(`${PATHS.served}/:runId/cancel`, (c) => invoke("cancelRun", { runId: c.req.param("runId") }, c.get("caller")));
  app.get(`${PATHS.served}/:runId/events`, (c) => forwardGet(domain, c.req.raw, routeUrl(API_ROUTES.streamRunEvents, { runId: c.req.param("runId") })));
  app.get(`${PATHS.served}/:runId/frames`, (c) => forwardGet(domain, c.req.raw, routeUrl(API_ROUTES.getFrame, { runId: c.req.param("runId") })));
  app.get(`${PATHS.servedApprovals}`, (c) => {
    requireDb(`GET ${PATHS.servedApprovals}`);
    return invoke("listApprovals", c.req.query("runId") ? { runId: c.req.query("runId") } : {}, c.get("caller"));
  });
  app.post(`${PATHS.served}/:runId/approvals/:nodeId`, async (c) => invoke("submitApproval", { ...(await body(c.req.raw)), runId: c.req.param("runId"), nodeId: c.req.param("nodeId") }, c.get("caller")));
  app.post(`${PATHS.served}/:runId/signals/:name`, async (c) => invoke("submitSignal", { ...(await body(c.req.raw)), runId: c.req.param("runId"), name: c.req.param("name") }, c.get("caller")));
  app.all("*", (c) => domain.fetch(c.req.raw));

  const server = nodeServer().serve({
    fetch: surfaceFetch(app, { maxBodyBytes, metrics }),
    port: opts.port ?? 7331,
    ...(opts.hostname ? { hostname: opts.hostname } : {}),
    serverOptions: { headersTimeout: opts.headersTimeout ?? 30_000, requestTimeout: opts.requestTimeout ?? 60_000 },
  }) as Server;
  const close = server.close.bind(server);
  server.close = ((cb?: (err?: Error) => void) => {
    metrics.close();
    void host.close().finally(() => {
      close(cb);
      // Open event streams never end on their own: close them with the server.
      server.closeAllConnections();
    });
    return server;
  }) as Server["close"];
  return server;
}
