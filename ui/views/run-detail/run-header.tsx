/**
 * @module ui/views/run-detail/run-header
 * The run's header: id (with copy), workflow, status, started / finished / duration (live
 * while the run is), who triggered it, its input and output or error, and the runs it is
 * linked to — the parent (Subflow), the next run (ContinueAsNew) and its child runs — and a
 * link that launches the workflow again with this run's input (`/launch/<key>?from=<runId>`),
 * and the tokens and cost its agents spent, child runs included (`getRunUsage`, read again
 * when an agent's generation or attempt ends, a child run ends, or the run's status changes).
 */
import { A } from "@solidjs/router";
import { type Accessor, createMemo, createResource, For, Show } from "solid-js";
import type { GatewayRunEventRow, GatewayRunRow, GatewayRunSummaryRow } from "../../../core/data/index.js";
import { CopyButton } from "../../components/copy-button.js";
import { formatAgo, formatDuration, formatUsage } from "../../components/format.js";
import { JsonBlock } from "../../components/json-block.js";
import { lastAnswer } from "../../components/last-answer.js";
import { StatusBadge } from "../../components/status-badge.js";
import { useConnection } from "../../flow-context.js";
import { startedByLabel } from "../run-facts.js";
import "./run-header.css";
import { servedAs, workflowTitle } from "../../components/workflow-label.js";
import { withInFlight } from "../../../core/agents/index.js";
import { inFlightSpend } from "./live-usage.js";

/**
 * The header of a run.
 * @example
 * <RunHeader run={run()} events={data.events()} now={now} childRuns={data.children()} />
 */
export function RunHeader(props: { run: GatewayRunRow; events: readonly GatewayRunEventRow[]; now: Accessor<number>; childRuns: GatewayRunSummaryRow[] }) {
  const { cols } = useConnection();
  const run = () => props.run;
  // Usage is written when an agent's attempt ends, and a child run's when it ends: keyed by
  // those (and the run's status), so streamed text and compute tasks fetch nothing.
  const [usage] = createResource(
    () => `${lastUsageSeq(props.events)}\u0000${props.childRuns.filter((c) => c.finishedAtMs !== null).length}\u0000${run().status}\u0000${run().runId}`,
    // With the seq it was asked at: the attempts that ended by then are in it.
    async (key) => ({ total: (await cols.data.api.getRunUsage(key.split("\u0000")[3]!)).total, seq: Number(key.split("\u0000")[0]) }),
  );

  // What attempts the stored total does not count yet have spent: those running, and those that
  // ended after it was asked (counted live until its next answer comes, so the sum never dips).
  const running = createMemo(() => inFlightSpend(props.events, lastAnswer(usage)?.seq ?? 0));
  const duration = () => (run().finishedAtMs ?? props.now()) - run().createdAtMs;
  /** Child runs the attempts name (Subflow) that the runs list has not loaded. */
  const childIds = () => {
    const known = new Set(props.childRuns.map((c) => c.runId));
    const fromAttempts = run().nodes.flatMap((n) => n.attempts.map((a) => (a.meta as { childRunId?: unknown } | null)?.childRunId)).filter((id): id is string => typeof id === "string");
    return [...new Set(fromAttempts)].filter((id) => !known.has(id));
  };
  return (
    <section class="run-header card" aria-label="Run">
      <div class="run-header-top">
        <h1>
          <span class="run-header-workflow" title={servedAs(run())}>
            {workflowTitle(run()) ?? "unknown workflow"}
          </span>
          <span class="run-header-id mono" title={run().runId}>
            {run().runId}
          </span>
          <CopyButton text={run().runId} label="Copy run id" />
        </h1>
        <div class="run-header-side">
          <Show when={run().workflowKey}>
            {(key) => (
              <A class="button" href={`/launch/${encodeURIComponent(key())}?from=${encodeURIComponent(run().runId)}`} data-testid="rerun">
                Re-run with this input
              </A>
            )}
          </Show>
          <span data-testid="run-status" data-status={run().status} class="run-header-status">
            <StatusBadge status={run().status} owner={run().owner} />
            <Show when={pauseNote(run())}>{(note) => <span class="muted" data-testid="pause-note"> {note()}</span>}</Show>
          </span>
        </div>
      </div>
      <dl class="run-header-facts">
        <div>
          <dt>Started</dt>
          <dd title={new Date(run().createdAtMs).toLocaleString()}>{formatAgo(run().createdAtMs, props.now())}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd title={run().finishedAtMs ? new Date(run().finishedAtMs!).toLocaleString() : undefined}>{run().finishedAtMs ? formatAgo(run().finishedAtMs, props.now()) : "—"}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd data-testid="run-duration">
            {formatDuration(duration())}
            <Show when={!run().finishedAtMs}>
              <span class="muted"> so far</span>
            </Show>
          </dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd title="Who or what started the run: the signed-in caller, a cron, or the harness that launched it">{startedByLabel(run()) ?? "—"}</dd>
        </div>
        <Show when={formatUsage(withInFlight(lastAnswer(usage)?.total, running()))}>
          {(u) => (
            <div>
              <dt>Agents</dt>
              <dd title="Tokens and cost of this run's agents, child runs included, and of the calls of attempts still running">
                <span data-testid="run-cost">{u()}</span>
                <Show when={running().length > 0}>
                  <span class="muted" data-testid="run-cost-live">
                    {" "}
                    so far
                  </span>
                </Show>
              </dd>
            </div>
          )}
        </Show>
        <LinkedRun title="Parent run" runId={run().parentRunId} />
        <LinkedRun title="Continued as" runId={run().nextRunId} />
      </dl>
      <Show when={props.childRuns.length > 0 || childIds().length > 0}>
        <div class="run-header-children">
          <span class="muted">Child runs</span>
          <ul>
            <For each={props.childRuns}>
              {(c) => (
                <li>
                  <A href={`/runs/${encodeURIComponent(c.runId)}`} class="mono">
                    {workflowTitle(c) ?? "run"} · {c.runId.slice(0, 12)}
                  </A>{" "}
                  <StatusBadge status={c.status} />
                </li>
              )}
            </For>
            <For each={childIds()}>
              {(id) => (
                <li>
                  <A href={`/runs/${encodeURIComponent(id)}`} class="mono">
                    {id}
                  </A>
                </li>
              )}
            </For>
          </ul>
        </div>
      </Show>
      <Show when={run().error}>
        {(err) => (
          <div class="error-banner run-header-error" role="alert">
            <strong>{err().code}</strong> {err().message}
          </div>
        )}
      </Show>
      <div class="run-header-json">
        <JsonBlock title="Input" value={run().input ?? {}} testId="run-input" />
        <Show when={run().output !== null && run().output !== undefined}>
          <JsonBlock title="Output" value={run().output} testId="run-output" />
        </Show>
      </div>
    </section>
  );
}

/** A fact that links another run (the parent, the next run), or nothing when there is none. */
function LinkedRun(props: { title: string; runId: string | null }) {
  return (
    <Show when={props.runId}>
      {(id) => (
        <div>
          <dt>{props.title}</dt>
          <dd>
            <A href={`/runs/${encodeURIComponent(id())}`} class="mono">
              {id()}
            </A>
          </dd>
        </div>
      )}
    </Show>
  );
}

/** Seq of the run's last event after which its agents' usage can have changed: a generation's end, or the end of an attempt of a task that ran an agent. */
function lastUsageSeq(events: readonly GatewayRunEventRow[]): number {
  const agentNodes = new Set<string>();
  let seq = 0;
  for (const e of events) {
    if (e.type === "AgentGenerationStarted") agentNodes.add(e.nodeId);
    else if (e.type === "AgentGenerationFinished" || ((e.type === "TaskFinished" || e.type === "TaskFailed" || e.type === "TaskCancelled") && agentNodes.has(e.nodeId))) seq = e.seq;
  }
  return seq;
}

/** Why a paused run waits, in words: who or what continues it. */
function pauseNote(run: { status: string; pauseReason?: string | null }): string | undefined {
  if (run.status !== "paused") return undefined;
  if (run.pauseReason === "rewind") return "Rewound: it waits for you to resume it.";
  if (run.pauseReason === "shutdown") return "Its host stopped: it resumes when a host serving its workflow starts.";
  return "Paused: it waits for you to resume it.";
}
