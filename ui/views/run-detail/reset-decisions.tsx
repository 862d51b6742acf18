/**
 * @module ui/views/run-detail/reset-decisions
 * What the rewind and retry dialogs say about decisions: the approvals, human tasks, signals
 * and events the reset would ask again (the default), and the "Keep earlier decisions"
 * checkbox that keeps them instead. The list comes from the server (`preview: true` on
 * rewindRun and the retry route), so it is the same rule the reset applies.
 * docs/time-travel.md "Decisions", docs/app.md.
 */
import { For, type Resource, Show } from "solid-js";
import type { DataApi } from "../../../core/data/index.js";

/** A decision a reset meets (as the server reports it). */
export type ResetDecision = Awaited<ReturnType<DataApi["retryNode"]>>["decisions"][number];

function describe(d: ResetDecision): string {
  const v = d.decision ?? {};
  const by = d.decidedBy ? ` by ${d.decidedBy}` : "";
  const what = typeof v.approved === "boolean" ? `${v.approved ? "approved" : "denied"}${by}` : typeof v.selected === "string" ? `selected ${v.selected}${by}` : d.kind === "signal" || d.kind === "event" ? "delivered" : `submitted${by}`;
  return `${d.kind}, ${what}`;
}

/**
 * The decisions paragraph and checkbox of a reset dialog.
 * @example
 * <ResetDecisions preview={preview} keep={keep()} onKeep={setKeep} />
 */
export function ResetDecisions(props: { preview: Resource<{ decisions?: ResetDecision[] } | undefined>; keep: boolean; onKeep(keep: boolean): void }) {
  const list = () => props.preview()?.decisions ?? [];
  return (
    <div class="reset-decisions" data-testid="reset-decisions">
      <Show when={!props.preview.loading} fallback={<p class="muted">Looking for decisions to ask again…</p>}>
        <Show when={list().length > 0} fallback={<p class="muted">No approval, human task, signal or event is reset.</p>}>
          <p>
            <strong>{props.keep ? "Decisions kept:" : "Asked again:"}</strong>{" "}
            {props.keep
              ? "these earlier decisions stand, and what follows them runs on them."
              : "each of these waits for a new decision or delivery before anything after it runs; they show in the inbox again."}
          </p>
          <ul>
            <For each={list()}>
              {(d) => (
                <li data-testid="reset-decision" data-node-id={d.nodeId}>
                  <code>{d.nodeId}</code>
                  {d.iteration ? ` (iteration ${d.iteration})` : ""} <span class="muted">{describe(d)}</span>
                </li>
              )}
            </For>
          </ul>
          <label class="reset-decisions-keep">
            <input type="checkbox" checked={props.keep} data-testid="keep-decisions" onChange={(e) => props.onKeep(e.currentTarget.checked)} /> Keep earlier decisions
          </label>
        </Show>
      </Show>
    </div>
  );
}
