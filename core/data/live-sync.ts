/**
 * @module core/data/live-sync
 * Keeps the collections of a registry current from the change stream. The stream sends
 * invalidations, never rows (docs/hosting.md "The change stream"), so each change is turned
 * into the smallest refetch that covers it:
 *
 * - `runs` with a `runId`: that run is fetched once (`GET /v1/api/runs/:id?view=summary`, or
 *   the full row when its `run`/`nodes` collections exist) and its row is upserted into `runs`
 *   and handed to the run's `run`/`nodes` query; its `runEvents` get the
 *   events after the last seq they hold; a new frame refreshes its `runTree`, `tickets` and
 *   `prompts`; a finished task or run refreshes `scores` and `memoryFacts`. Fetches of one run overlap at most two deep, start at least REFRESH_SPACING_MS apart, and the newest result wins (core/data/refresh-coalescer.ts).
 *   An agent's transcript event (`Agent*`: streamed text, a tool call, a generation's start or
 *   end) writes only its event row, so it refreshes only the run's `runEvents`: a watched
 *   generation costs each watcher one small fetch per flush, not two (docs/performance.md
 *   "A streamed token to a watching browser").
 * - another collection: that collection is refetched (coalesced the same way).
 * - `reset` (the gateway restarted, or this client was away too long): everything is refetched.
 * - the stream back online after it was offline (also when it was offline from the start):
 *   everything is refetched too. Changes heard
 *   while the network was flaky may have had their fetches fail (a run started meanwhile), and
 *   collections whose load failed leave their error state.
 *
 * Each applied refresh is announced (`applied`), which is how optimistic writes learn that the
 * change stream confirmed them (core/data/writes.ts).
 */
import type { QueryClient } from "@tanstack/query-core";
import type { DomainChange } from "../api/index.js";
import { isFlowError } from "../errors.js";
import type { ConnectionStatus } from "./change-stream.js";
import { listAllRunEvents } from "./data-api.js";
import type { DataClient } from "./data-client.js";
import type { LiveCollection } from "./query-collection.js";
import { Coalescer } from "./refresh-coalescer.js";
import type { GatewayRunEventRow, GatewayRunRow, GatewayRunSummaryRow } from "./rows.js";
import type { CollectionName, CollectionSource, PerRunKind } from "./source.js";

/**
 * A refresh that reached the collections.
 * @example
 * sync.onApplied((a: AppliedRefresh) => { if (a.kind === "run") console.log(a.runId, a.row?.status); });
 */
export type AppliedRefresh = { kind: "run"; runId: string; row: GatewayRunSummaryRow | undefined } | { kind: "collection"; name: CollectionName };

/** Agent transcript events (`AgentTextDelta`, `AgentToolCall`, ...): an event row and nothing else. */
const TRANSCRIPT_REASON_PREFIX = "Agent";

/** Events that change a run's graph snapshot (run tree, tickets, prompts). */
const FRAME_REASONS = new Set(["FrameCommitted", "RunStarted", "RunResumed", "TimeTravelFinished"]);

/**
 * The change-stream driven refresher of one registry.
 * @example
 * const sync = new LiveSync(data, cols, queryClient);
 * await sync.connect();
 */
export class LiveSync {
  private readonly coalescer = new Coalescer();
  private readonly listeners = new Set<(a: AppliedRefresh) => void>();
  private unsubscribe: (() => void) | undefined;
  private stopStatus: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly data: DataClient,
    private readonly cols: CollectionSource,
    private readonly queryClient: QueryClient,
  ) {}

  /** Starts listening to the change stream; resolves with the status after its first attempt. */
  connect(): Promise<ConnectionStatus> {
    const stream = this.data.stream;
    if (!this.unsubscribe && !this.stopped) {
      this.unsubscribe = stream.subscribe((e) => {
        if (e.type === "change") void this.onChange(e.change);
        else if (e.type === "reset") void this.invalidate();
      });
      // Offline at any time, before the first answer too (a workspace opened offline shows
      // what this browser kept, or empty rows it never saw): everything is refetched once back.
      let away = false;
      this.stopStatus = stream.onStatus((s) => {
        if (s === "offline") away = true;
        if (s !== "online") return;
        if (away) void this.invalidate();
        away = false;
      });
    }
    if (stream.status !== "connecting") return Promise.resolve(stream.status);
    return new Promise((resolve) => {
      const off = stream.onStatus((s) => {
        off();
        resolve(s);
      });
    });
  }

  /** Calls `listener` with each refresh applied from now on. */
  onApplied(listener: (a: AppliedRefresh) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Refetches a collection, a run's rows, or everything. */
  async invalidate(target: { collection?: CollectionName; runId?: string } = {}): Promise<void> {
    if (target.runId) return this.refreshRun(target.runId, "invalidate");
    if (target.collection) return this.refetch(target.collection);
    const names: CollectionName[] = ["runs", "approvals", "workflows", "prompts", "scores", "memoryFacts", "crons"];
    const perRun = this.cols.all().filter((c) => !names.some((n) => this.cols[n] === c));
    await Promise.all([...names.map((n) => this.refetch(n)), ...perRun.map((c) => refetchIfLive(c))]);
  }

  /** Stops listening. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.stopStatus?.();
    this.listeners.clear();
  }

  private async onChange(change: DomainChange): Promise<void> {
    if (change.collection === "runs" && change.runId) await this.refreshRun(change.runId, change.reason);
    else await this.refetch(change.collection);
  }

  private refetch(name: CollectionName): Promise<void> {
    return this.coalescer.run(`collection:${name}`, async () => {
      if (!this.cols.replicated?.has(name)) await refetchIfLive(this.cols[name]);
      this.emit({ kind: "collection", name });
    });
  }

  /** The run's row (newest fetch wins), and what the change's reason touches besides it. */
  private async refreshRun(runId: string, reason: string): Promise<void> {
    const perRun = this.cols.perRun(runId);
    if (reason.startsWith(TRANSCRIPT_REASON_PREFIX)) {
      const events = perRun.get("runEvents");
      if (events) await this.refreshPerRun("runEvents", events, runId, reason);
      return;
    }
    const related: Array<Promise<void>> = [...perRun].map(([kind, c]) => this.refreshPerRun(kind, c, runId, reason));
    if (FRAME_REASONS.has(reason)) related.push(this.refetch("prompts"));
    // Scores and memory facts are written by tasks and scorers; the change feed has no event
    // of their own for them, so a task or run that finished refreshes them (when in use).
    if (reason === "TaskFinished" || reason === "RunFinished") related.push(this.refetch("scores"), this.refetch("memoryFacts"));
    await Promise.all([this.refreshRunRow(runId, perRun.has("run") || perRun.has("nodes")), ...related]);
  }

  private refreshRunRow(runId: string, full: boolean): Promise<void> {
    // A replicated run list (multiplayer) has the row already; only a run page needs a fetch.
    if (!full && this.cols.replicated?.has("runs")) return Promise.resolve();
    const key = `run:${runId}`;
    return this.coalescer.run(key, async (generation) => {
      // The full row only when a run page shows this run (run/nodes); a run list needs the summary.
      let row: GatewayRunSummaryRow | GatewayRunRow | undefined;
      try {
        row = full ? await this.data.api.getRun(runId) : await this.data.api.getRunSummary(runId);
      } catch (error) {
        if (!isFlowError(error, "RUN_NOT_FOUND")) throw error;
      }
      if (this.stopped || !this.coalescer.isLatest(key, generation)) return;
      const runs = this.cols.runs;
      if (runs.status === "ready") {
        if (row) runs.utils.writeUpsert(full ? summaryOf(row as GatewayRunRow) : row);
        else if (runs.has(runId)) runs.utils.writeDelete(runId);
      }
      const runKey = [...this.cols.queryKey, "run", runId];
      if (row && full && this.queryClient.getQueryState(runKey)) this.queryClient.setQueryData(runKey, row);
      this.emit({ kind: "run", runId, row });
    });
  }

  private async refreshPerRun(kind: PerRunKind, c: LiveCollection<any, any>, runId: string, reason: string): Promise<void> {
    if (c.status !== "ready") return;
    if (kind === "runEvents") {
      await this.coalescer.run(`events:${runId}`, async () => {
        const last = Math.max(0, ...(c.keys() as Iterable<number>));
        const events = (await listAllRunEvents(this.data.api, runId, last)) as GatewayRunEventRow[];
        if (events.length && !this.stopped) c.utils.writeUpsert(events);
      });
    } else if ((kind === "runTree" || kind === "tickets") && (FRAME_REASONS.has(reason) || reason === "invalidate" || (kind === "tickets" && reason.startsWith("Task")))) {
      await c.utils.refetch();
    }
  }

  private emit(applied: AppliedRefresh): void {
    for (const l of this.listeners) l(applied);
  }
}

/** Refetches a collection that is syncing (an idle or cleaned-up one loads fresh when next used). */
async function refetchIfLive(c: LiveCollection<any, any>): Promise<void> {
  if (c.status === "ready" || c.status === "error" || c.status === "loading") await c.utils.refetch();
}

/**
 * The summary row (what `runs` holds) of a full run row.
 * @example
 * runs.utils.writeUpsert(summaryOf(await api.getRun(runId)));
 */
export function summaryOf(row: GatewayRunRow): GatewayRunSummaryRow {
  const { output: _o, auth: _a, nodes: _n, frameNo: _f, lastSeq: _l, ...summary } = row;
  return summary;
}
