/**
 * @module node/server/serve-app
 * `createServeApp(opts)`: a web app (an object with `fetch`) serving one run of one workflow
 * (SPEC.md "Serve app"): its status, events as SSE, frames, approvals, signals, cancellation
 * through the shared `abort` controller, and `/metrics`. Mount it on any server that takes a
 * fetch handler. Routes in docs/hosting.md "createServeApp".
 */
import type { Hono as HonoClass } from "hono";
import {
  bearerAuthenticate,
  createDomainHandler,
  DEFAULT_MAX_BODY_BYTES,
  errorResponse,
  LocalGatewayHost,
  okResponse,
  readJsonBody,
} from "../../core/api/index.js";
import { API_ROUTES, type DomainEnv, routeUrl } from "../../core/api/internal.js";
import { FlowDb } from "../../core/engine/index.js";
import type { FlowWorkflow } from "../../core/engine/index.js";
import { FlowError } from "../../core/errors.js";
import { lazyPackage } from "../../core/util/index.js";
import { createFlowMetrics } from "./metrics.js";
import { authenticateRoutes, forwardGet, surfaceFetch } from "./surface.js";
import { workflowUiMount } from "./ui/ui-config.js";
import { UiMounts } from "./ui/ui-mounts.js";

// Loaded when an app is made, not with the package (docs/package.md "What loads when").
const hono = lazyPackage<{ Hono: typeof HonoClass }>(import.meta, "hono", () => import("hono"));

/** SPEC.md `ServeOptions`. */
export interface ServeOptions {
  /** The workflow of the served run. */
  workflow: FlowWorkflow;
  /** The store, built from `workflow.db` (`new FlowDb(workflow.db)`). */
  adapter: FlowDb;
  /** The served run. */
  runId: string;
  /** Shared with the run: aborting it cancels the run (`POST /cancel` aborts it). */
  abort: AbortController;
  /** Token for every route but `/health` (bearer or `x-flow-key`); default env `FLOW_API_KEY`; off when neither. */
  authToken?: string;
  /** Expose `/metrics` (default true). */
  metrics?: boolean;
}

/** The serve app: a web-standard fetch handler. */
export interface ServeApp {
  fetch(req: Request): Promise<Response>;
}

/**
 * Serves one run.
 * @example
 * const abort = new AbortController();
 * const app = createServeApp({ workflow, adapter: new FlowDb(workflow.db), runId: "r1", abort });
 * serve({ fetch: app.fetch, port: 8080 }); // @hono/node-server, or any fetch-based server
 * await runWorkflow(workflow, { runId: "r1", input: {}, signal: abort.signal, stayWhileWaiting: true });
 */
export function createServeApp(opts: ServeOptions): ServeApp {
  if (!opts.workflow || !opts.adapter || !opts.runId || !opts.abort) {
    throw new FlowError("INVALID_ARGUMENT", "createServeApp needs workflow, adapter (new FlowDb(workflow.db)), runId and abort (an AbortController shared with the run).");
  }
  const { runId } = opts;
  // Runs the app resumes (a parked run woken by a delivery) are cancelled by the same controller;
  // the log is polled for events of the run the caller executes.
  const host = new LocalGatewayHost({ workflows: { [opts.workflow.readableName ?? "workflow"]: opts.workflow }, db: opts.adapter, eventPollMs: 250, runDefaults: { signal: opts.abort.signal } });
  const authenticate = bearerAuthenticate({ token: opts.authToken ?? process.env.FLOW_API_KEY, acceptFlowKey: true });
  const domain = createDomainHandler({ host, authenticate });
  const metrics = opts.metrics === false ? undefined : createFlowMetrics({ changes: host.changes, activeRunCount: () => host.activeRuns().length, subscriptionCount: () => host.subscriptionCount });
  const maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  const runPath = routeUrl(API_ROUTES.getRun, { runId });

  const app = new (hono().Hono)<DomainEnv>();
  app.get("/health", (c) => domain.fetch(c.req.raw));
  authenticateRoutes(app, domain);
  if (metrics) app.get("/metrics", () => metrics.respond());
  app.get("/run", (c) => forwardGet(domain, c.req.raw, runPath));
  app.get("/events", (c) => forwardGet(domain, c.req.raw, `${runPath}/events/stream`));
  app.get("/frames", (c) => forwardGet(domain, c.req.raw, `${runPath}/frames`));
  app.get("/approvals", async (c) => okResponse(await domain.invoke("listApprovals", { runId }, c.get("caller"))));
  app.post("/approvals/:nodeId", async (c) => {
    const body = (await readJsonBody(c.req.raw, maxBodyBytes)) as Record<string, unknown>;
    return okResponse(await domain.invoke("submitApproval", { ...body, runId, nodeId: c.req.param("nodeId") }, c.get("caller")));
  });
  app.post("/signals/:name", async (c) => {
    const body = (await readJsonBody(c.req.raw, maxBodyBytes)) as Record<string, unknown>;
    return okResponse(await domain.invoke("submitSignal", { ...body, runId, name: c.req.param("name") }, c.get("caller")));
  });
  app.post("/cancel", () => {
    opts.abort.abort();
    return okResponse({ runId, status: "cancelling" });
  });
  app.notFound((c) => errorResponse(new FlowError("ROUTE_NOT_FOUND", `No route ${c.req.method} ${new URL(c.req.url).pathname} in this serve app; see docs/hosting.md "createServeApp".`)));

  const fetch = surfaceFetch(app, { maxBodyBytes, metrics });
  const ui = serveAppUi(opts.workflow, runId);
  return { fetch: ui ? async (req) => (await ui.serve(req)) ?? fetch(req) : fetch };
}

/** The paths the serve app's own routes answer: never its UI's. */
const SERVE_ROUTES = /^\/(?:run|events|frames|approvals|signals|cancel)(?:\/|$)/;

/**
 * The workflow's `ui`, if set: served at its `path` (default `/`, the serve app being that
 * workflow's app) with boot props `workflow` and `runId`; no token needed for its files.
 */
function serveAppUi(workflow: FlowWorkflow, runId: string): UiMounts | undefined {
  if (workflow.ui?.kind !== "ui") return undefined;
  const key = workflow.readableName ?? "workflow";
  return new UiMounts(SERVE_ROUTES).add(workflowUiMount(key, workflow.ui, process.cwd(), { path: workflow.ui.path ?? "/", title: workflow.ui.title ?? key, props: { runId } }));
}
