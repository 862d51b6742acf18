/**
 * @module ui/workspace/pending-writes
 * The changes a team member made offline (sync/write-queue.ts), under the header of every
 * view (`data-testid="pending-writes"`): each waiting one in the order it will be sent, and
 * each the Gateway refused with why ("ana approved this 3 min before your denial arrived",
 * "You are no longer a member…"), until the person dismisses it. Nothing refused is sent again.
 */
import { type Accessor, createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import { describeRefusal, type QueuedWrite, type WriteQueue } from "../../sync/index.js";
import { formatAgo } from "../components/format.js";

/**
 * The writes of the open workspace's queue, as a signal (empty without a queue).
 * @example
 * const writes = queuedWrites(() => flow.connection()?.queue);
 */
export function queuedWrites(queue: Accessor<WriteQueue | undefined>): Accessor<readonly QueuedWrite[]> {
  const [items, setItems] = createSignal<readonly QueuedWrite[]>([]);
  createEffect(
    on(queue, (q) => {
      setItems(q?.all ?? []);
      if (!q) return;
      const off = q.subscribe((all) => setItems([...all]));
      void q.open();
      onCleanup(off);
    }),
  );
  return items;
}

/**
 * The decision this member made on an approval or human task and that has not reached it yet:
 * waiting in this browser, or sent and not yet arrived through the shape (never a refused one).
 * @example
 * const mine = queuedDecisionOf(writes(), approvalRow);
 */
export function queuedDecisionOf(writes: readonly QueuedWrite[], row: { runId: string; nodeId: string; iteration: number }): QueuedWrite | undefined {
  return writes.find((w) => w.state !== "refused" && w.params.runId === row.runId && w.params.nodeId === row.nodeId && (w.params.iteration === undefined || w.params.iteration === row.iteration));
}

/**
 * Where a decision was made offline, in place of its actions (`data-testid="approval-queued"`):
 * it waits to be sent, or it was applied and the item goes once its row has caught up.
 * @example
 * <Show when={queuedDecisionOf(writes(), row)}>{(w) => <QueuedDecision write={w()} />}</Show>
 */
export function QueuedDecision(props: { write: QueuedWrite }) {
  return (
    <p class="approval-queued" role="status" data-testid="approval-queued" data-write-id={props.write.writeId} data-state={props.write.state}>
      <Show when={props.write.state === "sent"} fallback={<><strong>Waiting to be sent:</strong> {props.write.label}. It goes to the workspace as soon as it answers.</>}>
        <strong>Sent:</strong> {props.write.label}. The workspace applied it; this item goes once it has caught up.
      </Show>
    </p>
  );
}

/**
 * The list of waiting and refused writes (hidden when there are none).
 * @example
 * <PendingWrites queue={conn.queue} writes={writes} />
 */
export function PendingWrites(props: { queue: WriteQueue | undefined; writes: Accessor<readonly QueuedWrite[]> }) {
  const waiting = () => props.writes().filter((w) => w.state === "waiting");
  const refused = () => props.writes().filter((w) => w.state === "refused");
  return (
    <Show when={props.writes().length > 0}>
      <section class="pending-writes" data-testid="pending-writes" aria-label="Changes made offline">
        <Show when={waiting().length > 0}>
          <p class="pending-writes-title">
            <strong>{waiting().length === 1 ? "1 change waits" : `${waiting().length} changes wait`}</strong> in this browser; they are sent in this order once the workspace answers.
          </p>
          <ol>
            <For each={waiting()}>
              {(w) => (
                <li data-testid="pending-write" data-state="waiting" data-kind={w.kind} data-write-id={w.writeId}>
                  {w.label} <span class="muted">· made {formatAgo(w.madeAtMs)}</span>
                </li>
              )}
            </For>
          </ol>
        </Show>
        <Show when={refused().length > 0}>
          <p class="pending-writes-title">
            <strong>{refused().length === 1 ? "1 change was refused" : `${refused().length} changes were refused`}</strong> when it reached the workspace; nothing of it was applied.
          </p>
          <ul>
            <For each={refused()}>
              {(w) => (
                <li data-testid="pending-write" data-state="refused" data-kind={w.kind} data-write-id={w.writeId} data-code={w.refusal?.code}>
                  <span>
                    {w.label}: <strong data-testid="refusal-reason">{describeRefusal(w)}</strong>
                  </span>{" "}
                  <button type="button" class="ghost" onClick={() => void props.queue?.dismiss(w.writeId)} aria-label={`Dismiss: ${w.label}`}>
                    Dismiss
                  </button>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>
    </Show>
  );
}
