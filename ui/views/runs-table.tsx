/**
 * @module ui/views/runs-table
 * The runs list's table: only the rows in view are in the page (@tanstack/solid-virtual), so
 * 10,000 runs scroll like 10. Each row: a checkbox, status, run id (with its parent or next
 * run linked), workflow, who started it, when, its duration (ticking while it runs) and its
 * agents' cost, child runs included (the row's `usage`; tokens when no price is known).
 * Keyboard: `j`/`k` or arrows move the active row, Enter opens it, `x` selects it
 * (shift+x a range).
 */
import { useNavigate } from "@solidjs/router";
import { createVirtualizer } from "@tanstack/solid-virtual";
import { type Accessor, createEffect, createMemo, createSignal, For, on, onCleanup, Show, untrack } from "solid-js";
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import { readBoot } from "../boot.js";
import { formatAgo, formatCost, formatCount, formatDateTime, formatDuration, formatUsage, shortId } from "../components/format.js";
import { MiddleEllipsis } from "../components/middle-ellipsis.js";
import { StatusBadge } from "../components/status-badge.js";
import { hasEnded, runDurationMs, startedByLabel } from "./run-facts.js";
import { type Selection, toggleAll, toggleSelection } from "./run-selection.js";
import type { RunsOrder, SortKey } from "./runs-sort.js";
import { servedAs, workflowTitle } from "../components/workflow-label.js";

const ROW_HEIGHT = 44;
/** Rows the table keeps in sight however short the page. */
const MIN_ROWS = 3;

/** What the table needs from the list. */
export interface RunsTableProps {
  rows: Accessor<GatewayRunSummaryRow[]>;
  selection: Accessor<Selection>;
  onSelect(next: (sel: Selection) => Selection): void;
  /** Changes when the filter does (the active row goes back to the top). */
  filterKey: Accessor<string>;
  /** The order shown; a sortable header's click asks for its key (again: the other direction). */
  order: Accessor<RunsOrder>;
  onSort(key: SortKey): void;
}

const SORT_LABELS: Record<SortKey, string> = { status: "Status", started: "Started", duration: "Duration", cost: "Cost" };

/** A header that sorts the list by `key` (aria-sort says how it is sorted now). */
function SortHeader(props: { key: SortKey; order: Accessor<RunsOrder>; onSort(key: SortKey): void; class?: string; title?: string }) {
  const active = () => props.order().sort === props.key;
  const arrow = () => (active() ? (props.order().dir === "asc" ? "▲" : "▼") : "");
  return (
    <span role="columnheader" class={props.class} aria-sort={active() ? (props.order().dir === "asc" ? "ascending" : "descending") : "none"}>
      <button type="button" class="runs-sort" classList={{ active: active() }} onClick={() => props.onSort(props.key)} title={props.title ?? `Sort by ${SORT_LABELS[props.key].toLowerCase()}`} data-testid={`sort-${props.key}`}>
        {SORT_LABELS[props.key]}
        <span aria-hidden="true" class="runs-sort-arrow">
          {arrow()}
        </span>
      </button>
    </span>
  );
}

const runPath = (runId: string) => `/runs/${encodeURIComponent(runId)}`;
// Rows use plain links (the router handles their clicks): cheaper than <A> for rows that come
// and go while scrolling. They carry the app's mount path (`/console`) as <A> would.
const mount = readBoot().base === "/" ? "" : readBoot().base;
const runHref = (runId: string) => `${mount}${runPath(runId)}`;

/**
 * The virtualized runs table.
 * @example
 * <RunsTable rows={shown} selection={sel} onSelect={setSel} filterKey={() => location.search} />
 */
export function RunsTable(props: RunsTableProps) {
  const navigate = useNavigate();
  // Nothing here reads every row under tracking (10,000 rows would mean 10,000 subscriptions
  // and a long first frame): the ids are read when a selection needs them, and the clock ticks
  // for the rows in view ("5 s ago", running durations) whatever they are.
  const ids = () => untrack(() => props.rows().map((r) => r.runId));
  const allSelected = createMemo(() => {
    const size = props.selection().ids.size;
    return size > 0 && size >= props.rows().length && untrack(() => props.rows().every((r) => props.selection().ids.has(r.runId)));
  });
  const [now, setNow] = createSignal(Date.now());
  const timer = setInterval(() => setNow(Date.now()), 1000);
  onCleanup(() => clearInterval(timer));

  const [active, setActive] = createSignal(0);
  createEffect(on(props.filterKey, () => setActive(0), { defer: true }));
  let scroller!: HTMLDivElement;
  const virtualizer = createVirtualizer({
    get count() {
      return props.rows().length;
    },
    getScrollElement: () => scroller,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });
  const moveTo = (i: number) => {
    const n = props.rows().length;
    if (!n) return;
    const next = Math.max(0, Math.min(n - 1, i));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: "auto" });
    queueMicrotask(() => scroller.querySelector<HTMLElement>(`[data-index="${next}"] a.run-id`)?.focus({ preventScroll: true }));
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(t.tagName))) return;
    if (document.querySelector("dialog[open]")) return;
    const row = props.rows()[active()];
    if (e.key === "j" || e.key === "ArrowDown") moveTo(active() + 1);
    else if (e.key === "k" || e.key === "ArrowUp") moveTo(active() - 1);
    else if (e.key === "Enter" && row && !t?.closest("a, button")) navigate(runPath(row.runId));
    else if ((e.key === "x" || e.key === "X") && row) props.onSelect((s) => toggleSelection(s, ids(), row.runId, e.shiftKey));
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", onKey);
  onCleanup(() => document.removeEventListener("keydown", onKey));

  return (
    <div class="runs-table card" role="table" aria-label="Runs" aria-rowcount={props.rows().length + 1}>
      <div class="runs-row runs-header" role="row">
        <span role="columnheader" class="runs-check">
          <input
            type="checkbox"
            aria-label="Select all shown runs"
            checked={allSelected()}
            ref={(el) => createEffect(() => (el.indeterminate = props.selection().ids.size > 0 && !allSelected()))}
            onChange={() => props.onSelect((s) => toggleAll(s, ids()))}
            data-testid="select-all"
          />
        </span>
        <SortHeader key="status" order={props.order} onSort={props.onSort} />
        <span role="columnheader">Run</span>
        <span role="columnheader">Workflow</span>
        <span role="columnheader">Started by</span>
        <SortHeader key="started" order={props.order} onSort={props.onSort} />
        <SortHeader key="duration" order={props.order} onSort={props.onSort} class="runs-num" />
        <SortHeader key="cost" order={props.order} onSort={props.onSort} class="runs-num" title="Sort by the agents' cost, child runs included" />
      </div>
      {/* Kept at least three rows tall when the page is short, but never taller than its rows
          (a list of one or two rows ends with its last row, no empty band under it). */}
      <div class="runs-scroll" ref={scroller} data-testid="runs-scroll" style={{ "min-height": `${Math.min(MIN_ROWS * ROW_HEIGHT, virtualizer.getTotalSize())}px` }}>
        <div class="runs-space" style={{ height: `${virtualizer.getTotalSize()}px` }}>
          {/* For over items keyed by index: scrolling adds the rows that come into view and drops
              those that leave; the rows in between are neither re-rendered nor repainted. */}
          <For each={virtualizer.getVirtualItems()}>
            {(item) => (
              <Show when={props.rows()[item.index]}>
                {(r) => (
                  <div
                    class="runs-row"
                    classList={{ active: active() === item.index, selected: props.selection().ids.has(r().runId) }}
                    role="row"
                    aria-rowindex={item.index + 2}
                    data-index={item.index}
                    data-testid="run-row"
                    data-run-id={r().runId}
                    data-status={r().status}
                    style={{ transform: `translateY(${item.start}px)` }}
                    onClick={(e) => {
                      setActive(item.index);
                      if (!(e.target as HTMLElement).closest("a, button, input, label")) navigate(runPath(r().runId));
                    }}
                  >
                    <span role="cell" class="runs-check">
                      <input
                        type="checkbox"
                        aria-label={`Select run ${r().runId}`}
                        checked={props.selection().ids.has(r().runId)}
                        onClick={(e) => {
                          setActive(item.index);
                          props.onSelect((s) => toggleSelection(s, ids(), r().runId, e.shiftKey));
                        }}
                      />
                    </span>
                    <span role="cell">
                      <StatusBadge status={r().status} owner={r().owner} />
                    </span>
                    <span role="cell" class="runs-id">
                      <a class="run-id mono" href={runHref(r().runId)} title={r().runId} onFocus={() => setActive(item.index)}>
                        <MiddleEllipsis text={r().runId} />
                      </a>
                      <Show when={r().parentRunId}>
                        {(p) => (
                          <a class="runs-related" href={runHref(p())} title={`Child of run ${p()}`} data-testid="parent-link">
                            ↳ child of {shortId(p())}
                          </a>
                        )}
                      </Show>
                      <Show when={r().nextRunId}>
                        {(n) => (
                          <a class="runs-related" href={runHref(n())} title={`Continued as run ${n()}`}>
                            → continued as {shortId(n())}
                          </a>
                        )}
                      </Show>
                    </span>
                    <span role="cell" class="runs-ellipsis" title={servedAs(r()) ?? workflowTitle(r())}>
                      {workflowTitle(r()) ?? "—"}
                    </span>
                    <span role="cell" class="muted runs-ellipsis">
                      {startedByLabel(r()) ?? "—"}
                    </span>
                    <span role="cell" class="muted runs-ellipsis" title={formatDateTime(r().createdAtMs)}>
                      {formatAgo(r().createdAtMs, now())}
                    </span>
                    <span role="cell" class="runs-num mono" classList={{ live: !hasEnded(r()) }}>
                      {formatDuration(runDurationMs(r(), now()))}
                    </span>
                    <span role="cell" class="runs-num mono" data-testid="run-cost" title={formatUsage(r().usage)}>
                      {r().usage?.costUsd !== undefined ? formatCost(r().usage!.costUsd!) : r().usage ? `${formatCount(r().usage!.totalTokens ?? 0)} tok` : "—"}
                    </span>
                  </div>
                )}
              </Show>
            )}
          </For>
        </div>
      </div>
    </div>
  );
}
