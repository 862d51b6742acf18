/**
 * @module ui/views/run-detail/run-approvals
 * What the run waits on from a person, answerable here: each pending approval of the run
 * with its request, a note, and approve / deny (optimistic through `cols.approve`: it leaves
 * the list at once; a refused decision comes back with the Gateway's error). One the member
 * decided offline shows as their pending decision, as the inbox shows it. Human tasks and
 * select/rank approvals link to the approvals inbox, which has their forms (titles and
 * modes are read as the inbox reads them: ../approvals/approval-model.ts).
 */
import { A } from "@solidjs/router";
import { createSignal, For, Show } from "solid-js";
import type { GatewayApprovalRow } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { formatAgo } from "../../components/format.js";
import { useConnection } from "../../flow-context.js";
import { modeOf, titleOf } from "../approvals/approval-model.js";
import { QueuedDecision, queuedDecisionOf, queuedWrites } from "../../workspace/pending-writes.js";
import "./run-approvals.css";

/**
 * The pending approvals of a run.
 * @example
 * <RunApprovals approvals={data.approvals()} />
 */
export function RunApprovals(props: { approvals: GatewayApprovalRow[] }) {
  return (
    <Show when={props.approvals.length > 0}>
      <section class="run-approvals card" aria-label="Waiting on a person">
        <h2>Waiting on you</h2>
        <For each={props.approvals}>{(a) => <ApprovalItem approval={a} />}</For>
      </section>
    </Show>
  );
}

function ApprovalItem(props: { approval: GatewayApprovalRow }) {
  const conn = useConnection();
  const { cols } = conn;
  // A decision this member made offline (or sent and not yet arrived) is shown as theirs, not offered again.
  const writes = queuedWrites(() => conn.queue);
  const queuedHere = () => queuedDecisionOf(writes(), props.approval);
  const [note, setNote] = createSignal("");
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  const a = () => props.approval;
  const request = () => titleOf(a());
  const decide = async (decision: "approve" | "deny") => {
    setBusy(true);
    setError(undefined);
    try {
      await cols.approve({ runId: a().runId, nodeId: a().nodeId, iteration: a().iteration, decision, ...(note().trim() ? { note: note().trim() } : {}) });
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const noteId = `approval-note-${a().key}`;
  return (
    <div class="run-approval" data-testid="approval" data-run-id={a().runId} data-node-id={a().nodeId}>
      <div class="run-approval-text">
        <strong>{request().title}</strong>
        <Show when={request().summary}>
          <p class="muted">{request().summary}</p>
        </Show>
        <span class="muted">
          {a().kind === "human" ? "Human task" : "Approval"} <code>{a().nodeId}</code> · asked {formatAgo(a().createdAtMs)}
          {a().deadlineMs ? ` · deadline ${new Date(a().deadlineMs!).toLocaleString()}` : ""}
        </span>
      </div>
      <Show when={queuedHere()}>{(w) => <QueuedDecision write={w()} />}</Show>
      <Show
        when={!queuedHere() && (modeOf(a()) === "gate" || modeOf(a()) === "decision")}
        fallback={
          <Show when={!queuedHere()}>
            <A href="/approvals" class="button">
              Answer in the inbox
            </A>
          </Show>
        }
      >
        <div class="run-approval-form">
          <label for={noteId} class="sr-only">
            Note for {a().nodeId}
          </label>
          <input id={noteId} data-testid="approval-note" placeholder="Note (optional)" value={note()} onInput={(e) => setNote(e.currentTarget.value)} />
          <button type="button" class="primary" data-testid="approve" disabled={busy()} onClick={() => void decide("approve")}>
            Approve
          </button>
          <button type="button" class="danger" data-testid="deny" disabled={busy()} onClick={() => void decide("deny")}>
            Deny
          </button>
        </div>
      </Show>
      <Show when={error()}>
        <p class="error-banner" role="alert">
          {error()}
        </p>
      </Show>
    </div>
  );
}
