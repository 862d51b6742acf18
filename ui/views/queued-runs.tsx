/**
 * @module ui/views/queued-runs
 * The runs a team member launched or forked offline (sync/write-queue.ts), as rows above the
 * runs list (docs/multiplayer.md "Offline"): pending, "waiting to be sent", until delivered —
 * then "sent" until the real run arrives through the runs shape under the same run id (chosen
 * in the browser), when the queued row goes — or refused, with why ("You are no longer a member…").
 */
import { For, Show } from "solid-js";
import { describeRefusal, type QueuedWrite } from "../../sync/index.js";
import { formatAgo } from "../components/format.js";
import { useConnection } from "../flow-context.js";
import { queuedWrites } from "../workspace/pending-writes.js";

/** A queued launch's or fork's run id (the id the run keeps once sent), if the write starts a run. */
const runIdOf = (w: QueuedWrite): string | undefined => {
  const id = w.kind === "launch" ? w.params.runId : w.kind === "fork" ? w.params.newRunId : undefined;
  return typeof id === "string" ? id : undefined;
};

/**
 * The queued runs of the open workspace (nothing without a queue or a queued run).
 * @example
 * <QueuedRuns />
 */
export function QueuedRuns() {
  const conn = useConnection();
  const writes = queuedWrites(() => conn.queue);
  const rows = () => writes().filter((w) => runIdOf(w) !== undefined);
  return (
    <Show when={rows().length > 0}>
      <ul class="card queued-runs" aria-label="Runs made offline" data-testid="queued-runs">
        <For each={rows()}>
          {(w) => (
            <li class="queued-run" data-testid="queued-run" data-run-id={runIdOf(w)} data-state={w.state}>
              <span class={`badge ${w.state === "refused" ? "tone-bad" : w.state === "sent" ? "tone-info" : "tone-warn"}`}>{w.state === "waiting" ? "pending" : w.state}</span>
              <span class="mono">{runIdOf(w)}</span>
              <span>{String(w.params.workflow ?? `fork of ${String(w.params.runId)}`)}</span>
              <span class="muted" data-testid="queued-run-reason">
                {w.state === "refused" ? describeRefusal(w) : w.state === "sent" ? "sent, arriving" : `waiting to be sent · made ${formatAgo(w.madeAtMs)}`}
              </span>
            </li>
          )}
        </For>
      </ul>
    </Show>
  );
}
