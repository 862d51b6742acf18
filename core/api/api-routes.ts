/**
 * @module core/api/api-routes
 * Mounts the `/v1/api/*` routes of the contract (core/api/contract.ts `API_ROUTES`) on the
 * domain handler's app: a route that names an RPC method calls it with its path parameters,
 * query and body merged (same scopes, params and rows); the others have a handler here or in
 * wait-routes.ts and memory-routes.ts, and their scope is checked before it runs. The change
 * stream `GET /v1/api/stream` is one of them. docs/hosting.md "Domain API" lists every route.
 */
import type { Context, Hono } from "hono";
import { attachBinding } from "../engine/index.js";
import type { ClockPort } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { memoryStoreOf } from "../memory/index.js";
import { listScores } from "../scorers/index.js";
import { readJsonBody, readJsonObject } from "./body.js";
import { API_ROUTES, type ApiRoute, type ApiRouteName, HEADERS, routeLabel, routeScope } from "./contract.js";
import { okResponse } from "./envelope.js";
import { runSummary } from "./read-model.js";
import { retryNode, retryNodeBody } from "./retry-node.js";
import type { GatewayHost } from "./host.js";
import type { CallerIdentity, DomainEnv } from "./identity.js";
import { memoryRouteHandlers } from "./memory-routes.js";
import { requireScope } from "./scopes.js";
import { sseResponse } from "./sse.js";
import { waitRouteHandlers } from "./wait-routes.js";
import { workflowUsage } from "./workflow-usage.js";

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

/** The routes with no RPC method: each has a handler. */
export type CustomRouteName = { [K in ApiRouteName]: (typeof API_ROUTES)[K] extends { rpc: string } ? never : K }[ApiRouteName];

/**
 * The handler of a route with no RPC method (its scope is checked before it runs).
 * @example
 * const handler: RouteHandler = async (c) => okResponse(await host.db.listRuns({ limit: 1 }));
 */
export type RouteHandler = (c: Context<DomainEnv>) => Promise<Response> | Response;

/**
 * The params of an RPC route: the body as given when there is nothing else, else the body (a
 * JSON object, INVALID_ARGUMENT otherwise) with its path parameters and set query parameters.
 */
async function rpcParams(c: Context<DomainEnv>, route: ApiRoute, maxBodyBytes: number): Promise<unknown> {
  const query = defined(Object.fromEntries(Object.entries(route.query ?? {}).map(([name, kind]) => [name, kind === "int" ? intParam(c.req.query(name), name) : c.req.query(name)])));
  const extra = { ...c.req.param(), ...query };
  if (!route.body) return extra;
  if (Object.keys(extra).length === 0) return readJsonBody(c.req.raw, maxBodyBytes);
  return { ...(await readJsonObject(c.req.raw, maxBodyBytes, routeLabel(route))), ...extra };
}

/**
 * Mounts `/v1/api/*` on the domain handler's app.
 * @example
 * mountApiRoutes(app, { host, invoke, answer, maxBodyBytes, heartbeatMs: 15000, clock: () => systemClock });
 */
export function mountApiRoutes(app: Hono<DomainEnv>, deps: ApiRouteDeps): void {
  const handlers: Record<CustomRouteName, RouteHandler> = { ...customHandlers(deps), ...waitRouteHandlers(deps.host, deps.maxBodyBytes), ...memoryRouteHandlers(deps.host) };
  // Routes of one verb and path (`GET /v1/api/runs/:runId` and its `?view=summary`) share a mount.
  const byPath = new Map<string, Array<[ApiRouteName, ApiRoute]>>();
  for (const [name, route] of Object.entries(API_ROUTES) as Array<[ApiRouteName, ApiRoute]>) {
    const key = `${route.verb} ${route.path}`;
    byPath.set(key, [...(byPath.get(key) ?? []), [name, route]]);
  }
  for (const routes of byPath.values()) {
    const [, first] = routes[0]!;
    app.on(first.verb, first.path, async (c) => {
      const selected = ([, r]: [ApiRouteName, ApiRoute]) => r.fixed !== undefined && Object.entries(r.fixed).every(([k, v]) => c.req.query(k) === v);
      const [name, route] = routes.find(selected) ?? routes.find(([, r]) => !r.fixed)!;
      if (route.rpc) return deps.answer(await deps.invoke(route.rpc, await rpcParams(c, route, deps.maxBodyBytes), c.get("caller")));
      requireScope(c.get("caller"), routeScope(route), routeLabel(route));
      return handlers[name as CustomRouteName](c);
    });
  }
}

/** The handlers of the routes with no RPC method that live here. */
function customHandlers(deps: ApiRouteDeps): Omit<Record<CustomRouteName, RouteHandler>, keyof ReturnType<typeof waitRouteHandlers> | keyof ReturnType<typeof memoryRouteHandlers>> {
  const { host, invoke, answer } = deps;
  const memory = () => {
    const { store, env } = host.db.binding;
    return memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() });
  };
  return {
    getRunSummary: async (c) => okResponse(await runSummary(host, c.req.param("runId")!)),
    getWorkflowUsage: async (c) => okResponse(await workflowUsage(host, c.req.param("workflow")!, { days: intParam(c.req.query("days"), "days") ?? 30, nowMs: host.db.binding.env.clock.now() })),
    retryNode: async (c) => {
      const parsed = retryNodeBody.safeParse(await readJsonBody(c.req.raw, deps.maxBodyBytes));
      if (!parsed.success) throw new FlowError("INVALID_ARGUMENT", `${routeLabel(API_ROUTES.retryNode)} takes { iteration?, resetDependents?, resume? }: ${parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}.`);
      return okResponse(await retryNode(host, { ...parsed.data, runId: c.req.param("runId")!, nodeId: c.req.param("nodeId")! }));
    },
    listRunEvents: async (c) => {
      const runId = c.req.param("runId")!;
      await host.db.requireRun(runId);
      const events = await host.db.listEvents(runId, { afterSeq: intParam(c.req.query("afterSeq"), "afterSeq") ?? 0, limit: Math.min(intParam(c.req.query("limit"), "limit") ?? 1000, 10_000) });
      return okResponse({ runId, events, lastSeq: events.at(-1)?.seq ?? intParam(c.req.query("afterSeq"), "afterSeq") ?? 0 });
    },
    streamRunEvents: async (c) => {
      const afterSeq = intParam(c.req.header(HEADERS.lastEventId) ?? c.req.query("afterSeq"), "afterSeq") ?? 0;
      return answer(await invoke("streamRunEvents", { runId: c.req.param("runId"), afterSeq }, c.get("caller")));
    },
    getFrame: async (c) => {
      const runId = c.req.param("runId")!;
      await host.db.requireRun(runId);
      const frameNo = intParam(c.req.query("frameNo"), "frameNo");
      const frame = await host.db.getFrame(runId, frameNo);
      if (!frame) throw new FlowError("NOT_AVAILABLE", `Run ${runId} has no frame${frameNo === undefined ? " yet" : ` ${frameNo}`}.`, { runId, frameNo });
      return okResponse(frame);
    },
    listScores: async (c) => {
      const filter = defined({ runId: c.req.query("runId"), nodeId: c.req.query("nodeId"), scorerId: c.req.query("scorerId") });
      return okResponse(await listScores(attachBinding({}, host.db.binding), filter));
    },
    listMemoryFacts: async (c) => {
      const namespace = c.req.query("namespace");
      const facts = namespace ? await memory().listFacts(namespace) : await memory().listAllFacts();
      return okResponse(facts.map((f) => ({ ...f, value: JSON.parse(f.valueJson) as unknown })));
    },
    listMemoryNotes: async (c) => {
      const namespace = c.req.query("namespace");
      if (!namespace) throw new FlowError("INVALID_ARGUMENT", `${routeLabel(API_ROUTES.listMemoryNotes)} needs ?namespace=<kind>:<id> (for example workflow:review).`);
      return okResponse(await memory().listNotes(namespace));
    },
    changeStream: (c) => changeStream(c, deps),
  };
}

/** `GET /v1/api/stream`: invalidations as SSE, resumed from `Last-Event-ID`. */
function changeStream(c: Context<DomainEnv>, deps: ApiRouteDeps): Response {
  const { host } = deps;
  const lastEventId = c.req.header(HEADERS.lastEventId) ?? c.req.query("lastEventId");
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
}
