/**
 * @module core/api/api-routes
 * The `/v1/api/*` routes the data client and the console use: REST-shaped reads and writes
 * over the RPC methods (same scopes, params and rows), plus what has no RPC method (frames,
 * events pages, scores, memory facts) and the change stream `GET /v1/api/stream`.
 * docs/hosting.md "Domain API" lists every route with its rows.
 */
import type { Hono } from "hono";
import { attachBinding } from "../engine/binding.js";
import type { ClockPort } from "../engine/world.js";
import { FlowError } from "../errors.js";
import { memoryStoreOf } from "../memory/index.js";
import { listScores } from "../scorers/index.js";
import { readJsonBody, readJsonObject } from "./body.js";
import { okResponse } from "./envelope.js";
import { runSummary } from "./read-model.js";
import { retryNode, retryNodeBody } from "./retry-node.js";
import type { DomainEnv } from "./handler.js";
import type { GatewayHost } from "./host.js";
import type { CallerIdentity } from "./identity.js";
import { mountMemoryRoutes } from "./memory-routes.js";
import { requireScope } from "./scopes.js";
import { sseResponse } from "./sse.js";
import { mountWaitRoutes } from "./wait-routes.js";

/** What the routes need from the handler. */
export interface ApiRouteDeps {
  host: GatewayHost;
  invoke(method: string, params: unknown, caller: CallerIdentity | null): Promise<unknown>;
  answer(result: unknown): Response;
  maxBodyBytes: number;
  heartbeatMs: number;
  clock(): ClockPort;
}

/** A non-negative integer query parameter (INVALID_ARGUMENT otherwise). */
function intParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new FlowError("INVALID_ARGUMENT", `The query parameter ${name} must be a non-negative integer, not "${value}".`, { [name]: value });
  return n;
}

/** The query parameters that are set, as an object. */
function defined(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined && v !== ""));
}

/**
 * Mounts `/v1/api/*` on the domain handler's app.
 * @example
 * mountApiRoutes(app, { host, invoke, answer, maxBodyBytes, heartbeatMs: 15000, clock: () => systemClock });
 */
export function mountApiRoutes(app: Hono<DomainEnv>, deps: ApiRouteDeps): void {
  const { host, invoke, answer } = deps;
  const body = (req: Request) => readJsonBody(req, deps.maxBodyBytes);
  const object = (req: Request, route: string) => readJsonObject(req, deps.maxBodyBytes, route);
  const call = async (method: string, params: unknown, caller: CallerIdentity | null) => answer(await invoke(method, params, caller));

  // ---- runs ----
  app.get("/v1/api/runs", (c) =>
    call("listRuns", defined({ status: c.req.query("status"), workflow: c.req.query("workflow"), limit: intParam(c.req.query("limit"), "limit"), cursor: c.req.query("cursor") }), c.get("caller")),
  );
  app.post("/v1/api/runs", async (c) => call("launchRun", await body(c.req.raw), c.get("caller")));
  app.get("/v1/api/runs/:runId", async (c) => {
    if (c.req.query("view") !== "summary") return call("getRun", { runId: c.req.param("runId") }, c.get("caller"));
    requireScope(c.get("caller"), "run:read", "GET /v1/api/runs/:runId?view=summary");
    return okResponse(await runSummary(host, c.req.param("runId")));
  });
  for (const action of ["resume", "pause", "cancel"] as const) {
    app.post(`/v1/api/runs/:runId/${action}`, async (c) => call(`${action}Run`, { ...(await object(c.req.raw, `POST /v1/api/runs/:runId/${action}`)), runId: c.req.param("runId") }, c.get("caller")));
  }
  app.get("/v1/api/runs/:runId/what-happened", (c) => call("whatHappened", { runId: c.req.param("runId") }, c.get("caller")));
  app.get("/v1/api/runs/:runId/usage", (c) => call("getRunUsage", { runId: c.req.param("runId") }, c.get("caller")));
  app.get("/v1/api/runs/:runId/nodes/:nodeId/transcript", (c) => call("getTranscript", { runId: c.req.param("runId"), nodeId: c.req.param("nodeId") }, c.get("caller")));
  app.get("/v1/api/runs/:runId/nodes/:nodeId/output", (c) =>
    call("getNodeOutput", defined({ runId: c.req.param("runId"), nodeId: c.req.param("nodeId"), iteration: intParam(c.req.query("iteration"), "iteration") }), c.get("caller")),
  );
  app.post("/v1/api/runs/:runId/rewind", async (c) => call("rewindRun", { ...(await object(c.req.raw, "POST /v1/api/runs/:runId/rewind")), runId: c.req.param("runId") }, c.get("caller")));
  app.post("/v1/api/runs/:runId/nodes/:nodeId/retry", async (c) => {
    requireScope(c.get("caller"), "run:write", "POST /v1/api/runs/:runId/nodes/:nodeId/retry");
    const parsed = retryNodeBody.safeParse(await body(c.req.raw));
    if (!parsed.success) throw new FlowError("INVALID_ARGUMENT", `POST /v1/api/runs/:runId/nodes/:nodeId/retry takes { iteration?, resetDependents?, resume? }: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}.`);
    return okResponse(await retryNode(host, { ...parsed.data, runId: c.req.param("runId"), nodeId: c.req.param("nodeId") }));
  });
  app.get("/v1/api/runs/:runId/nodes/:nodeId/diff", (c) =>
    call("getNodeDiff", defined({ runId: c.req.param("runId"), nodeId: c.req.param("nodeId"), iteration: intParam(c.req.query("iteration"), "iteration"), attempt: intParam(c.req.query("attempt"), "attempt") }), c.get("caller")),
  );
  app.get("/v1/api/runs/:runId/diff", (c) => call("getRunDiff", { runId: c.req.param("runId") }, c.get("caller")));
  app.get("/v1/api/runs/:runId/events", async (c) => {
    requireScope(c.get("caller"), "run:read", "GET /v1/api/runs/:runId/events");
    const runId = c.req.param("runId");
    await host.db.requireRun(runId);
    const events = await host.db.listEvents(runId, { afterSeq: intParam(c.req.query("afterSeq"), "afterSeq") ?? 0, limit: Math.min(intParam(c.req.query("limit"), "limit") ?? 1000, 10_000) });
    return okResponse({ runId, events, lastSeq: events.at(-1)?.seq ?? intParam(c.req.query("afterSeq"), "afterSeq") ?? 0 });
  });
  app.get("/v1/api/runs/:runId/events/stream", async (c) => {
    const afterSeq = intParam(c.req.header("last-event-id") ?? c.req.query("afterSeq"), "afterSeq") ?? 0;
    return call("streamRunEvents", { runId: c.req.param("runId"), afterSeq }, c.get("caller"));
  });
  app.get("/v1/api/runs/:runId/frames", async (c) => {
    requireScope(c.get("caller"), "run:read", "GET /v1/api/runs/:runId/frames");
    const runId = c.req.param("runId");
    await host.db.requireRun(runId);
    const frameNo = intParam(c.req.query("frameNo"), "frameNo");
    const frame = await host.db.getFrame(runId, frameNo);
    if (!frame) throw new FlowError("NOT_AVAILABLE", `Run ${runId} has no frame${frameNo === undefined ? " yet" : ` ${frameNo}`}.`, { runId, frameNo });
    return okResponse(frame);
  });

  // ---- people and signals ----
  app.get("/v1/api/approvals", (c) => call("listApprovals", defined({ runId: c.req.query("runId") }), c.get("caller")));
  app.post("/v1/api/approvals", async (c) => call("submitApproval", await body(c.req.raw), c.get("caller")));
  app.post("/v1/api/signals", async (c) => call("submitSignal", await body(c.req.raw), c.get("caller")));
  mountWaitRoutes(app, host, deps.maxBodyBytes);

  // ---- workflows, prompts, scores, memory ----
  app.get("/v1/api/workflows", (c) => call("listWorkflows", {}, c.get("caller")));
  app.get("/v1/api/prompts", (c) => call("listPrompts", defined({ runId: c.req.query("runId"), limit: intParam(c.req.query("limit"), "limit") }), c.get("caller")));
  app.get("/v1/api/scores", async (c) => {
    requireScope(c.get("caller"), "run:read", "GET /v1/api/scores");
    const filter = defined({ runId: c.req.query("runId"), nodeId: c.req.query("nodeId"), scorerId: c.req.query("scorerId") });
    return okResponse(await listScores(attachBinding({}, host.db.binding), filter));
  });
  app.get("/v1/api/memory/facts", async (c) => {
    requireScope(c.get("caller"), "memory:read", "GET /v1/api/memory/facts");
    const { store, env } = host.db.binding;
    const memory = memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() });
    const namespace = c.req.query("namespace");
    const facts = namespace ? await memory.listFacts(namespace) : await memory.listAllFacts();
    return okResponse(facts.map((f) => ({ ...f, value: JSON.parse(f.valueJson) as unknown })));
  });
  app.get("/v1/api/memory/notes", async (c) => {
    requireScope(c.get("caller"), "memory:read", "GET /v1/api/memory/notes");
    const namespace = c.req.query("namespace");
    if (!namespace) throw new FlowError("INVALID_ARGUMENT", "GET /v1/api/memory/notes needs ?namespace=<kind>:<id> (for example workflow:review).");
    const { store, env } = host.db.binding;
    return okResponse(await memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() }).listNotes(namespace));
  });
  mountMemoryRoutes(app, host);

  // ---- crons ----
  app.get("/v1/api/crons", (c) => call("cronList", {}, c.get("caller")));
  app.post("/v1/api/crons", async (c) => call("cronCreate", await body(c.req.raw), c.get("caller")));
  app.delete("/v1/api/crons/:cronId", (c) => call("cronDelete", { cronId: c.req.param("cronId") }, c.get("caller")));
  app.post("/v1/api/crons/:cronId/run", (c) => call("cronRun", { cronId: c.req.param("cronId") }, c.get("caller")));

  // ---- change stream ----
  app.get("/v1/api/stream", (c) => {
    requireScope(c.get("caller"), "run:read", "GET /v1/api/stream");
    const lastEventId = c.req.header("last-event-id") ?? c.req.query("lastEventId");
    return sseResponse(
      async (out) => {
        const feed = host.changes;
        if (!lastEventId) {
          // A fresh client has just fetched: it only needs an id to resume from later.
          out.send({ event: "heartbeat", id: feed.lastId, data: { atMs: host.now() } });
        } else {
          // A reconnect resumes after its id, or gets `reset` (refetch everything) when the
          // changes since are gone: the host restarted or the client is too far behind.
          const backlog = feed.since(lastEventId);
          if (backlog.kind === "reset") out.send({ event: "reset", id: feed.lastId, data: { lastEventId } });
          else for (const change of backlog.changes) out.send({ event: "change", id: change.id, data: change });
        }
        return feed.subscribe((change) => out.send({ event: "change", id: change.id, data: change }));
      },
      { clock: deps.clock(), heartbeatMs: deps.heartbeatMs },
    );
  });
}
