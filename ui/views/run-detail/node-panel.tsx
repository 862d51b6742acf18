/**
 * @module ui/views/run-detail/node-panel
 * The selected node: its state and iterations, retry (a failed or cancelled task, behind a
 * confirmation), its error, its output row (`getNodeOutput`, read again when the node
 * changes), the prompt it gives its agent, every attempt (node-attempts.tsx) and its agent's
 * transcript, live from the run's events (node-transcript.tsx). A Subflow's node links the
 * child run it started; "Fork from here" starts a new run at this task on an edited input
 * (fork-dialog.tsx).
 */
import { A } from "@solidjs/router";
import { createResource, createSignal, For, Show } from "solid-js";
import type { GatewayRunEventRow, GatewayRunNode, GatewayRunRow, GatewayRunTreeRow } from "../../../core/data/index.js";
import { ActionButton } from "../../components/action-button.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { errorText } from "../../components/error-text.js";
import { JsonBlock } from "../../components/json-block.js";
import { lastAnswer } from "../../components/last-answer.js";
import { shownNodeState } from "../../../core/engine/internal.js";
import { StatusBadge } from "../../components/status-badge.js";
import { useConnection } from "../../flow-context.js";
import { ForkDialog } from "./fork-dialog.js";
import { NodeAttempts } from "./node-attempts.js";
import { NodeTranscript } from "./node-transcript.js";
import { ResetDecisions } from "./reset-decisions.js";
import { whyNotRetry } from "./run-status-rules.js";
import "./node-panel.css";

/**
 * The panel of one node iteration.
 * @example
 * <NodePanel run={run()} events={data.events()} nodeId="deploy" iteration={0} iterations={rows} task={treeRow} onIteration={(i) => select("deploy", i)} />
 */
export function NodePanel(props: { run: GatewayRunRow; events: readonly GatewayRunEventRow[]; node: GatewayRunNode | undefined; nodeId: string; iteration: number; iterations: number[]; task: GatewayRunTreeRow | undefined; onIteration(i: number): void }) {
  const { cols } = useConnection();
  const [retrying, setRetrying] = createSignal(false);
  const [forking, setForking] = createSignal(false);
  /** The child run a Subflow's latest attempt started. */
  const childRun = () => {
    const id = (props.node?.attempts.at(-1)?.meta as { childRunId?: unknown } | null | undefined)?.childRunId;
    return typeof id === "string" ? id : undefined;
  };
  const whyNotFork = () =>
    !props.run.workflowKey ? "This workspace does not serve the run's workflow, so it cannot start a new run of it." : !props.node?.attempts.length ? "This task has not run yet; fork from a task that has." : undefined;
  const state = () => props.node?.state ?? "pending";
  // Read again when the node changes (a string key: a refresh that changed nothing fetches nothing).
  const [output] = createResource(
    () => (props.node?.outputTable ? `${props.iteration}/${state()}/${props.node.updatedAtMs}/${props.run.runId}/${props.nodeId}` : undefined),
    () => cols.data.api.getNodeOutput(props.run.runId, props.nodeId, props.iteration),
  );
  const [keep, setKeep] = createSignal(false);
  const [preview] = createResource(
    () => (retrying() ? `${props.run.runId}/${props.nodeId}/${props.iteration}` : undefined),
    () => cols.data.api.retryNode(props.run.runId, props.nodeId, { iteration: props.iteration, preview: true }),
  );
  const retry = async () => {
    await cols.data.api.retryNode(props.run.runId, props.nodeId, { iteration: props.iteration, ...(keep() ? { keepDecisions: true } : {}) });
    void cols.invalidate({ runId: props.run.runId });
  };
  return (
    <section class="node-panel" aria-label={`Node ${props.nodeId}`} data-testid="node-panel" data-node-id={props.nodeId}>
      <header class="node-panel-head">
        <h2>
          <span class="mono">{props.nodeId}</span>
          <Show when={(props.node?.label ?? props.task?.label) && (props.node?.label ?? props.task?.label) !== props.nodeId}>
            <span class="muted"> {props.node?.label ?? props.task?.label}</span>
          </Show>
        </h2>
        <StatusBadge status={state()} label={shownNodeState(state(), props.run.status)} />
        <Show when={props.iterations.length > 1}>
          <label class="node-panel-iteration">
            <span>Iteration</span>
            <select value={props.iteration} onChange={(e) => props.onIteration(Number(e.currentTarget.value))}>
              <For each={props.iterations}>{(i) => <option value={i}>{i}</option>}</For>
            </select>
          </label>
        </Show>
        <span class="node-panel-actions">
          <ActionButton label="Retry task" testId="retry" reason={whyNotRetry(state(), props.run.status)} onClick={() => setRetrying(true)} />
          <ActionButton label="Fork from here" testId="fork" reason={whyNotFork()} onClick={() => setForking(true)} />
        </span>
      </header>
      <Show when={childRun()}>
        {(id) => (
          <p class="node-panel-child">
            Runs as child run{" "}
            <A href={`/runs/${encodeURIComponent(id())}`} class="mono" data-testid="node-child-run">
              {id()}
            </A>
          </p>
        )}
      </Show>
      <Show when={props.node?.error}>
        {(e) => (
          <div class="error-banner" role="alert">
            <strong>{e().code}</strong> {e().message}
          </div>
        )}
      </Show>
      <Show when={props.node?.outputTable} fallback={<p class="muted">{props.node ? "This node writes no output row." : "This task has not run yet."}</p>}>
        <Show when={!output.error} fallback={<p class="error-banner">{errorText(output.error)}</p>}>
          <Show when={lastAnswer(output)} fallback={<p class="muted">Loading the output…</p>}>
            <Show when={lastAnswer(output)?.row} fallback={<p class="muted" data-testid="no-output">{noOutput(shownNodeState(state(), props.run.status))}</p>}>
              {(row) => <JsonBlock title={`Output · ${props.node?.outputTable}`} value={row()} open testId="node-output" />}
            </Show>
          </Show>
        </Show>
      </Show>
      <Show when={props.task?.prompt}>
        {(p) => (
          <details class="node-panel-prompt">
            <summary>Prompt</summary>
            <pre tabIndex={0}>{p()}</pre>
          </details>
        )}
      </Show>
      <h3>Attempts</h3>
      <Show when={props.node} fallback={<p class="muted">No attempt yet.</p>}>
        {(n) => <NodeAttempts runId={props.run.runId} runStatus={props.run.status} runStartMs={props.run.createdAtMs} node={n()} events={props.events} />}
      </Show>
      <NodeTranscript events={props.events} nodeId={props.nodeId} iteration={props.iteration} attempts={props.node?.attempts ?? []} />
      <ForkDialog open={forking()} run={props.run} nodeId={props.nodeId} iteration={props.iteration} onClose={() => setForking(false)} />
      <ConfirmDialog open={retrying()} title={`Retry ${props.nodeId}?`} confirmLabel="Retry and resume" onConfirm={retry} onClose={() => (setRetrying(false), setKeep(false))} testId="retry-dialog">
        <p>
          <code>{props.nodeId}</code> (iteration {props.iteration}) and the tasks after it are set back to pending, and the run resumes: they run again. The failed attempts stay
          listed as evidence.
        </p>
        <ResetDecisions preview={preview} keep={keep()} onKeep={setKeep} />
      </ConfirmDialog>
    </section>
  );
}

/** Why a task has no output row, in its state's words (the table's name is in the output's title once there is one). */
function noOutput(state: string): string {
  if (state === "in-progress") return "No output yet: the task is running.";
  if (state === "failed") return "No output: the task failed (its error is above).";
  if (state === "cancelled") return "No output: the task was cancelled.";
  if (state === "skipped") return "No output: the task was skipped.";
  if (state.startsWith("waiting")) return "No output yet: the task is waiting.";
  if (state === "finished") return "The task finished without an output row.";
  if (state === "not run") return "No output: the run ended before it reached this task.";
  return "No output yet: the task has not started.";
}
