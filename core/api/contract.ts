/**
 * @module core/api/contract
 * The wire contract between Flow's servers and clients, declared once (DESIGN.md "One domain
 * API, declared once"): every `/v1/api/*` route (verb, path, scope, the RPC method it calls,
 * its query parameters), the RPC and extension paths, the headers and the run annotation keys
 * that cross the wire. Derived from it: the domain handler's mounting (core/api/api-routes.ts,
 * core/api/handler.ts), the data client's `DataApi` (core/data/data-api.ts), the gateway
 * client's paths (core/client/gateway-client.ts) and the route table in docs/hosting.md
 * (`routeTable()`, checked by core/api/contract.test.ts). A `/v1/` literal anywhere else in
 * the product's source fails test/static-analysis.test.ts.
 *
 * RPC methods are declared by their registry (core/api/rpc-*.ts: scope, zod params, handler;
 * core/client/rpc-map.ts derives their types); a route that calls one names it (`rpc`) and
 * takes its scope, params and result from it. Result schemas (zod, the answer types derived
 * from them) are in core/api/results.ts: a method's `result`, a route's own `result`.
 */
import { z } from "zod";
import { ANNOTATIONS } from "../protocol.js";
import { deliveryResultSchema, runEventsPageSchema, runSummaryRowSchema } from "./results.js";
import { retryNodeResultSchema, waitInfoSchema } from "./results-changes.js";
import { memoryFactRowSchema, memoryNamespaceInfoSchema, memoryNoteSchema, scoreRowSchema } from "./results-data.js";
import { graphSnapshotSchema, workflowUsageSchema } from "./results-reads.js";
import { METHOD_SCOPES, type RpcMethodName, type Scope } from "./scopes.js";

/** The fixed paths of the protocol. */
export const PATHS = {
  /** Every versioned route starts here. */
  v1: "/v1/",
  /** `/v1/api/*`: the REST-shaped routes (`API_ROUTES`). */
  api: "/v1/api/",
  /** `POST /v1/rpc/<method>`: one RPC method per request (extension methods `ext.<namespace>.<key>` too). */
  rpc: "/v1/rpc/",
  /** `POST /rpc` with `{ method, params }`. */
  rpcEnvelope: "/rpc",
  /** `GET /v1/ext/<namespace>/<key>/stream?params=<json>`: an extension stream as SSE. */
  extStream: "/v1/ext/:namespace/:key/stream",
  health: "/health",
  workflows: "/workflows",
  /** The served app's run routes (node/server/start-server.ts, docs/hosting.md "startServer"). */
  served: "/v1/runs",
  servedApprovals: "/v1/approvals",
} as const;

/** Annotation keys: core/protocol.ts (the engine reads them too), re-exported as part of the contract. */
export { ANNOTATIONS };

/** The headers the protocol reads. */
export const HEADERS = {
  authorization: "authorization",
  contentType: "content-type",
  /** SSE resume point (run events, the change stream). */
  lastEventId: "last-event-id",
  /**
   * An id the browser makes for a write it may send more than once (a write queued offline):
   * the Gateway applies each id once and answers a resend with the first answer.
   */
  writeId: "flow-write-id",
} as const;


/** How a query parameter is read: as given, or a non-negative integer (INVALID_ARGUMENT otherwise). */
export type QueryKind = "string" | "int";

/**
 * One `/v1/api/*` route.
 * @example
 * const route: ApiRoute = { verb: "GET", path: "/v1/api/workflows", rpc: "listWorkflows", doc: "`GatewayWorkflowRow[]`" };
 */
export interface ApiRoute {
  verb: "GET" | "POST" | "DELETE";
  /** With `:name` path parameters. */
  path: string;
  /** The RPC method the route calls with its path parameters, query and body merged; its scope and params apply. */
  rpc?: RpcMethodName;
  /** The scope of a route with no RPC method (checked before its handler runs). */
  scope?: Scope;
  /** The query parameters the route reads. */
  query?: Readonly<Record<string, QueryKind>>;
  /** Query parameters that select this route among others of the same verb and path (`?view=summary`). */
  fixed?: Readonly<Record<string, string>>;
  /** True when the route takes a JSON body. */
  body?: boolean;
  /**
   * What a route with no RPC method answers, as a schema (core/api/results.ts); a route that
   * calls one answers its method's `result`. Checked against real answers by
   * node/server/contract-results.test.tsx.
   */
  result?: z.ZodType;
  /** True for a route that answers server-sent events (no JSON result). */
  stream?: true;
  /** What it answers (the docs' route table). */
  doc: string;
}

const run = "/v1/api/runs/:runId";

/**
 * Every `/v1/api/*` route, by the name of the `DataApi` method that calls it.
 * @example
 * API_ROUTES.listRuns; // { verb: "GET", path: "/v1/api/runs", rpc: "listRuns", query: { status, workflow, limit, cursor } }
 */
export const API_ROUTES = {
  // ---- runs ----
  listRuns: { verb: "GET", path: "/v1/api/runs", rpc: "listRuns", query: { status: "string", workflow: "string", limit: "int", cursor: "string" }, doc: "`{ runs, nextCursor }`" },
  launchRun: { verb: "POST", path: "/v1/api/runs", rpc: "launchRun", body: true, doc: "`launchRun` (body = its params)" },
  getRun: { verb: "GET", path: run, rpc: "getRun", doc: "`GatewayRunRow`" },
  getRunSummary: {
    verb: "GET",
    path: run,
    fixed: { view: "summary" },
    scope: "run:read",
    result: runSummaryRowSchema,
    doc: "only the run's `GatewayRunSummaryRow` (two reads, no nodes: what the data layer refreshes a changed run with)",
  },
  resumeRun: { verb: "POST", path: `${run}/resume`, rpc: "resumeRun", body: true, doc: "as the RPC" },
  pauseRun: { verb: "POST", path: `${run}/pause`, rpc: "pauseRun", body: true, doc: "as the RPC" },
  cancelRun: { verb: "POST", path: `${run}/cancel`, rpc: "cancelRun", body: true, doc: "as the RPC" },
  listRunEvents: { verb: "GET", path: `${run}/events`, scope: "run:read", query: { afterSeq: "int", limit: "int" }, result: runEventsPageSchema, doc: "`{ runId, events, lastSeq }` (a page of the log, default 1000)" },
  streamRunEvents: { verb: "GET", path: `${run}/events/stream`, scope: "run:read", query: { afterSeq: "int" }, stream: true, doc: "SSE of `run.event`, resumed from `Last-Event-ID` (or `?afterSeq=`)" },
  getFrame: { verb: "GET", path: `${run}/frames`, scope: "run:read", query: { frameNo: "int" }, result: graphSnapshotSchema, doc: "a `GraphSnapshot` (default the latest)" },
  getNodeOutput: { verb: "GET", path: `${run}/nodes/:nodeId/output`, rpc: "getNodeOutput", query: { iteration: "int" }, doc: "`getNodeOutput`" },
  whatHappened: { verb: "GET", path: `${run}/what-happened`, rpc: "whatHappened", doc: "`whatHappened`" },
  getRunUsage: { verb: "GET", path: `${run}/usage`, rpc: "getRunUsage", doc: "`getRunUsage`: agents' tokens and cost, child runs included, `{ total, byNode }` ([agents.md](agents.md#cost))" },
  getTranscript: { verb: "GET", path: `${run}/nodes/:nodeId/transcript`, rpc: "getTranscript", doc: "`getTranscript`: the task's agent transcript so far, per attempt ([agents.md](agents.md#transcripts))" },
  retryNode: {
    verb: "POST",
    path: `${run}/nodes/:nodeId/retry`,
    scope: "run:write",
    body: true,
    result: retryNodeResultSchema,
    doc: "body `{ iteration?, resetDependents?, keepDecisions?, resume?, preview? }` (defaults: the latest iteration, `true`, `false`, `true`): resets a `failed` or `cancelled` task and what depends on it (`retryTask`; earlier attempts stay as history; a denied approval is asked again unless `keepDecisions`), then resumes the run; answers `{ runId, status, resetNodes, decisions }` (`preview: true` changes nothing and answers the decisions it would ask again or keep). INVALID_TRANSITION (409) when the run executes in this host (pause or cancel it first) or the task is not failed/cancelled (rewind to run a finished task again); NODE_NOT_FOUND, RUN_NOT_FOUND (404)",
  },
  rewindRun: { verb: "POST", path: `${run}/rewind`, rpc: "rewindRun", body: true, doc: "`rewindRun` (body = its params without `runId`): time travel to a task attempt ([time travel](time-travel.md))" },
  forkRun: { verb: "POST", path: `${run}/fork`, rpc: "forkRun", body: true, doc: "`forkRun` (body = its params without `runId`): a new run from a task attempt, on the same or an edited input ([time travel](time-travel.md#fork-and-replay))" },
  getNodeDiff: { verb: "GET", path: `${run}/nodes/:nodeId/diff`, rpc: "getNodeDiff", query: { iteration: "int", attempt: "int" }, doc: "`getNodeDiff` (`{ runId, from, to, files }`; VCS_FAILED when the run has no workspace snapshots)" },
  getFileDiff: { verb: "GET", path: `${run}/nodes/:nodeId/diff/file`, rpc: "getFileDiff", query: { path: "string", iteration: "int", attempt: "int" }, doc: "`getFileDiff` (`{ runId, from, to, path, patch, truncated }`: one file's unified diff in the attempt)" },
  getRunDiff: { verb: "GET", path: `${run}/diff`, rpc: "getRunDiff", doc: "`getRunDiff` (as `getNodeDiff`, for the whole run)" },
  // ---- people and signals ----
  listApprovals: { verb: "GET", path: "/v1/api/approvals", rpc: "listApprovals", query: { runId: "string" }, doc: "`listApprovals`" },
  submitApproval: { verb: "POST", path: "/v1/api/approvals", rpc: "submitApproval", body: true, doc: "`submitApproval`" },
  submitSignal: { verb: "POST", path: "/v1/api/signals", rpc: "submitSignal", body: true, doc: "`submitSignal`" },
  listWaits: {
    verb: "GET",
    path: "/v1/api/waits",
    scope: "run:read",
    query: { runId: "string", nodeId: "string", kind: "string", status: "string" },
    result: z.array(waitInfoSchema),
    doc: "the waits of runs, newest first (at most 1000), as `WaitInfo` (below); `status` `pending` (default), `resolved`, `settled` or `any`; `kind` `approval`, `human`, `signal`, `event`, `timer`. What a console reads to send a signal (its name and payload schema) and to show who decided first",
  },
  submitHumanTask: {
    verb: "POST",
    path: "/v1/api/human-tasks",
    scope: "approval:submit",
    body: true,
    result: deliveryResultSchema,
    doc: "body `{ runId, nodeId, iteration?, value, askedAtMs? }`: submits the row a `HumanTask` waits for (`submitHumanTask`; the row is checked against the task's schema when the run goes on), then wakes the run; answers `{ runId, nodeId, iteration, status }`. `askedAtMs` is the `createdAtMs` of the task answered (an answer for a task a rewind or retry asked again is WAIT_RESET). WAIT_NOT_FOUND, RUN_NOT_WAITING as for approvals; APPROVAL_ALREADY_DECIDED when someone answered first, with `details.decidedBy` and `details.decidedAt` (when they answered)",
  },
  // ---- workflows, prompts, scores, memory ----
  listWorkflows: { verb: "GET", path: "/v1/api/workflows", rpc: "listWorkflows", doc: "`GatewayWorkflowRow[]`" },
  getWorkflowUsage: {
    verb: "GET",
    path: "/v1/api/workflows/:workflow/usage",
    scope: "run:read",
    query: { days: "int" },
    result: workflowUsageSchema,
    doc: "`WorkflowUsage`: agents' tokens and cost of the workflow's runs (child runs rolled into their parent) per UTC day of the run's start, the last `days` days (default 30, at most 366), and in total ([agents.md](agents.md#cost))",
  },
  listPrompts: { verb: "GET", path: "/v1/api/prompts", rpc: "listPrompts", query: { runId: "string", limit: "int" }, doc: "`GatewayPromptRow[]`" },
  listScores: { verb: "GET", path: "/v1/api/scores", scope: "run:read", query: { runId: "string", nodeId: "string", scorerId: "string" }, result: z.array(scoreRowSchema), doc: "`ScoreRow[]` (docs/scorers.md)" },
  listMemoryFacts: { verb: "GET", path: "/v1/api/memory/facts", scope: "memory:read", query: { namespace: "string" }, result: z.array(memoryFactRowSchema), doc: "live facts `{ namespace, key, value, valueJson, ... }`" },
  listMemoryNotes: { verb: "GET", path: "/v1/api/memory/notes", scope: "memory:read", query: { namespace: "string" }, result: z.array(memoryNoteSchema), doc: "the live notes of `namespace=<kind>:<id>` (`MemoryNote[]`, docs/memory.md): the data layer's `docs`" },
  searchMemoryNotes: {
    verb: "GET",
    path: "/v1/api/memory/notes/search",
    scope: "memory:read",
    query: { namespace: "string", q: "string", limit: "string" },
    result: z.array(memoryNoteSchema),
    doc: "full-text search of a namespace's notes (`namespace=<kind>:<id>&q=<words>`), best first (`searchNotes`, default 10, at most 100); NOTE_SEARCH_NOT_ENABLED until `enableNoteSearch(<kind>)` ran on the store",
  },
  listMemoryNamespaces: { verb: "GET", path: "/v1/api/memory/namespaces", scope: "memory:read", result: z.array(memoryNamespaceInfoSchema), doc: "`[{ namespace, facts, notes }]`: every namespace holding live facts or notes, with counts" },
  // ---- crons ----
  listCrons: { verb: "GET", path: "/v1/api/crons", rpc: "cronList", doc: "`cronList`" },
  createCron: { verb: "POST", path: "/v1/api/crons", rpc: "cronCreate", body: true, doc: "`cronCreate`" },
  deleteCron: { verb: "DELETE", path: "/v1/api/crons/:cronId", rpc: "cronDelete", doc: "`cronDelete`" },
  runCron: { verb: "POST", path: "/v1/api/crons/:cronId/run", rpc: "cronRun", doc: "`cronRun`" },
  // ---- change stream ----
  changeStream: { verb: "GET", path: "/v1/api/stream", scope: "run:read", query: { lastEventId: "string" }, stream: true, doc: "the change stream (below), resumed from `Last-Event-ID` (or `?lastEventId=`)" },
} as const satisfies Record<string, ApiRoute>;

/**
 * The name of a `/v1/api/*` route.
 * @example
 * const name: ApiRouteName = "listRuns";
 */
export type ApiRouteName = keyof typeof API_ROUTES;

/**
 * The scope a route needs: its RPC method's, or its own.
 * @example
 * routeScope(API_ROUTES.launchRun); // "run:write"
 */
export function routeScope(route: ApiRoute): Scope {
  return route.rpc ? METHOD_SCOPES[route.rpc] : route.scope!;
}

/**
 * How a route names itself in errors and docs: `GET /v1/api/runs/:runId?view=summary`.
 * @example
 * routeLabel(API_ROUTES.getRunSummary);
 */
export function routeLabel(route: ApiRoute): string {
  const fixed = Object.entries(route.fixed ?? {});
  return `${route.verb} ${route.path}${fixed.length ? `?${fixed.map(([k, v]) => `${k}=${v}`).join("&")}` : ""}`;
}

/**
 * The URL path of a route with its path parameters and query filled in (unset values left out).
 * @example
 * routeUrl(API_ROUTES.getNodeOutput, { runId: "r1", nodeId: "a b" }, { iteration: 2 }); // "/v1/api/runs/r1/nodes/a%20b/output?iteration=2"
 */
export function routeUrl(route: ApiRoute, params: Readonly<Record<string, string>> = {}, query: Readonly<Record<string, string | number | boolean | undefined>> = {}): string {
  const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""));
  const entries = [...Object.entries(route.fixed ?? {}), ...Object.entries(query).filter(([, v]) => v !== undefined)].map(([k, v]) => [k, String(v)]);
  return entries.length ? `${path}?${new URLSearchParams(entries).toString()}` : path;
}

/**
 * The path of an RPC method over HTTP.
 * @example
 * rpcPath("listRuns"); // "/v1/rpc/listRuns"
 */
export function rpcPath(method: string): string {
  return `${PATHS.rpc}${encodeURIComponent(method)}`;
}

/**
 * The path of an extension stream.
 * @example
 * extStreamPath("workspace", "events", { since: 0 }); // "/v1/ext/workspace/events/stream?params=%7B%22since%22%3A0%7D"
 */
export function extStreamPath(namespace: string, key: string, params: unknown): string {
  return `${PATHS.extStream.replace(":namespace", encodeURIComponent(namespace)).replace(":key", encodeURIComponent(key))}?params=${encodeURIComponent(JSON.stringify(params))}`;
}

/**
 * The route table of docs/hosting.md "Domain API", generated from `API_ROUTES`.
 * @example
 * console.log(routeTable());
 */
export function routeTable(): string {
  const rows = Object.values(API_ROUTES as Record<string, ApiRoute>).map((r) => {
    const query = Object.keys(r.query ?? {}).map((k) => `${k}=`);
    const fixed = Object.entries(r.fixed ?? {}).map(([k, v]) => `${k}=${v}`);
    const path = [...fixed, ...query].length ? `${r.path}?${[...fixed, ...query].join("&")}` : r.path;
    return `| \`${r.verb} ${path}\` | \`${routeScope(r)}\` | ${r.rpc ? `\`${r.rpc}\`` : ""} | ${r.doc} |`;
  });
  return ["| route | scope | RPC method | answer |", "|---|---|---|---|", ...rows].join("\n");
}
