/**
 * @module ui/views/run-detail/timeline-model
 * The Gantt picture of a run: one row per node iteration, with a bar per attempt and shaded
 * spans for what the node waited on — a person (approval, human task), a signal or event, a
 * timer, or the backoff before a retry. Attempts come from the node rows; waits from the
 * event log (ApprovalRequested / RunWaiting open one, the decision, signal, timer, next start
 * or reset closes it). Spans still open end at `now` while the run is live.
 */
import type { GatewayRunEventRow, GatewayRunNode } from "../../../core/data/index.js";

/** One bar of a row. */
export interface TimelineSpan {
  kind: "attempt" | "wait" | "retry";
  /** Attempt state (`in-progress`, `finished`, `failed`, `cancelled`) or the wait's kind (`waiting-approval`, `waiting-event`, `waiting-timer`, `retry-backoff`). */
  state: string;
  startMs: number;
  endMs: number;
  /** Still open (ends at `now`). */
  open: boolean;
  attempt?: number;
  error?: string;
}

/** One row: a node iteration and its spans. */
export interface TimelineRow {
  key: string;
  nodeId: string;
  iteration: number;
  label: string | null;
  state: string;
  spans: TimelineSpan[];
}

/** The rows and the time range they cover. */
export interface Timeline {
  rows: TimelineRow[];
  startMs: number;
  endMs: number;
}

type NodeEvent = GatewayRunEventRow & { nodeId?: string; iteration?: number };

const WAIT_OPENERS: Record<string, string> = { ApprovalRequested: "waiting-approval" };
const WAIT_CLOSERS = new Set(["ApprovalDecided", "HumanTaskSubmitted", "SignalReceived", "TimerFired", "WaitTimedOut", "TaskStarted", "TaskFinished", "TaskSkipped", "TaskCancelled", "TaskReset", "TaskFailed"]);
const RUN_ENDS = new Set(["RunFinished", "RunFailed", "RunCancelled", "RunContinued"]);

/**
 * Builds the timeline of a run.
 * @example
 * const t = buildTimeline({ nodes, events, order: ["build#0", "ship#0"], startMs: run.createdAtMs, endMs: run.finishedAtMs, now: Date.now() });
 */
export function buildTimeline(opts: { nodes: GatewayRunNode[]; events: GatewayRunEventRow[]; order: string[]; startMs: number; endMs: number | null; now: number }): Timeline {
  const end = opts.endMs ?? opts.now;
  const rows = new Map<string, TimelineRow>();
  const latestIteration = new Map<string, number>();
  for (const n of opts.nodes) {
    rows.set(`${n.nodeId}#${n.iteration}`, {
      key: `${n.nodeId}#${n.iteration}`,
      nodeId: n.nodeId,
      iteration: n.iteration,
      label: n.label,
      state: n.state,
      spans: n.attempts.map((a) => ({
        kind: "attempt",
        state: a.state,
        startMs: a.startedAtMs,
        endMs: a.finishedAtMs ?? (a.state === "in-progress" ? end : a.startedAtMs),
        open: a.finishedAtMs === null && a.state === "in-progress",
        attempt: a.attempt,
        ...(a.error ? { error: `${a.error.code}: ${a.error.message}` } : {}),
      })),
    });
    latestIteration.set(n.nodeId, Math.max(latestIteration.get(n.nodeId) ?? 0, n.iteration));
  }

  const open = new Map<string, TimelineSpan>();
  const openSpan = (key: string, span: Omit<TimelineSpan, "endMs" | "open">) => {
    if (!rows.has(key) || open.has(key)) return;
    const s: TimelineSpan = { ...span, endMs: end, open: true };
    open.set(key, s);
    rows.get(key)!.spans.push(s);
  };
  const closeSpan = (key: string, atMs: number) => {
    const s = open.get(key);
    if (!s) return;
    s.endMs = Math.max(s.startMs, atMs);
    s.open = false;
    open.delete(key);
  };
  for (const e of opts.events as NodeEvent[]) {
    const key = e.nodeId !== undefined ? `${e.nodeId}#${e.iteration ?? 0}` : undefined;
    if (key && WAIT_CLOSERS.has(e.type)) closeSpan(key, e.timestampMs);
    if (key && WAIT_OPENERS[e.type]) openSpan(key, { kind: "wait", state: WAIT_OPENERS[e.type]!, startMs: e.timestampMs });
    if (key && e.type === "TaskFailed" && (e as { willRetry?: boolean }).willRetry) openSpan(key, { kind: "retry", state: "retry-backoff", startMs: e.timestampMs });
    if (e.type === "RunWaiting") {
      const w = e as GatewayRunEventRow & { status: string; waitingOn: string[] };
      for (const nodeId of w.waitingOn) openSpan(`${nodeId}#${latestIteration.get(nodeId) ?? 0}`, { kind: "wait", state: w.status, startMs: e.timestampMs });
    }
    if (RUN_ENDS.has(e.type)) for (const k of [...open.keys()]) closeSpan(k, e.timestampMs);
  }
  // A node parked on a wait the log did not open (a signal or timer before the run parked): from its last change.
  for (const row of rows.values()) {
    if (row.state.startsWith("waiting-") && !open.has(row.key)) openSpan(row.key, { kind: "wait", state: row.state, startMs: opts.nodes.find((n) => `${n.nodeId}#${n.iteration}` === row.key)!.updatedAtMs });
  }
  // A run that is not live any more leaves nothing open.
  if (opts.endMs !== null) for (const k of [...open.keys()]) closeSpan(k, opts.endMs);

  const rank = new Map(opts.order.map((k, i) => [k, i]));
  const firstStart = (r: TimelineRow) => Math.min(...r.spans.map((s) => s.startMs), Number.POSITIVE_INFINITY);
  const sorted = [...rows.values()].sort((a, b) => (rank.get(a.key) ?? Number.MAX_SAFE_INTEGER) - (rank.get(b.key) ?? Number.MAX_SAFE_INTEGER) || firstStart(a) - firstStart(b) || a.key.localeCompare(b.key));
  for (const r of sorted) r.spans.sort((a, b) => a.startMs - b.startMs);
  const starts = sorted.flatMap((r) => r.spans.map((s) => s.startMs));
  const startMs = Math.min(opts.startMs, ...starts);
  return { rows: sorted, startMs, endMs: Math.max(end, startMs + 1) };
}

/**
 * Round tick steps for an axis of `rangeMs` with about `count` ticks.
 * @example
 * tickStep(12_000, 6); // 2000
 */
export function tickStep(rangeMs: number, count: number): number {
  const raw = Math.max(1, rangeMs / Math.max(1, count));
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000, 43_200_000, 86_400_000];
  return steps.find((s) => s >= raw) ?? Math.ceil(raw / 86_400_000) * 86_400_000;
}
