/**
 * @module ui/views/run-detail/run-graph
 * The Graph tab of the run page: the run's task tree drawn as a graph (SVG), laid out by
 * graph-model.ts: a Sequence's steps one under another, a Parallel's side by side, wired. Each
 * task is a box coloured by its state; the live ones (running, or waiting on a person, a signal
 * or a timer) carry a ring, and the view scrolls to keep the live task in sight as the run moves
 * on. A click, Enter or Space selects a task (the node panel beside the tree follows and the URL
 * keeps `?node=&iteration=`); the tab itself is `?tab=graph`.
 */
import { createEffect, createMemo, For, on, Show } from "solid-js";
import { shownNodeState } from "../../../core/engine/internal.js";
import { toneOf } from "../../components/status-badge.js";
import { layoutGraph } from "./graph-model.js";
import type { TreeItem, TreeTask } from "./tree-model.js";
import "./run-graph.css";

/** Tasks drawn at most (a run with more shows its first ones and says so). */
const MAX_NODES = 400;
const W = 172;
const H = 40;
const GAP_X = 28;
const GAP_Y = 34;
const PAD = 14;
/** Characters of a label that fit a box. */
const FIT = 20;

/** Whether a task is where the run is now: running, or waiting on a person, a signal or a timer. */
export const isLive = (state: string) => state === "in-progress" || state.startsWith("waiting");

const nameOf = (t: TreeTask) => `${t.label ?? t.nodeId}${t.iteration > 0 ? ` #${t.iteration}` : ""}`;
const fit = (text: string) => (text.length > FIT ? `${text.slice(0, FIT - 1)}…` : text);

/**
 * The graph of a run's tree.
 * @example
 * <RunGraph items={items()} selected={selectedKey()} onSelect={select} />
 */
export function RunGraph(props: { items: TreeItem[]; selected: string | undefined; /** The run's status: a task an ended run never reached reads "not run". */ runStatus: string; onSelect(nodeId: string, iteration: number): void }) {
  const whole = createMemo(() => layoutGraph(props.items));
  const graph = createMemo(() => {
    const g = whole();
    if (g.nodes.length <= MAX_NODES) return g;
    const nodes = [...g.nodes].sort((a, b) => a.layer - b.layer || a.lane - b.lane).slice(0, MAX_NODES);
    const kept = new Set(nodes.map((n) => n.task.key));
    return {
      nodes,
      edges: g.edges.filter((e) => kept.has(e.from) && kept.has(e.to)),
      layers: Math.max(...nodes.map((n) => n.layer)) + 1,
      lanes: Math.max(...nodes.map((n) => n.lane)) + 1,
    };
  });
  const at = createMemo(() => new Map(graph().nodes.map((n) => [n.task.key, { x: PAD + n.lane * (W + GAP_X), y: PAD + n.layer * (H + GAP_Y) }])));
  // The boxes are keyed by task key (a string): a refresh of the run's rows lays the graph out
  // anew, and keying by the new node objects would replace every box (focus lost, a box a
  // script holds detached); by key, a box stays and only its attributes change.
  const byKey = createMemo(() => new Map(graph().nodes.map((n) => [n.task.key, n])));
  const keys = createMemo(() => graph().nodes.map((n) => n.task.key), undefined, { equals: (a, b) => a.length === b.length && a.every((k, i) => k === b[i]) });
  const width = () => PAD * 2 + graph().lanes * W + Math.max(0, graph().lanes - 1) * GAP_X;
  const height = () => PAD * 2 + graph().layers * H + Math.max(0, graph().layers - 1) * GAP_Y;
  const live = createMemo(() => graph().nodes.find((n) => isLive(n.task.state))?.task.key);
  const liveCount = () => graph().nodes.filter((n) => isLive(n.task.state)).length;
  let scroller!: HTMLDivElement;

  // Keeps the live task in sight as the run moves on (only when it left the visible part).
  createEffect(
    on(live, (key) => {
      const p = key ? at().get(key) : undefined;
      if (!p || !scroller) return;
      const { scrollTop, scrollLeft, clientHeight, clientWidth } = scroller;
      if (p.y < scrollTop || p.y + H > scrollTop + clientHeight) scroller.scrollTop = Math.max(0, p.y - clientHeight / 2);
      if (p.x < scrollLeft || p.x + W > scrollLeft + clientWidth) scroller.scrollLeft = Math.max(0, p.x - clientWidth / 2);
    }),
  );

  const edgePath = (from: string, to: string) => {
    const a = at().get(from);
    const b = at().get(to);
    if (!a || !b) return "";
    const [x1, y1, x2, y2] = [a.x + W / 2, a.y + H, b.x + W / 2, b.y];
    const mid = (y1 + y2) / 2;
    return `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`;
  };
  const onKey = (e: KeyboardEvent, t: TreeTask) => {
    if (e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    props.onSelect(t.nodeId, t.iteration);
  };

  return (
    <div class="run-graph" data-testid="run-graph">
      <p class="run-graph-legend muted">
        <Show when={liveCount() > 0} fallback={<>No task is running or waiting now.</>}>
          <span class="run-graph-legend-live" aria-hidden="true" />
          {liveCount() === 1 ? "The task running or waiting now" : `${liveCount()} tasks running or waiting now`}
        </Show>
        <Show when={whole().nodes.length > graph().nodes.length}>
          {" "}
          · showing the first {graph().nodes.length} of {whole().nodes.length} tasks
        </Show>
      </p>
      <div class="run-graph-scroll" ref={scroller}>
        <svg class="run-graph-svg" width={width()} height={height()} viewBox={`0 0 ${width()} ${height()}`} role="group" aria-label="Task graph">
          <g class="run-graph-edges" aria-hidden="true">
            <For each={graph().edges}>{(e) => <path d={edgePath(e.from, e.to)} classList={{ "run-graph-edge": true, done: byKey().get(e.from)?.task.state === "finished" }} />}</For>
          </g>
          <For each={keys()}>
            {(key) => {
              const p = () => at().get(key)!;
              const n = () => byKey().get(key)!;
              const t = () => n().task;
              return (
                <g
                  class={`run-graph-node ${toneOf(t().state)}`}
                  classList={{ selected: props.selected === t().key, live: isLive(t().state) }}
                  transform={`translate(${p().x},${p().y})`}
                  role="button"
                  tabindex="0"
                  aria-pressed={props.selected === t().key}
                  aria-label={`${nameOf(t())}: ${shownNodeState(t().state, props.runStatus)}`}
                  data-testid="graph-node"
                  data-node-id={t().nodeId}
                  data-iteration={t().iteration}
                  data-state={t().state}
                  data-layer={n().layer}
                  data-lane={n().lane}
                  data-live={isLive(t().state) ? "true" : undefined}
                  onClick={() => props.onSelect(t().nodeId, t().iteration)}
                  onKeyDown={(e) => onKey(e, t())}
                >
                  <title>{`${nameOf(t())} (${t().element}): ${shownNodeState(t().state, props.runStatus)}${t().attempts > 1 ? `, ${t().attempts} attempts` : ""}`}</title>
                  <Show when={isLive(t().state)}>
                    <rect class="run-graph-ring" x={-4} y={-4} width={W + 8} height={H + 8} rx={10} />
                  </Show>
                  <rect class="run-graph-box" width={W} height={H} rx={7} />
                  <rect class="run-graph-bar" width={5} height={H} rx={2} />
                  <text class="run-graph-label" x={14} y={17}>
                    {fit(nameOf(t()))}
                  </text>
                  <text class="run-graph-state" x={14} y={32}>
                    {t().element === "task" ? shownNodeState(t().state, props.runStatus) : `${t().element} · ${shownNodeState(t().state, props.runStatus)}`}
                    {t().attempts > 1 ? ` · ${t().attempts} attempts` : ""}
                  </text>
                </g>
              );
            }}
          </For>
        </svg>
      </div>
    </div>
  );
}
