/**
 * @module ui/views/runs-filter
 * The runs list's filter as URL state and as a predicate: which statuses (`?status=failed,waiting`,
 * where `waiting` means any `waiting-*`), which workflow (`?workflow=<key>`) and a search
 * (`?q=`), a phrase found in a run's id, workflow or one input value. Pure, so the list, links and tests
 * share one reading of the URL (docs/app-views-runs.md "Filters").
 */
import type { GatewayRunSummaryRow } from "../../core/data/index.js";

/** A status the filter offers: a run status, or `waiting` for every `waiting-*` status. */
export type StatusChoice = "running" | "waiting" | "paused" | "finished" | "failed" | "cancelled" | "continued";

/** The choices, in the order the list shows them. */
export const STATUS_CHOICES: readonly StatusChoice[] = ["running", "waiting", "paused", "failed", "finished", "cancelled", "continued"];

/** The list's filter. */
export interface RunsFilter {
  /** Empty: every status. */
  statuses: StatusChoice[];
  /** A workflow key; null: every workflow. */
  workflow: string | null;
  /** The search text as typed. */
  q: string;
}

/** Query parameters as the router gives them (a value may be missing or repeated). */
export type SearchParamsLike = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? "") : (v ?? ""));

/**
 * Reads the filter from query parameters; unknown statuses are ignored.
 * @example
 * readRunsFilter({ status: "failed,waiting", workflow: "release", q: "ada" });
 * // { statuses: ["failed", "waiting"], workflow: "release", q: "ada" }
 */
export function readRunsFilter(params: SearchParamsLike): RunsFilter {
  const statuses = first(params.status)
    .split(",")
    .map((s) => s.trim())
    .filter((s, i, all): s is StatusChoice => (STATUS_CHOICES as readonly string[]).includes(s) && all.indexOf(s) === i);
  const workflow = first(params.workflow).trim();
  return { statuses, workflow: workflow || null, q: first(params.q) };
}

/**
 * The query parameters of a filter, for `setSearchParams` (undefined removes a parameter, so
 * an empty filter leaves a clean `/runs`).
 * @example
 * setSearchParams(runsFilterParams({ statuses: ["failed"], workflow: null, q: "" }));
 * // { status: "failed", workflow: undefined, q: undefined }
 */
export function runsFilterParams(filter: RunsFilter): Record<"status" | "workflow" | "q", string | undefined> {
  return {
    status: filter.statuses.length ? filter.statuses.join(",") : undefined,
    workflow: filter.workflow ?? undefined,
    q: filter.q ? filter.q : undefined,
  };
}

/**
 * Whether a filter narrows the list at all.
 * @example
 * isFiltered(readRunsFilter({})); // false
 */
export function isFiltered(filter: RunsFilter): boolean {
  return filter.statuses.length > 0 || filter.workflow !== null || filter.q.trim() !== "";
}

/**
 * The status choice a run's status falls under.
 * @example
 * statusChoiceOf("waiting-approval"); // "waiting"
 */
export function statusChoiceOf(status: string): StatusChoice | null {
  if (status.startsWith("waiting")) return "waiting";
  return (STATUS_CHOICES as readonly string[]).includes(status) ? (status as StatusChoice) : null;
}

// A run's id, workflow and input never change: its search text is computed once per run (keyed
// by id and start, not by row object: live rows are store proxies updated in place).
const searchText = new Map<string, string>();
const SEARCH_CACHE_MAX = 50_000;

/**
 * The text a search looks in, one field a line: the run id, the workflow, and each value of
 * the input with its key before it (`shards 4`), lowercase, computed once per run. A phrase
 * matches inside one line, never across two (an id and an input value).
 * @example
 * runSearchText(row); // "r-42\nrelease\nrelease\nservice api\nshards 4"
 */
export function runSearchText(row: GatewayRunSummaryRow): string {
  const key = `${row.runId}\u0000${row.createdAtMs}`;
  let text = searchText.get(key);
  if (text === undefined) {
    const lines: string[] = [row.runId, row.workflowKey ?? "", row.workflowName ?? ""];
    collectText(row.input, "", lines, 0);
    text = lines.map((l) => l.replace(/\s+/g, " ")).join("\n").toLowerCase();
    if (searchText.size >= SEARCH_CACHE_MAX) searchText.clear();
    searchText.set(key, text);
  }
  return text;
}

function collectText(value: unknown, key: string, out: string[], depth: number): void {
  if (value === null || value === undefined || depth > 8) return;
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    out.push(key ? `${key} ${String(value)}` : String(value));
  } else if (Array.isArray(value)) {
    for (const v of value) collectText(v, key, out, depth + 1);
  } else if (typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      collectText(v, k, out, depth + 1);
    }
  }
}

/**
 * The predicate of a filter: the search, as a phrase (spaces collapsed, any case), must occur
 * in the run's id, its workflow, or one input value (with its key).
 * @example
 * const keep = runMatcher(readRunsFilter({ q: "ada" }));
 * rows.filter(keep);
 */
export function runMatcher(filter: RunsFilter): (row: GatewayRunSummaryRow) => boolean {
  const statuses = new Set(filter.statuses);
  const phrase = filter.q.trim().replace(/\s+/g, " ").toLowerCase();
  return (row) => {
    if (statuses.size && !statuses.has(statusChoiceOf(row.status) as StatusChoice)) return false;
    if (filter.workflow !== null && row.workflowKey !== filter.workflow && row.workflowName !== filter.workflow) return false;
    return !phrase || runSearchText(row).includes(phrase);
  };
}
