/**
 * @module core/data/data-api
 * The data client's `api`: typed calls of the domain API's `/v1/api/*` routes (docs/hosting.md
 * "Domain API"), through the data client's `fetch` (a Gateway's, or the browser worker's).
 * One method per route of the contract (core/api/contract.ts `API_ROUTES`, but the change
 * stream and the event stream, which change-stream.ts and the gateway client read), named as
 * the route and built from it: no path is spelled here.
 * When nothing speaking the protocol answers (a refused connection, an HTML page) a call
 * throws GATEWAY_UNAVAILABLE; gateway errors keep their code (GatewayRpcError).
 */
import type { GatewayRunSummaryRow, MemoryNamespaceInfo, RunPage, WaitInfo, WorkflowUsage } from "../api/index.js";
import type { RetryNodeResult } from "../api/internal.js";
import { envelopeError, GatewayRpcError, isGatewayUnavailableError, readEnvelope } from "../client/index.js";
import type { RpcParams, RpcResult } from "../client/index.js";
import type { FlowEvent, GraphSnapshot } from "../engine/index.js";
import type { MemoryFact, MemoryNote } from "../memory/index.js";
import type { ScoreRow } from "../scorers/index.js";
import { API_ROUTES, type ApiRouteName, routeUrl } from "../api/wire/index.js";
import { mergeHeaders, type WorkspaceMode } from "./mode.js";

/**
 * How the api reaches the domain API.
 * @example
 * createDataApi({ mode, fetch, headers: { "x-team": "infra" }, signal: controller.signal });
 */
export interface DataTransport {
  mode: WorkspaceMode;
  fetch: typeof fetch;
  headers?: Record<string, string>;
  /** Aborted when the data client closes. */
  signal: AbortSignal;
}

/**
 * A page of a run's event log.
 * @example
 * const { events, lastSeq } = await data.api.listRunEvents(runId, { afterSeq: 0, limit: 100 });
 */
export interface RunEventsPage {
  runId: string;
  events: Array<FlowEvent & { seq: number }>;
  lastSeq: number;
}

/**
 * Typed calls of the domain API (`/v1/api/*`).
 * @example
 * const { runs } = await data.api.listRuns({ status: "failed" });
 */
export interface DataApi {
  listRuns(filter?: RpcParams<"listRuns">): Promise<RunPage>;
  getRun(runId: string): Promise<RpcResult<"getRun">>;
  /** The run's summary row alone (`?view=summary`: no nodes, cheaper). */
  getRunSummary(runId: string): Promise<GatewayRunSummaryRow>;
  launchRun(params: RpcParams<"launchRun">): Promise<RpcResult<"launchRun">>;
  resumeRun(runId: string, opts?: { force?: boolean }): Promise<RpcResult<"resumeRun">>;
  pauseRun(runId: string): Promise<RpcResult<"pauseRun">>;
  cancelRun(runId: string): Promise<RpcResult<"cancelRun">>;
  /** Resets a failed or cancelled task (and what depends on it) and resumes the run (`POST .../nodes/:nodeId/retry`). */
  retryNode(runId: string, nodeId: string, opts?: { iteration?: number; resetDependents?: boolean; keepDecisions?: boolean; resume?: boolean; preview?: boolean }): Promise<RetryNodeResult>;
  /** Time travel to a task attempt (`rewindRun`): later attempts are kept as `cancelled` history; resumes by default. */
  rewindRun(params: RpcParams<"rewindRun">): Promise<RpcResult<"rewindRun">>;
  /** A new run from a task attempt, on the same or an edited input (`forkRun`); the original run is only read. */
  forkRun(params: RpcParams<"forkRun">): Promise<RpcResult<"forkRun">>;
  /** What an attempt changed in the run's workspace (`getNodeDiff`; VCS_FAILED when it has no snapshots). */
  getNodeDiff(runId: string, nodeId: string, opts?: { iteration?: number; attempt?: number }): Promise<RpcResult<"getNodeDiff">>;
  /** How an attempt changed one file: its unified diff (`getFileDiff`). */
  getFileDiff(runId: string, nodeId: string, path: string, opts?: { iteration?: number; attempt?: number }): Promise<RpcResult<"getFileDiff">>;
  /** What the whole run changed in its workspace (`getRunDiff`). */
  getRunDiff(runId: string): Promise<RpcResult<"getRunDiff">>;
  listRunEvents(runId: string, opts?: { afterSeq?: number; limit?: number }): Promise<RunEventsPage>;
  getFrame(runId: string, frameNo?: number): Promise<GraphSnapshot>;
  getNodeOutput(runId: string, nodeId: string, iteration?: number): Promise<RpcResult<"getNodeOutput">>;
  whatHappened(runId: string): Promise<RpcResult<"whatHappened">>;
  /** Agents' tokens and cost of a run, per task and in total, child runs included. */
  getRunUsage(runId: string): Promise<RpcResult<"getRunUsage">>;
  /** A task's agent transcript so far, per attempt. */
  getTranscript(runId: string, nodeId: string): Promise<RpcResult<"getTranscript">>;
  /** Agents' tokens and cost of a workflow's runs per day, the last `days` days (default 30). */
  getWorkflowUsage(workflow: string, opts?: { days?: number }): Promise<WorkflowUsage>;
  listApprovals(runId?: string): Promise<RpcResult<"listApprovals">>;
  submitApproval(params: RpcParams<"submitApproval">): Promise<RpcResult<"submitApproval">>;
  submitSignal(params: RpcParams<"submitSignal">): Promise<RpcResult<"submitSignal">>;
  /** The waits of runs (`GET /v1/api/waits`): pending by default, `status: "any"` for decided ones too. */
  listWaits(filter?: { runId?: string; nodeId?: string; kind?: WaitInfo["kind"]; status?: WaitInfo["status"] | "any" }): Promise<WaitInfo[]>;
  /** Submits the row a HumanTask waits for (`POST /v1/api/human-tasks`). */
  submitHumanTask(params: { runId: string; nodeId: string; iteration?: number; value: Record<string, unknown>; /** The `createdAtMs` of the task answered: an answer queued offline for a task asked again meanwhile is refused (WAIT_RESET). */ askedAtMs?: number }): Promise<RpcResult<"submitApproval">>;
  listWorkflows(): Promise<RpcResult<"listWorkflows">>;
  listPrompts(runId?: string): Promise<RpcResult<"listPrompts">>;
  listScores(filter?: { runId?: string; nodeId?: string; scorerId?: string }): Promise<ScoreRow[]>;
  listMemoryFacts(namespace?: string): Promise<Array<MemoryFact & { value: unknown }>>;
  /** The live notes of a namespace (`<kind>:<id>`). */
  listMemoryNotes(namespace: string): Promise<MemoryNote[]>;
  /** Every namespace with live facts or notes, with counts (`GET /v1/api/memory/namespaces`). */
  listMemoryNamespaces(): Promise<MemoryNamespaceInfo[]>;
  /** Full-text search of a namespace's notes (`GET /v1/api/memory/notes/search`; NOTE_SEARCH_NOT_ENABLED until its kind is enabled). */
  searchMemoryNotes(namespace: string, q: string, limit?: number): Promise<MemoryNote[]>;
  listCrons(): Promise<RpcResult<"cronList">>;
  createCron(params: RpcParams<"cronCreate">): Promise<RpcResult<"cronCreate">>;
  deleteCron(cronId: string): Promise<RpcResult<"cronDelete">>;
  runCron(cronId: string): Promise<RpcResult<"cronRun">>;
  /** Any route: `GET`/`POST`/`DELETE` with an optional JSON body; resolves with the envelope's result. */
  request<T = unknown>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T>;
}

/** The routes the data api calls: every route but the streams. */
type DataRouteName = Exclude<ApiRouteName, "changeStream" | "streamRunEvents">;
type Query = Record<string, string | number | boolean | undefined>;

/**
 * Builds the api of a transport.
 * @example
 * const api = createDataApi({ mode, fetch, signal: new AbortController().signal });
 */
export function createDataApi(t: DataTransport): DataApi {
  const base = t.mode.apiBaseUrl.replace(/\/+$/, "");
  async function request<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
    const what = `${method} ${path.split("?")[0]}`;
    const url = `${base}${path}`;
    let res: Response;
    try {
      res = await t.fetch(url, { method, headers: mergeHeaders(t.mode, t.headers, "application/json"), ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal: t.signal });
    } catch (cause) {
      if (t.signal.aborted) throw closedError(what);
      throw unavailable(what, url, cause);
    }
    let envelope;
    try {
      envelope = await readEnvelope(what, res);
    } catch (error) {
      if (isGatewayUnavailableError(error)) throw unavailable(what, url, error);
      throw error;
    }
    if (envelope.ok) return envelope.result as T;
    throw envelopeError(what, envelope.error, res.status);
  }
  /** Calls route `name` with its path parameters, query and body. */
  const call = <T>(name: DataRouteName, params: Record<string, string> = {}, query: Query = {}, body?: unknown): Promise<T> => {
    const route = API_ROUTES[name];
    // A POST always sends a JSON body (`{}` when the route takes none).
    return request<T>(route.verb, routeUrl(route, params, query), route.verb === "POST" ? (body ?? {}) : undefined);
  };
  const api: Omit<DataApi, "request"> & Record<DataRouteName, unknown> = {
    listRuns: (f = {}) => call("listRuns", {}, f),
    getRun: (runId) => call("getRun", { runId }),
    getRunSummary: (runId) => call("getRunSummary", { runId }),
    launchRun: (p) => call("launchRun", {}, {}, p),
    resumeRun: (runId, opts = {}) => call("resumeRun", { runId }, {}, opts),
    pauseRun: (runId) => call("pauseRun", { runId }),
    cancelRun: (runId) => call("cancelRun", { runId }),
    retryNode: (runId, nodeId, opts = {}) => call("retryNode", { runId, nodeId }, {}, opts),
    rewindRun: ({ runId, ...rest }) => call("rewindRun", { runId }, {}, rest),
    forkRun: ({ runId, ...rest }) => call("forkRun", { runId }, {}, rest),
    getNodeDiff: (runId, nodeId, o = {}) => call("getNodeDiff", { runId, nodeId }, o),
    getFileDiff: (runId, nodeId, path, o = {}) => call("getFileDiff", { runId, nodeId }, { path, ...o }),
    getRunDiff: (runId) => call("getRunDiff", { runId }),
    listRunEvents: (runId, o = {}) => call("listRunEvents", { runId }, o),
    getFrame: (runId, frameNo) => call("getFrame", { runId }, { frameNo }),
    getNodeOutput: (runId, nodeId, iteration) => call("getNodeOutput", { runId, nodeId }, { iteration }),
    whatHappened: (runId) => call("whatHappened", { runId }),
    getRunUsage: (runId) => call("getRunUsage", { runId }),
    getTranscript: (runId, nodeId) => call("getTranscript", { runId, nodeId }),
    getWorkflowUsage: (workflow, o = {}) => call("getWorkflowUsage", { workflow }, o),
    listApprovals: (runId) => call("listApprovals", {}, { runId }),
    submitApproval: (p) => call("submitApproval", {}, {}, p),
    submitSignal: (p) => call("submitSignal", {}, {}, p),
    listWaits: (f = {}) => call("listWaits", {}, f),
    submitHumanTask: (p) => call("submitHumanTask", {}, {}, p),
    listWorkflows: () => call("listWorkflows"),
    listPrompts: (runId) => call("listPrompts", {}, { runId }),
    listScores: (f = {}) => call("listScores", {}, f),
    listMemoryFacts: (namespace) => call("listMemoryFacts", {}, { namespace }),
    listMemoryNotes: (namespace) => call("listMemoryNotes", {}, { namespace }),
    listMemoryNamespaces: () => call("listMemoryNamespaces"),
    searchMemoryNotes: (namespace, q, limit) => call("searchMemoryNotes", {}, { namespace, q, limit }),
    listCrons: () => call("listCrons"),
    createCron: (p) => call("createCron", {}, {}, p),
    deleteCron: (cronId) => call("deleteCron", { cronId }),
    runCron: (cronId) => call("runCron", { cronId }),
  };
  return {
    ...(api as Omit<DataApi, "request">),
    request,
  };
}

/**
 * Every event of a run after `afterSeq`, page by page.
 * @example
 * const events = await listAllRunEvents(data.api, runId, 0);
 */
export async function listAllRunEvents(api: DataApi, runId: string, afterSeq: number): Promise<Array<FlowEvent & { seq: number }>> {
  const out: Array<FlowEvent & { seq: number }> = [];
  for (let after = afterSeq; ; ) {
    const page = await api.listRunEvents(runId, { afterSeq: after, limit: 1000 });
    out.push(...page.events);
    if (page.events.length < 1000) return out;
    after = page.lastSeq;
  }
}

function unavailable(what: string, url: string, cause: unknown): GatewayRpcError {
  return new GatewayRpcError({ method: what, code: "GATEWAY_UNAVAILABLE", message: `No Flow gateway answered ${what} at ${url}; the data shown is the last that loaded. Start the gateway (flow serve) or check apiBaseUrl.`, details: { url }, cause });
}

/**
 * The error of a data-client call cut short by `close()`.
 * @example
 * throw closedError("GET /v1/api/runs");
 */
export function closedError(what: string): GatewayRpcError {
  return new GatewayRpcError({ method: what, code: "GATEWAY_CLIENT_CLOSED", message: `The data client is closed, so ${what} was not (or no longer) sent; create a new one with createDataClient.` });
}
