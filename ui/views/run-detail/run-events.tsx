/**
 * @module ui/views/run-detail/run-events
 * The run's event log (`cols.runEvents`): virtualized (a run of thousands of events scrolls
 * smoothly), filtered by type and node (kept in the URL as `?evtype=&evnode=`), following new
 * events live unless the person scrolled up (then a button jumps back to the latest). Each
 * event expands to its full JSON.
 */
import { useSearchParams } from "@solidjs/router";
import { createVirtualizer } from "@tanstack/solid-virtual";
import { createEffect, createMemo, createSignal, For, on, Show } from "solid-js";
import type { GatewayRunEventRow } from "../../../core/data/index.js";
import { formatCount } from "../../components/format.js";
import { toneOf } from "../../components/status-badge.js";
import "./run-events.css";

type AnyEvent = GatewayRunEventRow & Record<string, unknown>;

/** Heights (px) the rows are laid out with; run-events.css sets the same. */
const LINE_PX = 31;
const JSON_LINE_PX = 18;
const JSON_PAD_PX = 18;

/** The tone of an event type (failures red, waits amber, ends green). */
function eventTone(type: string): string {
  if (/Failed|TimedOut|Denied|Alert/.test(type)) return toneOf("failed");
  if (/Waiting|Requested|Paused/.test(type)) return toneOf("waiting");
  if (/Finished|Decided|Submitted|Received|Fired/.test(type)) return toneOf("finished");
  if (/Started|Resumed/.test(type)) return toneOf("running");
  return toneOf("pending");
}

/** One line of what an event says beyond its type ("charge · attempt 2 · retry in 400 ms · TASK_FAILED: ..."). */
function eventSummary(e: AnyEvent): string {
  const parts: string[] = [];
  if (typeof e.nodeId === "string") parts.push(`${e.nodeId}${typeof e.iteration === "number" && e.iteration > 0 ? ` #${e.iteration}` : ""}`);
  if (typeof e.attempt === "number") parts.push(`attempt ${e.attempt}`);
  if (typeof e.durationMs === "number") parts.push(`${e.durationMs} ms`);
  if (typeof e.status === "string") parts.push(e.status);
  if (Array.isArray(e.waitingOn)) parts.push(`on ${e.waitingOn.join(", ")}`);
  // A rewind's restore left these repositories inside the workspace as they were (docs/time-travel.md).
  if (Array.isArray(e.keptRepositories)) parts.push(`left as they were: ${e.keptRepositories.join(", ")}`);
  if (typeof e.frameNo === "number") parts.push(`frame ${e.frameNo} · ${String(e.taskCount ?? "")} tasks`);
  if (typeof e.name === "string") parts.push(e.name);
  if (typeof e.reason === "string") parts.push(e.reason);
  if (e.willRetry === true) parts.push(`retry in ${String(e.retryInMs ?? "?")} ms`);
  const err = e.error as { code?: string; message?: string } | undefined;
  if (err?.message) parts.push(`${err.code ?? "ERROR"}: ${err.message}`);
  return parts.join(" · ");
}

/**
 * The event log of a run.
 * @example
 * <RunEvents events={data.events()} loading={data.eventsLoading()} startMs={run.createdAtMs} />
 */
export function RunEvents(props: { events: GatewayRunEventRow[]; loading: boolean; startMs: number }) {
  const [params, setParams] = useSearchParams<{ evtype?: string; evnode?: string }>();
  const [expanded, setExpanded] = createSignal<ReadonlySet<number>>(new Set());
  const [following, setFollowing] = createSignal(true);
  const types = createMemo(() => [...new Set(props.events.map((e) => e.type))].sort());
  const nodes = createMemo(() => [...new Set(props.events.map((e) => (e as AnyEvent).nodeId).filter((n): n is string => typeof n === "string"))].sort());
  const filtered = createMemo(() => props.events.filter((e) => (!params.evtype || e.type === params.evtype) && (!params.evnode || (e as AnyEvent).nodeId === params.evnode)));
  // A signal, not a plain ref: the list mounts after the first events arrive (a deep link to
  // `?tab=events`), and the virtualizer must see the element appear, once it is in the page
  // (its size is read then), to lay the rows out.
  const [scroller, setScroller] = createSignal<HTMLDivElement>();
  // Sizes are known, not measured (measuring thousands of rows while following the bottom
  // kept the list busy for seconds): a line is LINE_PX, an open event adds its JSON lines.
  const jsonOf = createMemo(() => new Map([...expanded()].map((seq) => [seq, JSON.stringify(props.events.find((e) => e.seq === seq), null, 2) ?? ""])));
  const sizeOf = (i: number) => {
    const json = jsonOf().get(filtered()[i]?.seq ?? -1);
    return LINE_PX + (json === undefined ? 0 : json.split("\n").length * JSON_LINE_PX + JSON_PAD_PX);
  };
  const virtualizer = createVirtualizer({
    get count() {
      return filtered().length;
    },
    getScrollElement: () => scroller() ?? null,
    estimateSize: sizeOf,
    overscan: 12,
    getItemKey: (i: number) => filtered()[i]?.seq ?? i,
  });
  createEffect(on(jsonOf, () => virtualizer.measure(), { defer: true }));
  const toLatest = () => {
    if (filtered().length > 0) virtualizer.scrollToIndex(filtered().length - 1, { align: "end" });
    setFollowing(true);
  };
  // Follow new events while the person is at the bottom, and go to the latest when the list
  // appears: a finished run's events all come in one batch, before the list is in the page, so
  // scrolling then found no list and nothing came after to scroll again. At the next frame, when
  // the list and its rows' height are laid out (a scroll before that stopped short of the end).
  createEffect(on([() => filtered().length, scroller], () => following() && requestAnimationFrame(toLatest)));
  const onScroll = () => {
    const el = scroller();
    const atBottom = !el || el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    setFollowing(atBottom);
  };
  const toggle = (seq: number) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (next.has(seq)) next.delete(seq);
      else next.add(seq);
      return next;
    });
  return (
    <section class="run-events" aria-label="Event log">
      <div class="run-events-tools">
        <label>
          <span>Type</span>
          <select value={params.evtype ?? ""} onChange={(e) => setParams({ evtype: e.currentTarget.value || undefined })} data-testid="events-type">
            <option value="">All types</option>
            <For each={types()}>{(t) => <option value={t}>{t}</option>}</For>
          </select>
        </label>
        <label>
          <span>Node</span>
          <select value={params.evnode ?? ""} onChange={(e) => setParams({ evnode: e.currentTarget.value || undefined })} data-testid="events-node">
            <option value="">All nodes</option>
            <For each={nodes()}>{(n) => <option value={n}>{n}</option>}</For>
          </select>
        </label>
        <span class="muted" role="status">
          {formatCount(filtered().length)} of {formatCount(props.events.length)} events
        </span>
        <Show when={!following()}>
          <button type="button" class="run-events-latest" onClick={toLatest}>
            Jump to latest ↓
          </button>
        </Show>
      </div>
      <Show when={!props.loading || props.events.length > 0} fallback={<p class="muted">Loading events…</p>}>
        <Show when={filtered().length > 0} fallback={<p class="muted run-events-empty">{props.events.length === 0 ? "No events yet." : "No event matches these filters."}</p>}>
          <div class="run-events-scroll" ref={(el) => queueMicrotask(() => setScroller(el))} onScroll={onScroll} data-testid="event-log">
            <div class="run-events-inner" style={{ height: `${virtualizer.getTotalSize()}px` }}>
              <For each={virtualizer.getVirtualItems()}>
                {(item) => {
                  const e = () => filtered()[item.index] as AnyEvent | undefined;
                  return (
                    <Show when={e()}>
                      {(ev) => (
                        <div class="run-event" data-index={item.index} style={{ transform: `translateY(${item.start}px)`, height: `${item.size}px` }} data-testid="event" data-seq={ev().seq} data-type={ev().type}>
                          <button type="button" class="run-event-line" aria-expanded={expanded().has(ev().seq)} onClick={() => toggle(ev().seq)}>
                            <span class="run-event-seq mono">{ev().seq}</span>
                            <span class="run-event-time mono">+{((ev().timestampMs - props.startMs) / 1000).toFixed(2)} s</span>
                            <span class={`badge ${eventTone(ev().type)}`}>{ev().type}</span>
                            <span class="run-event-summary">{eventSummary(ev())}</span>
                          </button>
                          <Show when={expanded().has(ev().seq)}>
                            <pre class="run-event-json">{jsonOf().get(ev().seq)}</pre>
                          </Show>
                        </div>
                      )}
                    </Show>
                  );
                }}
              </For>
            </div>
          </div>
        </Show>
      </Show>
    </section>
  );
}
