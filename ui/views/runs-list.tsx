/**
 * @module ui/views/runs-list
 * The runs list (`/runs`): every run of the workspace, newest first, live (rows change as the
 * engine moves, no reload). Filters and search live in the query string (ui/views/runs-filter.ts),
 * and so do the sort and the time range (ui/views/runs-sort.ts);
 * the table is virtualized (ui/views/runs-table.tsx); selected runs can be cancelled or resumed
 * in bulk (ui/views/runs-bulk-bar.tsx). While the runs load, the first page kept from the last
 * visit shows (ui/views/runs-first-page.ts). `/` focuses the search. See docs/app-views-runs.md.
 */
import { A, useSearchParams } from "@solidjs/router";
import { createEffect, createMemo, createSignal, For, Match, on, onCleanup, Show, Switch, untrack } from "solid-js";
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import { createCollectionRows } from "../components/collection-rows.js";
import { EmptyState } from "../components/empty-state.js";
import { formatCount } from "../components/format.js";
import { useConnection } from "../flow-context.js";
import { QueuedRuns } from "./queued-runs.js";
import { RunsBulkBar } from "./runs-bulk-bar.js";
import { EMPTY_SELECTION, keepShown, type Selection } from "./run-selection.js";
import { isFiltered, readRunsFilter, runMatcher, type RunsFilter, runsFilterParams, STATUS_CHOICES, type StatusChoice } from "./runs-filter.js";
import { isRanged, RANGE_CHOICES, type RangeChoice, rangeMatcher, readRunsOrder, type RunsOrder, runsOrderParams, type SortKey, sortRuns } from "./runs-sort.js";
import { keepFirstPage, readFirstPage } from "./runs-first-page.js";
import { RunsTable } from "./runs-table.js";
import "./runs-list.css";
import { servedAs } from "../components/workflow-label.js";

const newestFirst = (a: GatewayRunSummaryRow, b: GatewayRunSummaryRow) => b.createdAtMs - a.createdAtMs || (a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0);

const STATUS_LABELS: Record<StatusChoice, string> = { running: "Running", waiting: "Waiting", paused: "Paused", failed: "Failed", finished: "Finished", cancelled: "Cancelled", continued: "Continued" };

/** The runs-list view. */
export default function RunsList() {
  const { cols } = useConnection();
  const [params, setParams] = useSearchParams();
  const filter = createMemo(() => readRunsFilter({ ...params }));
  const setFilter = (change: Partial<RunsFilter>) => setParams(runsFilterParams({ ...filter(), ...change }), { replace: true });
  const order = createMemo(() => readRunsOrder({ ...params }));
  const setOrder = (change: Partial<RunsOrder>) => setParams(runsOrderParams({ ...order(), ...change }), { replace: true });
  // The same key again turns the direction round; another starts descending.
  const sortBy = (sort: SortKey) => setOrder({ sort, dir: order().sort === sort && order().dir === "desc" ? "asc" : "desc" });
  const narrowed = () => isFiltered(filter()) || isRanged(order());
  const clearFilters = () => {
    setFilter({ statuses: [], workflow: null, q: "" });
    setOrder({ range: null, from: "", to: "" });
  };
  const toggleStatus = (s: StatusChoice) => {
    const cur = filter().statuses;
    setFilter({ statuses: cur.includes(s) ? cur.filter((x) => x !== s) : [...cur, s] });
  };

  // Newest first, sorted in plain JS: a live query over 10,000 runs took seconds to open (ui/components/collection-rows.ts).
  const runs = createCollectionRows(cols.runs, newestFirst);
  // The workflows for the filter, read like the runs (no live query in the first view).
  const workflows = createCollectionRows(cols.workflows);
  // Until the collection is ready, the first page kept from the last visit (newest first, with
  // the count of all) stands in for it, unless the list is filtered or sorted otherwise.
  const kept = runs.isReady ? undefined : readFirstPage(cols.runs.id);
  const firstPage = () => (!runs.isReady && kept && kept.rows.length > 0 && !narrowed() && order().sort === "started" && order().dir === "desc" ? kept : undefined);
  // Read the rows only once loaded (the list shows its own loading state).
  const all = createMemo(() => (runs.isReady ? (runs() as GatewayRunSummaryRow[]) : (firstPage()?.rows ?? [])));
  const count = () => firstPage()?.count ?? all().length;
  // The first page is kept again a second after the rows change, and at once when the list
  // closes with a keep pending (a quick move to another view must not lose it).
  let keeping: { timer: ReturnType<typeof setTimeout>; keep: () => void } | undefined;
  createEffect(
    on(all, (rows) => {
      if (keeping) clearTimeout(keeping.timer);
      keeping = undefined;
      if (!runs.isReady) return;
      const keep = () => ((keeping = undefined), keepFirstPage(cols.runs.id, rows));
      keeping = { timer: setTimeout(keep, 1000), keep };
    }),
  );
  onCleanup(() => {
    if (keeping) clearTimeout(keeping.timer);
    keeping?.keep();
  });
  // A relative range is read as of when the list changes (or the range does), not every second.
  const shown = createMemo(() => {
    const now = Date.now();
    const inRange = rangeMatcher(order(), now);
    const matches = runMatcher(filter());
    const kept = narrowed() ? all().filter((r) => inRange(r) && matches(r)) : all();
    return sortRuns(kept, order(), now);
  });
  // Workflows of the workspace, and those of stored runs it no longer serves (read when the
  // number of runs changes, without subscribing to every row).
  // Each is named as its runs are (ui/components/workflow-label.ts), its key beside a name that differs.
  const workflowChoices = createMemo(() => {
    const names = new Map<string, string | null>(workflows.isReady ? workflows().map((w) => [w.key, w.name]) : []);
    if (all().length) {
      untrack(() => {
        for (const r of all()) if (r.workflowKey && !names.get(r.workflowKey)) names.set(r.workflowKey, r.workflowName);
      });
    }
    if (filter().workflow && !names.has(filter().workflow!)) names.set(filter().workflow!, null);
    return [...names]
      .map(([key, name]) => ({ key, label: servedAs({ workflowKey: key, workflowName: name }) ? `${name} (${key})` : key }))
      .sort((a, b) => a.label.localeCompare(b.label));
  });

  const [sel, setSel] = createSignal<Selection>(EMPTY_SELECTION);
  createEffect(on(shown, (rows) => setSel((s) => (s.ids.size ? keepShown(s, rows.map((r) => r.runId)) : s)), { defer: true }));

  let search!: HTMLInputElement;
  const onKey = (e: KeyboardEvent) => {
    const t = e.target as HTMLElement | null;
    const typing = !!t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName));
    if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !document.querySelector("dialog[open]")) {
      e.preventDefault();
      search.focus();
      search.select();
    } else if (e.key === "Escape" && t === search) search.blur();
  };
  document.addEventListener("keydown", onKey);
  onCleanup(() => document.removeEventListener("keydown", onKey));

  return (
    <section class="runs-view" aria-labelledby="runs-title">
      <header class="runs-head">
        <h1 id="runs-title">Runs</h1>
        <span class="muted" aria-live="polite" data-testid="runs-count">
          <Show when={runs.isReady || firstPage()} fallback="Loading…">
            {narrowed() ? `${formatCount(shown().length)} of ${formatCount(all().length)}` : `${formatCount(count())} ${count() === 1 ? "run" : "runs"}`}
          </Show>
        </span>
        <A class="button primary runs-launch" href="/launch">
          Launch a workflow
        </A>
      </header>

      <div class="runs-toolbar" role="search">
        <label class="runs-search">
          <span class="sr-only">Search runs by id or input</span>
          <input ref={search} type="search" placeholder="Search run id or input…" value={filter().q} onInput={(e) => setFilter({ q: e.currentTarget.value })} aria-keyshortcuts="/" data-testid="runs-search" />
          <kbd aria-hidden="true">/</kbd>
        </label>
        <div class="runs-statuses" role="group" aria-label="Filter by status">
          <For each={STATUS_CHOICES}>
            {(s) => (
              <button type="button" class="chip" aria-pressed={filter().statuses.includes(s)} onClick={() => toggleStatus(s)} data-testid={`status-filter-${s}`}>
                {STATUS_LABELS[s]}
              </button>
            )}
          </For>
        </div>
        <label class="runs-workflow">
          <span class="sr-only">Filter by workflow</span>
          <select onChange={(e) => setFilter({ workflow: e.currentTarget.value || null })} data-testid="workflow-filter">
            <option value="" selected={!filter().workflow}>
              All workflows
            </option>
            <For each={workflowChoices()}>
              {(w) => (
                <option value={w.key} selected={filter().workflow === w.key}>
                  {w.label}
                </option>
              )}
            </For>
          </select>
        </label>
        <label class="runs-range">
          <span class="sr-only">Started within</span>
          <select onChange={(e) => setOrder({ range: (e.currentTarget.value || null) as RangeChoice | null })} data-testid="range-filter">
            <option value="" selected={!order().range}>
              Any time
            </option>
            <For each={RANGE_CHOICES}>
              {(c) => (
                <option value={c.value} selected={order().range === c.value}>
                  {c.label}
                </option>
              )}
            </For>
          </select>
        </label>
        <Show when={order().range === "custom"}>
          <label class="runs-range-bound">
            From <input type="datetime-local" value={order().from} onChange={(e) => setOrder({ from: e.currentTarget.value })} data-testid="range-from" />
          </label>
          <label class="runs-range-bound">
            To <input type="datetime-local" value={order().to} onChange={(e) => setOrder({ to: e.currentTarget.value })} data-testid="range-to" />
          </label>
        </Show>
        <Show when={narrowed()}>
          <button type="button" class="ghost" onClick={clearFilters} data-testid="clear-filters">
            Clear filters
          </button>
        </Show>
      </div>

      <RunsBulkBar shown={shown} selection={sel} onSelect={setSel} act={(kind, id) => (kind === "cancel" ? cols.cancel(id) : cols.data.api.resumeRun(id))} />

      <QueuedRuns />
      <Switch>
        <Match when={runs.isError}>
          <div class="error-banner" role="alert">
            Could not load the runs{cols.runs.utils.lastError ? `: ${String((cols.runs.utils.lastError as Error).message ?? cols.runs.utils.lastError).replace(/\.+$/, "")}` : ""}. They load by themselves as soon as the workspace answers.{" "}
            <button type="button" class="ghost" onClick={() => void cols.invalidate({ collection: "runs" })}>
              Retry now
            </button>
          </div>
        </Match>
        <Match when={!runs.isReady && !firstPage()}>
          <div class="runs-table card runs-skeleton" aria-busy="true" aria-label="Loading runs">
            <For each={[0, 1, 2, 3, 4, 5, 6]}>{() => <div class="runs-skeleton-row" />}</For>
          </div>
        </Match>
        <Match when={all().length === 0}>
          <EmptyState
            title="No runs yet"
            hint="Runs appear here live, the moment they start."
            action={
              <A class="button primary" href="/launch" data-testid="empty-launch">
                Launch a workflow
              </A>
            }
          />
        </Match>
        <Match when={shown().length === 0}>
          <EmptyState title="No runs match" hint="Try another search, or fewer filters." action={<button type="button" onClick={clearFilters}>Clear filters</button>} />
        </Match>
        <Match when={true}>
          <RunsTable rows={shown} selection={sel} onSelect={setSel} filterKey={() => JSON.stringify([filter(), order()])} order={order} onSort={sortBy} />
        </Match>
      </Switch>
    </section>
  );
}
