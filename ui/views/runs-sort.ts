/**
 * @module ui/views/runs-sort
 * The runs list's order and time range as URL state: `?sort=started|duration|status|cost`
 * with `&dir=asc` (default: descending, the newest, longest, most urgent or dearest first), and
 * `?range=1h|24h|7d` or `?range=custom&from=<local time>&to=<local time>` (runs started in that
 * window). Pure, so the list, its headers and tests share one reading of the URL, and a reload
 * or a link restores it (docs/app-views-runs.md "Sort and time range").
 */
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import type { SearchParamsLike } from "./runs-filter.js";

/** What the list can be sorted by. */
export type SortKey = "started" | "duration" | "status" | "cost";

/** The sort keys, in the order the headers show them. */
export const SORT_KEYS: readonly SortKey[] = ["status", "started", "duration", "cost"];

/** A time range: the last hour, day or week, or a custom window. */
export type RangeChoice = "1h" | "24h" | "7d" | "custom";

/** The ranges with their labels, in the order the picker shows them. */
export const RANGE_CHOICES: ReadonlyArray<{ value: RangeChoice; label: string }> = [
  { value: "1h", label: "Last hour" },
  { value: "24h", label: "Last day" },
  { value: "7d", label: "Last week" },
  { value: "custom", label: "Custom…" },
];

const RANGE_MS: Record<Exclude<RangeChoice, "custom">, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000 };

/** The list's order and time range. */
export interface RunsOrder {
  sort: SortKey;
  dir: "asc" | "desc";
  /** Null: any time. */
  range: RangeChoice | null;
  /** A custom range's bounds as typed (`YYYY-MM-DDTHH:MM`, local time); "" when open. */
  from: string;
  to: string;
}

const first = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));

/**
 * Reads the order from query parameters; unknown values fall back to the default (newest first, any time).
 * @example
 * readRunsOrder({ sort: "cost", range: "24h" }); // { sort: "cost", dir: "desc", range: "24h", from: "", to: "" }
 */
export function readRunsOrder(params: SearchParamsLike): RunsOrder {
  const sort = first(params.sort) as SortKey;
  const range = first(params.range) as RangeChoice;
  return {
    sort: SORT_KEYS.includes(sort) ? sort : "started",
    dir: first(params.dir) === "asc" ? "asc" : "desc",
    range: RANGE_CHOICES.some((c) => c.value === range) ? range : null,
    from: first(params.from),
    to: first(params.to),
  };
}

/**
 * The query parameters of an order (undefined removes one: the default leaves a clean `/runs`).
 * @example
 * runsOrderParams({ sort: "started", dir: "desc", range: null, from: "", to: "" }); // every value undefined
 */
export function runsOrderParams(order: RunsOrder): Record<"sort" | "dir" | "range" | "from" | "to", string | undefined> {
  const custom = order.range === "custom";
  return {
    sort: order.sort === "started" ? undefined : order.sort,
    dir: order.dir === "asc" ? "asc" : undefined,
    range: order.range ?? undefined,
    from: custom && order.from ? order.from : undefined,
    to: custom && order.to ? order.to : undefined,
  };
}

/** Whether the range narrows the list. */
export function isRanged(order: RunsOrder): boolean {
  return order.range !== null && (order.range !== "custom" || order.from !== "" || order.to !== "");
}

/** A local `YYYY-MM-DDTHH:MM` as epoch ms (NaN when it is not one). */
function localMs(text: string): number {
  return text ? new Date(text).getTime() : Number.NaN;
}

/**
 * The predicate of a range: runs started inside it, as of `nowMs`.
 * @example
 * rows.filter(rangeMatcher(readRunsOrder({ range: "1h" }), Date.now()));
 */
export function rangeMatcher(order: RunsOrder, nowMs: number): (row: GatewayRunSummaryRow) => boolean {
  if (order.range === null) return () => true;
  if (order.range !== "custom") {
    const since = nowMs - RANGE_MS[order.range];
    return (row) => row.createdAtMs >= since;
  }
  const from = localMs(order.from);
  // A `to` names a minute: runs started within it count.
  const to = localMs(order.to) + 59_999;
  return (row) => (Number.isNaN(from) || row.createdAtMs >= from) && (Number.isNaN(to) || row.createdAtMs <= to);
}

/** Statuses by urgency: what needs a person first. */
const STATUS_RANK: Record<string, number> = { failed: 0, waiting: 1, running: 2, paused: 3, cancelled: 4, continued: 5, finished: 6 };
const statusRank = (status: string) => STATUS_RANK[status.startsWith("waiting") ? "waiting" : status] ?? 7;

/** A run's cost for sorting: its price, else its tokens as a millionth of a dollar each; null when none is known. */
const costOf = (row: GatewayRunSummaryRow): number | null => (row.usage ? (row.usage.costUsd ?? (row.usage.totalTokens ?? 0) * 1e-6) : null);

/**
 * The rows in the order asked (ties: newest first; runs with no cost last either way). `rows`
 * come newest first; sorting by `started` descending leaves them as they are.
 * @example
 * sortRuns(rows, readRunsOrder({ sort: "duration" }), Date.now());
 */
export function sortRuns(rows: readonly GatewayRunSummaryRow[], order: RunsOrder, nowMs: number): GatewayRunSummaryRow[] {
  const sign = order.dir === "asc" ? 1 : -1;
  const newest = (a: GatewayRunSummaryRow, b: GatewayRunSummaryRow) => b.createdAtMs - a.createdAtMs;
  const by: Record<SortKey, (a: GatewayRunSummaryRow, b: GatewayRunSummaryRow) => number> = {
    started: (a, b) => sign * (a.createdAtMs - b.createdAtMs),
    duration: (a, b) => sign * ((a.finishedAtMs ?? nowMs) - a.createdAtMs - ((b.finishedAtMs ?? nowMs) - b.createdAtMs)) || newest(a, b),
    // Descending puts the most urgent first.
    status: (a, b) => -sign * (statusRank(a.status) - statusRank(b.status)) || newest(a, b),
    cost: (a, b) => {
      const ca = costOf(a);
      const cb = costOf(b);
      if (ca === null || cb === null) return ca === cb ? newest(a, b) : ca === null ? 1 : -1;
      return sign * (ca - cb) || newest(a, b);
    },
  };
  if (order.sort === "started" && order.dir === "desc") return [...rows];
  return [...rows].sort(by[order.sort]);
}
