/**
 * @module core/data/collections
 * `createCollections(mode, queryClient)` (SPEC.md "Data layer"): the live TanStack DB
 * collections a console reads — `runs`, `approvals`, `workflows`, `prompts`, `scores`,
 * `memoryFacts`, `crons`, and per run `run`, `nodes`, `runEvents`, `runTree`, `tickets`, per
 * memory namespace `docs` — kept current by the change stream (core/data/live-sync.ts), with
 * optimistic writes (core/data/writes.ts).
 *
 * Where rows come from depends on the mode: `local` reads the domain API (a Gateway's, or the
 * browser worker's through its `fetch`); `multiplayer` reads `runs` and `approvals` from
 * Electric shapes through a team Gateway (sync/source-multiplayer.ts, docs/multiplayer.md),
 * built by `createTeamCollections` of `durable-flow/sync`, which passes its factory in: this
 * module never imports the Electric client, so local-only users do not bundle it.
 * Each mode is one factory of the same collections
 * (same ids, row types and keys), so the UI never knows which one it reads.
 *
 * Ownership: the registry closes a data client it built from a mode, never one passed in; it
 * removes its own queries from the QueryClient and leaves the client itself alone.
 */
import type { QueryClient } from "@tanstack/query-core";
import { FlowError } from "../errors.js";
import type { ConnectionStatus, DataNotice } from "./change-stream.js";
import { createDataClient, type DataClient } from "./data-client.js";
import { LiveSync } from "./live-sync.js";
import { assertMultiplayerMode, type WorkspaceMode } from "./mode.js";
import type { LiveCollection } from "./query-collection.js";
import type {
  GatewayApprovalRow,
  GatewayCronRow,
  GatewayDocRow,
  GatewayMemoryFactRow,
  GatewayPromptRow,
  GatewayRunEventRow,
  GatewayRunNode,
  GatewayRunRow,
  GatewayRunSummaryRow,
  GatewayRunTreeRow,
  GatewayScoreRow,
  GatewayTicketRow,
  GatewayWorkflowRow,
} from "./rows.js";
import { type CollectionName, type CollectionsOptions, localSource, type SourceFactory } from "./source.js";
import { createWrites, type DataWrites } from "./writes.js";

/**
 * The live collections of a workspace.
 * @example
 * const cols = createCollections({ kind: "local", apiBaseUrl: "http://127.0.0.1:7331" }, new QueryClient());
 * await cols.connect();
 * await cols.runs.preload();
 * console.log(cols.runs.toArray.length, cols.status);
 */
export interface FlowCollections extends DataWrites {
  readonly mode: WorkspaceMode;
  /** The data client the collections read through. */
  readonly data: DataClient;
  /** Runs, newest first (`runsLimit`), keyed by `runId`; a change of a run refreshes its row alone. */
  readonly runs: LiveCollection<GatewayRunSummaryRow>;
  /** One run with nodes, attempts, frame number and last seq (one row keyed by `runId`). */
  run(runId: string): LiveCollection<GatewayRunRow>;
  /** The nodes of a run, keyed `<nodeId>#<iteration>`. */
  nodes(runId: string): LiveCollection<GatewayRunNode>;
  /** The event log of a run, keyed by `seq`; new events are appended, never refetched. */
  runEvents(runId: string): LiveCollection<GatewayRunEventRow, number>;
  /** The tasks of a run's latest graph snapshot, keyed `<nodeId>#<iteration>`. */
  runTree(runId: string): LiveCollection<GatewayRunTreeRow>;
  /** The Kanban tickets of a run, keyed `<runId>/<nodeId>#<iteration>`. */
  tickets(runId: string): LiveCollection<GatewayTicketRow>;
  /** Pending approvals and human tasks, keyed `<runId>/<nodeId>#<iteration>`. */
  readonly approvals: LiveCollection<GatewayApprovalRow>;
  readonly workflows: LiveCollection<GatewayWorkflowRow>;
  /** The memory notes of a namespace (`<kind>:<id>`), keyed by note id. */
  docs(namespace: string): LiveCollection<GatewayDocRow>;
  /** Prompts of the latest runs' frames, keyed `<runId>/<nodeId>#<iteration>`. */
  readonly prompts: LiveCollection<GatewayPromptRow>;
  readonly scores: LiveCollection<GatewayScoreRow>;
  /** Live memory facts, keyed `<namespace>/<key>`. */
  readonly memoryFacts: LiveCollection<GatewayMemoryFactRow>;
  readonly crons: LiveCollection<GatewayCronRow>;
  /** The change stream's connection status (for a badge). */
  readonly status: ConnectionStatus;
  onStatus(listener: (status: ConnectionStatus) => void): () => void;
  /** The session-level notices (one info notice the first time the gateway is unreachable). */
  onNotice(listener: (notice: DataNotice) => void): () => void;
  /** Starts the change stream; resolves with the status after the first attempt (`online` or `offline`). */
  connect(): Promise<ConnectionStatus>;
  /** Refetches a collection, a run's rows, or (no argument) everything. */
  invalidate(target?: { collection?: CollectionName; runId?: string }): Promise<void>;
  /**
   * Stops the stream, cleans the collections up and removes their queries; idempotent. With
   * `leaveCollections`, the collections and queries are left to TanStack DB's garbage collector
   * instead: live queries of views that just unmounted still hold them (for their `gcTime`), and
   * cleaning a source up under a live query fails that query ("[Live Query Error] ... manually
   * cleaned up"). The app closes a workspace it switched away from this way.
   */
  close(options?: { leaveCollections?: boolean }): void;
}

/** The factory of `mode`'s collections: the caller's, else `local`'s. */
function factoryOf(mode: WorkspaceMode, options: CollectionsOptions): SourceFactory {
  if (mode?.kind === "multiplayer") {
    assertMultiplayerMode(mode);
    if (!options.sourceFactory) throw new FlowError("INVALID_ARGUMENT", 'A multiplayer mode reads Electric shapes: build its collections with createTeamCollections of "durable-flow/sync".', { mode: mode.kind });
  }
  if (options.sourceFactory) return options.sourceFactory;
  if (mode?.kind !== "local") throw new FlowError("INVALID_ARGUMENT", 'createCollections needs a mode { kind: "local" | "multiplayer", apiBaseUrl } or a data client.', { mode });
  return localSource;
}

/**
 * Creates the live collections of a workspace. `source` is a mode (the registry builds its
 * data client and closes it on `close()`) or a data client the caller owns (e.g. over the
 * browser worker's `fetch`).
 * @example
 * import { QueryClient } from "@tanstack/query-core";
 * import { createCollections } from "durable-flow/data";
 * const cols = createCollections({ kind: "local", apiBaseUrl: "http://127.0.0.1:7331" }, new QueryClient());
 * await cols.connect();
 * await cols.runs.preload();
 * const { runId } = await cols.launch({ workflow: "greet", input: {} }); // the row shows at once, confirmed by the stream
 */
export function createCollections(source: WorkspaceMode | DataClient, queryClient: QueryClient, options: CollectionsOptions = {}): FlowCollections {
  const owned = !isDataClient(source);
  const mode = isDataClient(source) ? source.mode : source;
  const factory = factoryOf(mode, options);
  const data = isDataClient(source) ? source : createDataClient({ ...options, mode: source });
  let cols: ReturnType<SourceFactory>;
  try {
    cols = factory(data, queryClient, options);
  } catch (error) {
    if (owned) data.close();
    throw error;
  }
  const sync = new LiveSync(data, cols, queryClient);
  const writes = createWrites(cols.writeClient ?? data, cols, sync, options.confirmTimeoutMs ?? 10_000);
  let closed = false;
  return {
    mode,
    data,
    runs: cols.runs,
    run: cols.run,
    nodes: cols.nodes,
    runEvents: cols.runEvents,
    runTree: cols.runTree,
    tickets: cols.tickets,
    approvals: cols.approvals,
    workflows: cols.workflows,
    docs: cols.docs,
    prompts: cols.prompts,
    scores: cols.scores,
    memoryFacts: cols.memoryFacts,
    crons: cols.crons,
    get status() {
      return data.stream.status;
    },
    onStatus: (l) => data.stream.onStatus(l),
    onNotice: (l) => data.stream.onNotice(l),
    connect: () => sync.connect(),
    invalidate: (target) => sync.invalidate(target),
    ...writes,
    close(options = {}) {
      if (closed) return;
      closed = true;
      sync.stop();
      if (!options.leaveCollections) {
        for (const c of cols.all()) void c.cleanup();
        queryClient.removeQueries({ queryKey: [...cols.queryKey] });
      }
      if (owned) data.close();
    },
  };
}

function isDataClient(x: WorkspaceMode | DataClient): x is DataClient {
  return typeof x === "object" && x !== null && "api" in x && "stream" in x;
}

