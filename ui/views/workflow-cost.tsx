/**
 * @module ui/views/workflow-cost
 * A workflow's agent cost over the last days, on its launch view (`/launch/:workflow`): one bar
 * per UTC day (cost when any run was priced, else tokens), the window's totals, and the
 * busiest day. Read from `GET /v1/api/workflows/:workflow/usage` (docs/agents.md "Cost"), the
 * numbers the runs list, the run header and `<Aspects tokenBudget>` read; child runs count in
 * their parent's day. Nothing shows for a workflow whose runs spent nothing.
 */
import { createResource, For, Show } from "solid-js";
import type { WorkflowUsage, WorkflowUsageDay } from "../../core/data/index.js";
import { formatCost, formatUsage, plural } from "../components/format.js";
import { lastAnswer } from "../components/last-answer.js";
import { useConnection } from "../flow-context.js";
import "./workflow-cost.css";

/** How many days the chart shows. */
const DAYS = 14;

/**
 * The cost chart of one workflow.
 * @example
 * <WorkflowCost workflow="assistant" />
 */
export function WorkflowCost(props: { workflow: string }) {
  const { cols } = useConnection();
  const [usage] = createResource(
    () => props.workflow,
    // The chart is an extra: offline, or on a Gateway without the route, the form shows without it.
    (key) => cols.data.api.getWorkflowUsage(key, { days: DAYS }).catch(() => undefined),
  );
  // Read once loaded, so the launch form never waits (suspends) for its chart, nor when another workflow is picked.
  const loaded = () => lastAnswer(usage);
  return (
    <Show when={loaded() && loaded()!.total.attempts > 0 ? loaded() : undefined}>
      {(u) => <Chart usage={u()} />}
    </Show>
  );
}

function Chart(props: { usage: WorkflowUsage }) {
  const priced = () => props.usage.total.costUsd !== undefined;
  const valueOf = (d: WorkflowUsageDay) => (priced() ? (d.costUsd ?? 0) : (d.totalTokens ?? 0));
  const max = () => Math.max(...props.usage.byDay.map(valueOf), 0);
  const labelOf = (d: WorkflowUsageDay) => `${d.day}: ${plural(d.runs, "run")}${d.attempts ? `, ${formatUsage(d)}` : ""}`;
  const busiest = () => props.usage.byDay.reduce((a, b) => (valueOf(b) > valueOf(a) ? b : a));
  return (
    <section class="workflow-cost card" aria-labelledby="workflow-cost-title" data-testid="workflow-cost">
      <header class="workflow-cost-head">
        <h2 id="workflow-cost-title">Agent cost, last {props.usage.days} days</h2>
        <span class="mono" data-testid="workflow-cost-total">
          {plural(props.usage.total.runs, "run")} · {formatUsage(props.usage.total)}
        </span>
      </header>
      <ol class="workflow-cost-bars" aria-label={`${priced() ? "Cost" : "Tokens"} per day`}>
        <For each={props.usage.byDay}>
          {(d) => (
            <li class="workflow-cost-day" data-testid="workflow-cost-day" data-day={d.day} data-runs={d.runs} title={labelOf(d)} aria-label={labelOf(d)}>
              <span class="workflow-cost-bar" classList={{ empty: valueOf(d) === 0 }} style={{ height: `${max() > 0 ? Math.max(4, (valueOf(d) / max()) * 100) : 0}%` }} />
            </li>
          )}
        </For>
      </ol>
      <div class="workflow-cost-axis muted">
        <span>{props.usage.byDay[0]?.day}</span>
        <span>
          Busiest: {busiest().day} ({priced() ? formatCost(busiest().costUsd ?? 0) : plural(busiest().totalTokens ?? 0, "token")})
        </span>
        <span>{props.usage.byDay[props.usage.byDay.length - 1]?.day}</span>
      </div>
    </section>
  );
}
