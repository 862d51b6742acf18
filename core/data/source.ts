/**
 * @module core/data/source
 * The collections of one workspace mode, built by its factory: `local` mode reads every
 * collection from the domain API (a Gateway's, or the browser worker's through its `fetch`).
 * The `multiplayer` factory (Electric shapes: sync/source-multiplayer.ts, entry
 * `durable-flow/sync`) builds the same collections with the same ids, row types and keys, so
 * the registry and the UI never know which one they read; it is passed in as `sourceFactory`,
 * so a local-only user of `durable-flow/data` never loads the Electric client.
 */
import type { QueryClient } from "@tanstack/query-core";
import type { RunPage } from "../api/index.js";
import type { GraphSnapshot } from "../engine/index.js";
import { isFlowError } from "../errors.js";
import { type DataApi, listAllRunEvents } from "./data-api.js";
import { type LastSeenStore, rememberLast } from "./last-seen.js";
import type { DataClient, DataClientOptions } from "./data-client.js";
import { type LiveCollection, queryCollection } from "./query-collection.js";
import {
  type GatewayApprovalRow,
  type GatewayCronRow,
  type GatewayDocRow,
  type GatewayMemoryFactRow,
  type GatewayPromptRow,
  type GatewayRunEventRow,
  type GatewayRunNode,
  type GatewayRunRow,
  type GatewayRunSummaryRow,
  type GatewayRunTreeRow,
  type GatewayScoreRow,
  type GatewayTicketRow,
  type GatewayWorkflowRow,
} from "./rows.js";
import { runTreeRows, ticketRows } from "./run-tree.js";
import { streamCollection } from "./stream-collection.js";

/**
 * Options of `createCollections`.
 * @example
 * createCollections(mode, queryClient, { runsLimit: 2000, confirmTimeoutMs: 5000, backoff: { maxMs: 5000 } });
 */
export interface CollectionsOptions extends Omit<DataClientOptions, "mode"> {
  /** Runs loaded into `runs`, newest first (default 10000). */
  runsLimit?: number;
  /** How long an optimistic write waits for the change stream to confirm it (default 10000 ms). */
  confirmTimeoutMs?: number;
  /** Keeps each collection's last load, shown while the gateway cannot be reached (core/data/last-seen.ts; `local` mode). */
  lastSeen?: LastSeenStore;
  /** The factory of the mode's collections (default: `localSource` for `local`; `multiplayer` needs `createTeamCollections` of `durable-flow/sync`). */
  sourceFactory?: SourceFactory;
}

/**
 * The names of the workspace-wide collections (what `invalidate` and change events name).
 * @example
 * await cols.invalidate({ collection: "crons" satisfies CollectionName });
 */
export type CollectionName = "runs" | "approvals" | "workflows" | "prompts" | "scores" | "memoryFacts" | "crons";

/**
 * The kinds of per-run collections.
 * @example
 * cols.perRun(runId).has("runEvents" satisfies PerRunKind);
 */
export type PerRunKind = "run" | "nodes" | "runEvents" | "runTree" | "tickets";

/**
 * What a mode's factory builds: every collection with its fetches.
 * @example
 * const source: CollectionSource = localSource(data, queryClient, {});
 */
export interface CollectionSource {
  runs: LiveCollection<GatewayRunSummaryRow>;
  approvals: LiveCollection<GatewayApprovalRow>;
  workflows: LiveCollection<GatewayWorkflowRow>;
  prompts: LiveCollection<GatewayPromptRow>;
  scores: LiveCollection<GatewayScoreRow>;
  memoryFacts: LiveCollection<GatewayMemoryFactRow>;
  crons: LiveCollection<GatewayCronRow>;
  run(runId: string): LiveCollection<GatewayRunRow>;
  nodes(runId: string): LiveCollection<GatewayRunNode>;
  runEvents(runId: string): LiveCollection<GatewayRunEventRow, number>;
  runTree(runId: string): LiveCollection<GatewayRunTreeRow>;
  tickets(runId: string): LiveCollection<GatewayTicketRow>;
  docs(namespace: string): LiveCollection<GatewayDocRow>;
  /** The per-run collections of a run built so far, by kind. */
  perRun(runId: string): ReadonlyMap<PerRunKind, LiveCollection<any, any>>;
  all(): Array<LiveCollection<any, any>>;
  /** The query key prefix of every query of this source. */
  readonly queryKey: readonly unknown[];
  /** The client the writes call (default: the registry's); multiplayer mode confirms them by txid. */
  readonly writeClient?: DataClient;
  /** True when `writeClient` settles each write itself, so writes do not wait for the change stream's refresh. */
  readonly confirmsWrites?: boolean;
  /** Collections kept current by replication (multiplayer: Electric shapes): the change stream does not refetch them. */
  readonly replicated?: ReadonlySet<CollectionName>;
}

/**
 * Builds the collections of a mode over a data client.
 * @example
 * const cols = localSource(data, queryClient, {});
 */
export type SourceFactory = (data: DataClient, queryClient: QueryClient, opts: CollectionsOptions) => CollectionSource;

/** Reads every page of a paged list (cursor), up to `limit` items. */
async function allRuns(data: DataClient, limit: number): Promise<GatewayRunSummaryRow[]> {
  const out: GatewayRunSummaryRow[] = [];
  let cursor: string | undefined;
  do {
    const page: RunPage = await data.api.listRuns({ limit: Math.min(500, limit - out.length), ...(cursor ? { cursor } : {}) });
    out.push(...page.runs);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && out.length < limit);
  return out;
}

/** A run's latest snapshot; an empty one while the run has committed no frame yet (or the workspace has no such run). */
async function frameOf(api: DataApi, runId: string): Promise<GraphSnapshot> {
  try {
    return await api.getFrame(runId);
  } catch (error) {
    if (isFlowError(error, "NOT_AVAILABLE") || isFlowError(error, "RUN_NOT_FOUND")) return { runId, frameNo: 0, xml: null, tasks: [] };
    throw error;
  }
}

/**
 * What a read of one run answers, or `none` when the workspace has no such run: the run's
 * collections then load empty instead of failing, so a run page of another workspace (or a
 * wrong link) says "not found" without a failed live query on the console.
 * @example
 * const run = await orNone(() => api.getRun(runId), null);
 */
async function orNone<D>(read: () => Promise<D>, none: D): Promise<D> {
  try {
    return await read();
  } catch (error) {
    if (isFlowError(error, "RUN_NOT_FOUND")) return none;
    throw error;
  }
}

/**
 * `local` mode: every collection reads the domain API.
 * @example
 * const cols = localSource(createDataClient({ mode }), queryClient, {});
 */
export function localSource(data: DataClient, queryClient: QueryClient, opts: CollectionsOptions): CollectionSource {
  const api = data.api;
  const prefix = ["durable-flow", data.mode.apiBaseUrl] as const;
  const make = <T extends object, K extends string | number = string, D = T[]>(name: string, key: unknown[], fetch: () => Promise<D>, getKey: (row: T) => K, select?: (d: D) => T[]) =>
    queryCollection<T, K, D>({ id: `flow:${data.mode.apiBaseUrl}:${name}`, queryKey: [...prefix, ...key], queryClient, fetch: rememberLast(opts.lastSeen, `flow:${data.mode.apiBaseUrl}:${name}`, fetch), getKey, ...(select ? { select } : {}) });
  const perRun = new Map<string, Map<PerRunKind, LiveCollection<any, any>>>();
  const memo = <C extends LiveCollection<any, any>>(runId: string, kind: PerRunKind, build: () => C): C => {
    let m = perRun.get(runId);
    if (!m) perRun.set(runId, (m = new Map()));
    let c = m.get(kind) as C | undefined;
    if (!c) m.set(kind, (c = build()));
    return c;
  };
  const docs = new Map<string, LiveCollection<GatewayDocRow>>();
  const shared = {
    // The hot collections are written row by row by the change stream (stream-collection.ts).
    runs: streamCollection<GatewayRunSummaryRow, string>({ id: `flow:${data.mode.apiBaseUrl}:runs`, fetch: rememberLast(opts.lastSeen, `flow:${data.mode.apiBaseUrl}:runs`, () => allRuns(data, opts.runsLimit ?? 10_000)), getKey: (r) => r.runId }),
    approvals: make<GatewayApprovalRow>("approvals", ["approvals"], () => api.listApprovals(), (a) => a.key),
    workflows: make<GatewayWorkflowRow>("workflows", ["workflows"], () => api.listWorkflows(), (w) => w.key),
    prompts: make<GatewayPromptRow>("prompts", ["prompts"], () => api.listPrompts(), (p) => p.key),
    scores: make<GatewayScoreRow>("scores", ["scores"], () => api.listScores(), (s) => s.id),
    memoryFacts: make<GatewayMemoryFactRow>("memoryFacts", ["memoryFacts"], async () => (await api.listMemoryFacts()).map((f) => ({ ...f, id: `${f.namespace}/${f.key}` })), (f) => f.id),
    crons: make<GatewayCronRow>("crons", ["crons"], () => api.listCrons(), (c) => c.cronId),
  };
  const source: CollectionSource = {
    ...shared,
    queryKey: prefix,
    // `run` and `nodes` share one query (one fetch of the run feeds both).
    // A run the workspace does not have loads as no rows (orNone), not as a failed collection.
    run: (runId) => memo(runId, "run", () => make<GatewayRunRow, string, GatewayRunRow | null>(`run:${runId}`, ["run", runId], () => orNone(() => api.getRun(runId), null), (r) => r.runId, (r) => (r ? [r] : []))),
    // The nodes are copied: given the query data's own node objects, the collection saw none of
    // their later changes and the run page's tree froze (e2e/gateway.test.ts).
    nodes: (runId) => memo(runId, "nodes", () => make<GatewayRunNode, string, GatewayRunRow | null>(`nodes:${runId}`, ["run", runId], () => orNone(() => api.getRun(runId), null), (n) => n.key, (r) => (r ? r.nodes.map((n) => ({ ...n })) : []))),
    runEvents: (runId) =>
      memo(runId, "runEvents", () => streamCollection<GatewayRunEventRow, number>({ id: `flow:${data.mode.apiBaseUrl}:runEvents:${runId}`, fetch: rememberLast(opts.lastSeen, `flow:${data.mode.apiBaseUrl}:runEvents:${runId}`, async () => (await orNone(() => listAllRunEvents(api, runId, 0), [])) as GatewayRunEventRow[]), getKey: (e) => e.seq })),
    runTree: (runId) => memo(runId, "runTree", () => make<GatewayRunTreeRow>(`runTree:${runId}`, ["runTree", runId], async () => runTreeRows(await frameOf(api, runId)), (t) => t.key)),
    tickets: (runId) =>
      memo(runId, "tickets", () =>
        make<GatewayTicketRow>(`tickets:${runId}`, ["tickets", runId], async () => {
          const [frame, run] = await Promise.all([frameOf(api, runId), api.getRun(runId)]);
          return ticketRows(frame, run);
        }, (t) => t.key),
      ),
    docs: (namespace) => {
      let c = docs.get(namespace);
      if (!c) docs.set(namespace, (c = make<GatewayDocRow>(`docs:${namespace}`, ["docs", namespace], () => api.listMemoryNotes(namespace), (d) => d.id)));
      return c;
    },
    perRun: (runId) => perRun.get(runId) ?? new Map(),
    all: () => [...Object.values(shared), ...[...perRun.values()].flatMap((m) => [...m.values()]), ...docs.values()],
  };
  return source;
}
