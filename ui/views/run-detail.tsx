/**
 * @module ui/views/run-detail
 * `/runs/:runId`: one run, live. The header (ids, status, times, input/output, linked runs),
 * the actions (cancel, pause, resume; retry and rewind on a node), what it waits on from a
 * person, the task tree of its latest frame beside the selected node's panel, and below them
 * the timeline of attempts, the task graph (the live task marked) and the event log. The
 * selected node and tab live in the URL (`?node=<nodeId>&iteration=<n>&tab=timeline|graph|events`),
 * so every view of it is a link.
 * docs/app-views-run.md.
 */
import { A, useParams, useSearchParams } from "@solidjs/router";
import { createMemo, createResource, Match, Show, Switch } from "solid-js";
import { Breadcrumbs } from "../components/breadcrumbs.js";
import { EmptyState } from "../components/empty-state.js";
import { errorCode, errorText } from "../components/error-text.js";
import { formatCount } from "../components/format.js";
import { lastAnswer } from "../components/last-answer.js";
import { createNow } from "../components/now.js";
import { NodePanel } from "./run-detail/node-panel.js";
import { RunActions } from "./run-detail/run-actions.js";
import { RunApprovals } from "./run-detail/run-approvals.js";
import { useRunData } from "./run-detail/run-data.js";
import { RunEvents } from "./run-detail/run-events.js";
import { RunGraph } from "./run-detail/run-graph.js";
import { RunHeader } from "./run-detail/run-header.js";
import { isEnded } from "./run-detail/run-status-rules.js";
import { RunTimeline } from "./run-detail/run-timeline.js";
import { RunTree } from "./run-detail/run-tree.js";
import { buildTree } from "./run-detail/tree-model.js";
import "./run-detail.css";

/** States that need a person's eye first: what the panel shows when no node is chosen. */
const ATTENTION = ["failed", "waiting-approval", "waiting-event", "waiting-timer", "in-progress"];

/** The run-detail view. */
export default function RunDetail() {
  const params = useParams<{ runId: string }>();
  // The router leaves the segment encoded: child run ids hold "/" and "@" (`<parent>/<node>@<iteration>`).
  const runId = () => decodeSegment(params.runId);
  const [search, setSearch] = useSearchParams<{ node?: string; iteration?: string; tab?: string }>();
  const data = useRunData(runId);
  const clock = createNow(() => {
    const run = data.run();
    return run !== undefined && !isEnded(run.status);
  });
  // Never behind what the run's rows say happened: the clock ticks each second, and a task that
  // started since its last tick would show no bar and a duration shorter than the run's own.
  const now = () => Math.max(clock(), data.events().at(-1)?.timestampMs ?? 0, data.run()?.updatedAtMs ?? 0);
  const items = createMemo(() => buildTree(data.structure(), data.tasks(), data.nodes()));
  const order = createMemo(() => data.tasks().map((t) => `${t.nodeId}#${t.iteration}`));

  /** The chosen node: the URL's, else the first that needs attention. */
  const selected = createMemo(() => {
    if (search.node) {
      const its = data.nodes().filter((n) => n.nodeId === search.node).map((n) => n.iteration);
      const asked = search.iteration !== undefined ? Number(search.iteration) : undefined;
      const iteration = asked !== undefined && Number.isInteger(asked) ? asked : (data.tasks().find((t) => t.nodeId === search.node)?.iteration ?? Math.max(0, ...its));
      return { nodeId: search.node, iteration };
    }
    for (const state of ATTENTION) {
      const n = data.nodes().find((x) => x.state === state);
      if (n) return { nodeId: n.nodeId, iteration: n.iteration };
    }
    return undefined;
  });
  const selectedKey = () => (selected() ? `${selected()!.nodeId}#${selected()!.iteration}` : undefined);
  const select = (nodeId: string, iteration: number) => setSearch({ node: nodeId, iteration: String(iteration) });
  const tab = () => (search.tab === "events" || search.tab === "graph" ? search.tab : "timeline");
  // The parents of a child run (Subflow), outermost first, for the breadcrumbs.
  const [ancestorIds] = createResource(
    () => data.run()?.parentRunId ?? undefined,
    async (parentId) => {
      const chain = [parentId];
      for (let id = parentId; chain.length < 8; ) {
        const up = (await data.cols.data.api.getRunSummary(id)).parentRunId;
        if (!up || chain.includes(up)) break;
        chain.unshift((id = up));
      }
      return chain;
    },
  );
  const ancestors = () => (data.run()?.parentRunId ? (lastAnswer(ancestorIds) ?? [data.run()!.parentRunId!]) : []);

  return (
    <div class="run-detail">
      <Breadcrumbs trail={[{ label: "Runs", href: "/runs" }, ...ancestors().map((id) => ({ label: id, href: `/runs/${encodeURIComponent(id)}`, mono: true, testId: "crumb-parent" })), { label: runId(), mono: true }]} />
      <Switch>
        <Match when={data.missing() || data.loadError()}>
          {(err) => (
            <Show
              when={err() === true || errorCode(err()) === "RUN_NOT_FOUND"}
              fallback={
                <div class="error-banner" role="alert" data-testid="run-error">
                  Could not load run {runId()}: {errorText(err())}
                </div>
              }
            >
              <div data-testid="run-not-found">
                <EmptyState title="Run not found" hint={`No run ${runId()} in this workspace. It may belong to another workspace, or the link is wrong.`} action={<A href="/runs">Back to runs</A>} />
              </div>
            </Show>
          )}
        </Match>
        <Match when={data.run()}>
          {(run) => (
            <>
              <Show when={data.unseen()}>
                <p class="last-seen-banner" role="status" data-testid="run-unseen">
                  This browser has not opened this run before, so it keeps only its row of the runs list: its tasks, events and output show once the workspace answers again.
                </p>
              </Show>
              <RunHeader run={run()} events={data.events()} now={now} childRuns={data.children()} />
              <RunActions run={run()} />
              <RunApprovals approvals={data.approvals()} />
              <div class="run-detail-main">
                <section class="card run-detail-tree" aria-label="Task tree">
                  <h2 class="run-detail-section-title">
                    Tasks
                    {/* Frame 1 is every run's first render: the number says something once the workflow re-rendered. */}
                    <Show when={data.frameNo() > 1}>
                      <span class="run-detail-frame" title="The run's graph as of its latest frame (a frame is one render of the workflow)">
                        {" "}
                        · frame {data.frameNo()}
                      </span>
                    </Show>
                  </h2>
                  <Show when={!data.treeLoading()} fallback={<p class="muted pad">Loading tasks…</p>}>
                    <Show when={items().length > 0} fallback={<NoTasks unseen={data.unseen()} />}>
                      <RunTree items={items()} selected={selectedKey()} runStatus={data.run()?.status ?? "running"} onSelect={select} />
                    </Show>
                  </Show>
                </section>
                <div class="card run-detail-node">
                  <Show when={selected()} fallback={<EmptyState title="No task selected" hint="Pick a task in the tree or the timeline to see its output, errors and attempts." />}>
                    {(s) => (
                      <NodePanel
                        run={run()}
                        events={data.events()}
                        nodeId={s().nodeId}
                        iteration={s().iteration}
                        node={data.nodes().find((n) => n.nodeId === s().nodeId && n.iteration === s().iteration)}
                        iterations={data
                          .nodes()
                          .filter((n) => n.nodeId === s().nodeId)
                          .map((n) => n.iteration)
                          .sort((a, b) => a - b)}
                        task={data.tasks().find((t) => t.nodeId === s().nodeId && t.iteration === s().iteration)}
                        onIteration={(i) => select(s().nodeId, i)}
                      />
                    )}
                  </Show>
                </div>
              </div>
              <section class="card run-detail-lower">
                <div class="run-detail-tabs" role="tablist" aria-label="Run history">
                  <button type="button" role="tab" id="tab-timeline" aria-selected={tab() === "timeline"} aria-controls="panel-history" onClick={() => setSearch({ tab: undefined })}>
                    Timeline
                  </button>
                  <button type="button" role="tab" id="tab-graph" aria-selected={tab() === "graph"} aria-controls="panel-history" onClick={() => setSearch({ tab: "graph" })}>
                    Graph
                  </button>
                  <button type="button" role="tab" id="tab-events" aria-selected={tab() === "events"} aria-controls="panel-history" onClick={() => setSearch({ tab: "events" })}>
                    Events <span class="muted">{data.unseen() ? "" : formatCount(data.events().length)}</span>
                  </button>
                </div>
                <div role="tabpanel" id="panel-history" aria-labelledby={`tab-${tab()}`} class="run-detail-tabpanel">
                  <Show when={!data.unseen()} fallback={<EmptyState title="History not kept in this browser" hint="Its timeline, graph and events show once the workspace answers again." />}>
                    <Switch
                      fallback={
                        <RunTimeline nodes={data.nodes()} events={data.events()} order={order()} startMs={run().createdAtMs} endMs={isEnded(run().status) ? (run().finishedAtMs ?? run().updatedAtMs) : null} now={now} selected={selectedKey()} onSelect={select} />
                      }
                    >
                      <Match when={tab() === "events"}>
                        <RunEvents events={data.events()} loading={data.eventsLoading()} startMs={run().createdAtMs} />
                      </Match>
                      <Match when={tab() === "graph"}>
                        <Show when={!data.treeLoading()} fallback={<p class="muted pad">Loading tasks…</p>}>
                          <Show when={items().length > 0} fallback={<EmptyState title="No frame yet" hint="The run has not rendered its tasks yet; its graph shows here as soon as it does." />}>
                            <RunGraph items={items()} selected={selectedKey()} runStatus={data.run()?.status ?? "running"} onSelect={select} />
                          </Show>
                        </Show>
                      </Match>
                    </Switch>
                  </Show>
                </div>
              </section>
            </>
          )}
        </Match>
        <Match when={data.unseen()}>
          <div data-testid="run-unseen">
            <EmptyState title="Not seen in this browser" hint={`The workspace cannot be reached, and this browser has not seen run ${runId()}: it shows once the workspace answers again.`} action={<A href="/runs">Back to runs</A>} />
          </div>
        </Match>
        <Match when={true}>
          <p class="muted" role="status" data-testid="run-loading">
            {data.opening() ? `Opening this browser's database to look for run ${runId()}…` : `Loading run ${runId()}…`}
          </p>
        </Match>
      </Switch>
    </div>
  );
}

/** What the tree shows with no task: none rendered yet, or none kept in this browser (the run unseen offline). */
function NoTasks(props: { unseen: boolean }) {
  return (
    <Show when={props.unseen} fallback={<EmptyState title="No frame yet" hint="The run has not rendered its tasks yet; they show here as soon as it does." />}>
      <EmptyState title="Tasks not kept in this browser" hint="They show once the workspace answers again." />
    </Show>
  );
}

/** A path segment decoded (as typed when it was not encoded). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
