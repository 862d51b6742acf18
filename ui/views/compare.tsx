/**
 * @module ui/views/compare
 * `/compare?a=<runId>&b=<runId>`: two runs side by side, live — workflow, status, duration,
 * agents' tokens and cost, the inputs, and per task (matched by node id and iteration) its
 * state, time spent, tokens and output row, rows that differ marked. Reached from the runs list
 * (select two, Compare) and from a run page (Compare, which opens with `a` set and a picker
 * for `b`). The URL holds both ids, so a comparison is a link. docs/app-views-run.md "Compare".
 */
import { A, useSearchParams } from "@solidjs/router";
import { createMemo, createResource, For, type JSX, Show } from "solid-js";
import type { GatewayRunRow } from "../../core/data/index.js";
import { Breadcrumbs } from "../components/breadcrumbs.js";
import { createCollectionRows, createRowsOf } from "../components/collection-rows.js";
import { EmptyState } from "../components/empty-state.js";
import { errorText } from "../components/error-text.js";
import { formatAgo, formatDuration, formatUsage } from "../components/format.js";
import { JsonBlock } from "../components/json-block.js";
import { lastAnswer } from "../components/last-answer.js";
import { createNow } from "../components/now.js";
import { StatusBadge } from "../components/status-badge.js";
import { useConnection } from "../flow-context.js";
import { differs, outputValue, pairTasks, timeSpent } from "./compare/compare-model.js";
import { isEnded } from "./run-detail/run-status-rules.js";
import "../components/view-layout.css";
import "./compare.css";
import { workflowTitle } from "../components/workflow-label.js";

type Side = "a" | "b";

/** The compare view. */
export default function Compare() {
  const [search, setSearch] = useSearchParams<{ a?: string; b?: string }>();
  const a = useSide(() => search.a);
  const b = useSide(() => search.b);
  const now = createNow(() => [a.run(), b.run()].some((r) => r !== undefined && !isEnded(r.status)));
  const tasks = createMemo(() => pairTasks(a.run()?.nodes ?? [], b.run()?.nodes ?? []));
  const sides = { a, b };

  return (
    <div class="compare-view">
      <Breadcrumbs trail={[{ label: "Runs", href: "/runs" }, { label: "Compare" }]} />
      <header class="view-header">
        <h1>Compare runs</h1>
      </header>
      <div class="compare-pickers card">
        <RunPicker side="a" value={search.a} other={search.b} workflow={b.run()?.workflowKey ?? null} onPick={(id) => setSearch({ a: id })} />
        <RunPicker side="b" value={search.b} other={search.a} workflow={a.run()?.workflowKey ?? null} onPick={(id) => setSearch({ b: id })} />
      </div>
      <Show when={a.run() && b.run()} fallback={<CompareWaiting a={a} b={b} ids={[search.a, search.b]} />}>
        <section class="card compare-card" aria-label="Runs">
          <table class="compare-table" data-testid="compare-summary">
            <thead>
              <tr>
                <th scope="col" />
                <For each={["a", "b"] as Side[]}>
                  {(s) => (
                    <th scope="col">
                      <A href={`/runs/${encodeURIComponent(sides[s].run()!.runId)}`} class="mono" data-testid={`compare-run-${s}`}>
                        {sides[s].run()!.runId}
                      </A>
                    </th>
                  )}
                </For>
              </tr>
            </thead>
            <tbody>
              <Fact label="Workflow" cell={(r) => workflowTitle(r) ?? "—"} sides={sides} />
              <Fact label="Status" cell={(r) => <StatusBadge status={r.status} />} sides={sides} />
              <Fact label="Started" cell={(r) => formatAgo(r.createdAtMs, now())} sides={sides} />
              <Fact label="Duration" testId="compare-duration" cell={(r) => formatDuration((r.finishedAtMs ?? now()) - r.createdAtMs)} sides={sides} />
              <Fact label="Agents" testId="compare-usage" cell={(_r, s) => formatUsage(sides[s].usage()?.total) ?? "none"} sides={sides} />
            </tbody>
          </table>
        </section>
        <section class="card compare-card" aria-label="Inputs">
          <h2>
            Input
            <Show when={differs(a.run()!.input, b.run()!.input)} fallback={<span class="muted compare-same"> · the same</span>}>
              <span class="compare-differs-tag" data-testid="input-differs">
                differs
              </span>
            </Show>
          </h2>
          <div class="compare-pair">
            <JsonBlock title="A" value={a.run()!.input ?? {}} open testId="compare-input-a" />
            <JsonBlock title="B" value={b.run()!.input ?? {}} open testId="compare-input-b" />
          </div>
        </section>
        <section class="card compare-card" aria-label="Tasks">
          <h2>Tasks</h2>
          <div class="table-scroll">
            <table class="compare-table compare-tasks">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">A</th>
                  <th scope="col">B</th>
                </tr>
              </thead>
              <tbody>
                <For each={tasks()}>
                  {(t) => {
                    const outA = () => outputValue(a.outputs()?.get(t.key));
                    const outB = () => outputValue(b.outputs()?.get(t.key));
                    const changed = () => (t.a?.outputTable || t.b?.outputTable ? differs(outA(), outB()) : false);
                    return (
                      <tr data-testid="compare-task" data-node-id={t.nodeId} data-differs={changed() ? "true" : "false"} classList={{ "compare-row-differs": changed() }}>
                        <th scope="row">
                          <span class="mono">{t.nodeId}</span>
                          <Show when={t.iteration > 0}>
                            <span class="muted"> #{t.iteration}</span>
                          </Show>
                          <Show when={changed()}>
                            <span class="compare-differs-tag">differs</span>
                          </Show>
                        </th>
                        <TaskCell node={t.a} output={outA()} usage={a.usage()?.byNode[t.nodeId]} iteration={t.iteration} now={now()} side="a" />
                        <TaskCell node={t.b} output={outB()} usage={b.usage()?.byNode[t.nodeId]} iteration={t.iteration} now={now()} side="b" />
                      </tr>
                    );
                  }}
                </For>
              </tbody>
            </table>
          </div>
        </section>
      </Show>
    </div>
  );
}

/** One run of the comparison, live: its row, its agents' usage and its tasks' output rows. */
function useSide(id: () => string | undefined) {
  const { cols } = useConnection();
  // The run's rows as they are (not a live query: picking a run made the query again, whose first
  // read suspended the view, the picker and its focus taken down and drawn again under "Loading…").
  const rows = createRowsOf(() => (id() ? cols.run(id()!) : undefined));
  const run = createMemo<GatewayRunRow | undefined>(() => rows()?.()[0]);
  // Read again when a task settles (a string key: a refresh that changed nothing fetches nothing).
  const version = () => {
    const r = run();
    return r ? `${r.runId}\u0000${r.status}\u0000${r.nodes.map((n) => `${n.nodeId}#${n.iteration}:${n.updatedAtMs}`).join(",")}` : undefined;
  };
  const [usage] = createResource(version, () => cols.data.api.getRunUsage(run()!.runId));
  // Each output row is read once per change of its node (keyed by its `updatedAtMs`), so a live
  // run that settles a task fetches that task's row only, not every row again.
  const read = new Map<string, { at: number; row: Record<string, unknown> | null }>();
  const [outputs] = createResource(version, async () => {
    const r = run()!;
    const nodes = r.nodes.filter((n) => n.outputTable);
    const key = (n: (typeof nodes)[number]) => `${n.nodeId}#${n.iteration}`;
    const stale = nodes.filter((n) => read.get(`${r.runId}\u0000${key(n)}`)?.at !== n.updatedAtMs);
    await Promise.all(stale.map(async (n) => read.set(`${r.runId}\u0000${key(n)}`, { at: n.updatedAtMs, row: (await cols.data.api.getNodeOutput(r.runId, n.nodeId, n.iteration)).row })));
    return new Map(nodes.map((n) => [key(n), read.get(`${r.runId}\u0000${key(n)}`)?.row ?? null]));
  });
  return {
    run,
    error: (): unknown => (rows()?.isError && id() ? (cols.run(id()!).utils.lastError ?? new Error(`Run ${id()} could not be loaded.`)) : undefined),
    usage: () => lastAnswer(usage),
    outputs: () => lastAnswer(outputs),
  };
}

type SideData = ReturnType<typeof useSide>;

/** A row of the summary table. */
function Fact(props: { label: string; cell(run: GatewayRunRow, side: Side): JSX.Element; sides: Record<Side, SideData>; testId?: string }) {
  return (
    <tr data-testid={props.testId}>
      <th scope="row">{props.label}</th>
      <td data-side="a">{props.cell(props.sides.a.run()!, "a")}</td>
      <td data-side="b">{props.cell(props.sides.b.run()!, "b")}</td>
    </tr>
  );
}

/** One side of a task row: state, time spent, tokens, output row. */
function TaskCell(props: { node: GatewayRunRow["nodes"][number] | undefined; output: Record<string, unknown> | null; usage: Parameters<typeof formatUsage>[0]; iteration: number; now: number; side: Side }) {
  return (
    <td data-side={props.side}>
      <Show when={props.node} fallback={<span class="muted">not in this run</span>}>
        {(n) => (
          <div class="compare-task-cell">
            <div class="compare-task-facts">
              <StatusBadge status={n().state} />
              <span data-testid="task-duration">{formatDuration(timeSpent(n(), props.now))}</span>
              <Show when={n().attempts.length > 1}>
                <span class="muted">{n().attempts.length} attempts</span>
              </Show>
              <Show when={props.iteration === 0 && formatUsage(props.usage)}>{(u) => <span class="muted">{u()}</span>}</Show>
            </div>
            <Show when={props.output}>{(row) => <JsonBlock title="Output" value={row()} testId="task-output" />}</Show>
          </div>
        )}
      </Show>
    </td>
  );
}

/** Choose a run for one side: the runs of the other side's workflow first, newest first. */
function RunPicker(props: { side: Side; value: string | undefined; other: string | undefined; workflow: string | null; onPick(id: string): void }) {
  const { cols } = useConnection();
  // The runs' rows (not a live query made again per workflow: its first read suspended the view).
  const runs = createCollectionRows(cols.runs);
  const options = createMemo(() =>
    runs()
      .filter((r) => r.runId !== props.other && (!props.workflow || r.workflowKey === props.workflow))
      .sort((x, y) => y.createdAtMs - x.createdAtMs)
      .slice(0, 200),
  );
  const id = `compare-pick-${props.side}`;
  return (
    <label class="compare-picker" for={id}>
      <span>Run {props.side.toUpperCase()}</span>
      {/* `selected` per option, not the select's value: the options arrive after the value. */}
      <select id={id} data-testid={id} onChange={(e) => e.currentTarget.value && props.onPick(e.currentTarget.value)}>
        <option value="" disabled selected={!props.value}>
          Choose a run…
        </option>
        <Show when={props.value && !options().some((r) => r.runId === props.value)}>
          <option value={props.value} selected>
            {props.value}
          </option>
        </Show>
        <For each={options()}>
          {(r) => (
            <option value={r.runId} selected={r.runId === props.value}>
              {workflowTitle(r) ?? "run"} · {r.runId} · {r.status}
            </option>
          )}
        </For>
      </select>
    </label>
  );
}

/** What shows until both runs are loaded: a hint to pick, a load error, or loading. */
function CompareWaiting(props: { a: SideData; b: SideData; ids: [string | undefined, string | undefined] }) {
  const failed = () => (props.a.error() ? ([props.ids[0], props.a.error()] as const) : props.b.error() ? ([props.ids[1], props.b.error()] as const) : undefined);
  return (
    <Show
      when={failed()}
      fallback={
        <Show when={props.ids[0] && props.ids[1]} fallback={<EmptyState title="Pick two runs" hint="Choose the runs to compare above, or select two in the runs list and press Compare." />}>
          <p class="muted" role="status">
            Loading the runs…
          </p>
        </Show>
      }
    >
      {(f) => (
        <div class="error-banner" role="alert" data-testid="compare-error">
          Could not load run {f()[0]}: {errorText(f()[1])}
        </div>
      )}
    </Show>
  );
}
