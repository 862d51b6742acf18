/**
 * @module ui/views/run-detail/run-timeline
 * The Gantt picture of a run (timeline-model.ts): one row per node iteration, a bar per
 * attempt (coloured by its end), shaded spans for waits (a person, a signal, a timer) and
 * retry backoff. Fits the run by default; zoom in to read short attempts. One tab stop: arrow
 * keys move between bars; hover or focus shows a bar's details; click or Enter selects its node.
 */
import { type Accessor, createMemo, createSignal, For, Index, onCleanup, Show } from "solid-js";
import type { GatewayRunEventRow, GatewayRunNode } from "../../../core/data/index.js";
import { formatDuration, plural } from "../../components/format.js";
import { toneOf } from "../../components/status-badge.js";
import { buildTimeline, tickStep, type TimelineRow, type TimelineSpan } from "./timeline-model.js";
import "./run-timeline.css";

/** Rows drawn at most (a run with more shows its first ones and says so). */
const MAX_ROWS = 400;
const ZOOMS = [1, 2, 4, 8, 16, 32];
/** Room a tick's label needs on the axis ("12.5 s", "1 m 30 s"), in px. */
const TICK_PX = 70;

const spanTitle = (row: TimelineRow, s: TimelineSpan, startMs: number) => {
  const what = s.kind === "attempt" ? `attempt ${s.attempt} ${s.state}` : s.kind === "retry" ? "waiting to retry" : s.state.replace("-", " on ");
  const when = `at +${formatDuration(s.startMs - startMs)} for ${formatDuration(s.endMs - s.startMs)}${s.open ? " so far" : ""}`;
  return `${row.nodeId}${row.iteration > 0 ? ` (iteration ${row.iteration})` : ""}: ${what} ${when}${s.error ? ` — ${s.error}` : ""}`;
};

/**
 * The timeline of a run.
 * @example
 * <RunTimeline nodes={data.nodes()} events={data.events()} order={order()} startMs={run.createdAtMs} endMs={run.finishedAtMs} now={now} onSelect={select} />
 */
export function RunTimeline(props: {
  nodes: GatewayRunNode[];
  events: GatewayRunEventRow[];
  order: string[];
  startMs: number;
  endMs: number | null;
  now: Accessor<number>;
  selected: string | undefined;
  onSelect(nodeId: string, iteration: number): void;
}) {
  const [zoom, setZoom] = createSignal(1);
  const [active, setActive] = createSignal<{ row: number; span: number }>();
  const [tip, setTip] = createSignal<{ text: string; x: number; y: number }>();
  const timeline = createMemo(() => buildTimeline({ nodes: props.nodes, events: props.events, order: props.order, startMs: props.startMs, endMs: props.endMs, now: props.now() }));
  const rows = createMemo(() => timeline().rows.slice(0, MAX_ROWS));
  const range = () => timeline().endMs - timeline().startMs;
  const pct = (ms: number) => ((ms - timeline().startMs) / range()) * 100;
  /** The axis's width in px once laid out: a tick label is about TICK_PX wide, so a narrow axis (a phone) gets fewer. */
  const [axisPx, setAxisPx] = createSignal<number>();
  const tickCount = () => {
    const px = axisPx();
    return px === undefined ? 6 * zoom() : Math.max(2, Math.min(6 * zoom(), Math.floor(px / TICK_PX)));
  };
  const step = createMemo(() => tickStep(range(), tickCount()));
  const ticks = createMemo(() => {
    const [every, end] = [step(), range()];
    const out: number[] = [];
    for (let t = 0; t <= end; t += every) out.push(t);
    return out;
  });
  let body!: HTMLDivElement;

  const showTip = (el: HTMLElement, text: string) => {
    const r = el.getBoundingClientRect();
    setTip({ text, x: Math.min(window.innerWidth - 340, Math.max(8, r.left)), y: r.bottom + 6 });
  };
  const focusSpan = (row: number, span: number) => {
    setActive({ row, span });
    queueMicrotask(() => body.querySelector<HTMLElement>(`[data-span="${row}:${span}"]`)?.focus());
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const list = rows();
    if (list.length === 0) return;
    const cur = active() ?? { row: 0, span: -1 };
    const rowAt = (i: number) => list[Math.max(0, Math.min(list.length - 1, i))]!;
    let next: { row: number; span: number } | undefined;
    if (e.key === "ArrowRight") next = cur.span + 1 < rowAt(cur.row).spans.length ? { row: cur.row, span: cur.span + 1 } : cur;
    else if (e.key === "ArrowLeft") next = { row: cur.row, span: Math.max(0, cur.span - 1) };
    else if (e.key === "ArrowDown") next = { row: Math.min(list.length - 1, cur.row + 1), span: 0 };
    else if (e.key === "ArrowUp") next = { row: Math.max(0, cur.row - 1), span: 0 };
    else if ((e.key === "Enter" || e.key === " ") && active()) {
      e.preventDefault();
      const r = rowAt(cur.row);
      props.onSelect(r.nodeId, r.iteration);
      return;
    } else return;
    e.preventDefault();
    const r = rowAt(next.row);
    if (r.spans.length === 0) {
      setActive({ row: next.row, span: -1 });
      return;
    }
    focusSpan(next.row, Math.max(0, Math.min(next.span, r.spans.length - 1)));
  };

  return (
    <section class="run-timeline" aria-label="Timeline">
      <div class="run-timeline-tools">
        <span class="muted">
          {plural(timeline().rows.length, "node")} · {formatDuration(range())}
        </span>
        <div class="run-timeline-legend" aria-hidden="true">
          <span class="legend legend-ok">finished</span>
          <span class="legend legend-bad">failed</span>
          <span class="legend legend-info">running</span>
          <span class="legend legend-wait">waiting</span>
          <span class="legend legend-retry">retry backoff</span>
        </div>
        <div class="run-timeline-zoom" role="group" aria-label="Zoom">
          <button type="button" onClick={() => setZoom((z) => ZOOMS[Math.max(0, ZOOMS.indexOf(z) - 1)]!)} disabled={zoom() === 1} aria-label="Zoom out">
            −
          </button>
          <button type="button" onClick={() => setZoom(1)} disabled={zoom() === 1} data-testid="timeline-fit">
            Fit
          </button>
          <button type="button" onClick={() => setZoom((z) => ZOOMS[Math.min(ZOOMS.length - 1, ZOOMS.indexOf(z) + 1)]!)} disabled={zoom() === ZOOMS.at(-1)} aria-label="Zoom in">
            +
          </button>
        </div>
      </div>
      <Show when={rows().length > 0} fallback={<p class="muted run-timeline-empty">No task has started yet.</p>}>
        <div class="run-timeline-scroll" ref={body} tabIndex={0} role="group" aria-label="Attempts over time (arrow keys move between bars)" onKeyDown={onKeyDown} onScroll={() => setTip(undefined)}>
          <div class="run-timeline-grid" style={{ "--zoom": zoom(), "--tick": `${(step() / range()) * 100}%` }}>
            <div class="tl-label tl-axis-label" />
            <div
              class="tl-track tl-axis"
              aria-hidden="true"
              ref={(el) => {
                const observer = new ResizeObserver(() => setAxisPx(el.clientWidth));
                observer.observe(el);
                onCleanup(() => observer.disconnect());
              }}
            >
              {/* A tick near the right edge puts its label left of its line, or the label is cut off there. */}
              <For each={ticks()}>{(t) => <span class="tl-tick" classList={{ "at-end": t / range() > 0.9 }} style={{ left: `${(t / range()) * 100}%` }}>{formatDuration(t)}</span>}</For>
            </div>
            {/* By position (Index): the model is rebuilt every tick of a live run; rows and bars keep their elements (and focus). */}
            <Index each={rows()}>
              {(row, ri) => (
                <>
                  <button type="button" tabIndex={-1} class="tl-label" classList={{ selected: props.selected === row().key }} onClick={() => props.onSelect(row().nodeId, row().iteration)} title={row().label ?? row().nodeId}>
                    <span class="mono">{row().nodeId}</span>
                    <Show when={row().iteration > 0}>
                      <span class="muted"> #{row().iteration}</span>
                    </Show>
                  </button>
                  <div class="tl-track" data-testid="timeline-row" data-node-id={row().nodeId} classList={{ selected: props.selected === row().key }}>
                    <Index each={row().spans}>
                      {(s, si) => {
                        const title = () => spanTitle(row(), s(), timeline().startMs);
                        return (
                          <span
                            class={`tl-span tl-${s().kind} ${s().kind === "attempt" ? toneOf(s().state === "in-progress" ? "running" : s().state) : ""}`}
                            classList={{ open: s().open }}
                            tabIndex={-1}
                            role="img"
                            data-span={`${ri}:${si}`}
                            data-kind={s().kind}
                            data-state={s().state}
                            aria-label={title()}
                            style={{ left: `${pct(s().startMs)}%`, width: `${Math.max(0, pct(s().endMs) - pct(s().startMs))}%` }}
                            onMouseEnter={(e) => showTip(e.currentTarget, title())}
                            onMouseLeave={() => setTip(undefined)}
                            onFocus={(e) => {
                              setActive({ row: ri, span: si });
                              showTip(e.currentTarget, title());
                            }}
                            onBlur={() => setTip(undefined)}
                            onClick={() => props.onSelect(row().nodeId, row().iteration)}
                          />
                        );
                      }}
                    </Index>
                  </div>
                </>
              )}
            </Index>
          </div>
        </div>
        <Show when={timeline().rows.length > MAX_ROWS}>
          <p class="muted">Showing the first {MAX_ROWS} of {timeline().rows.length} nodes.</p>
        </Show>
      </Show>
      <Show when={tip()}>
        {(t) => (
          <div class="tl-tooltip" role="tooltip" style={{ left: `${t().x}px`, top: `${t().y}px` }}>
            {t().text}
          </div>
        )}
      </Show>
    </section>
  );
}
