/**
 * @module ui/views/approvals/approval-item
 * One item of the inbox (`data-testid="approval"`): what is asked, of which run, since when,
 * who may decide, and the actions of its mode — approve/deny with a note, choose one option,
 * order the options, or fill in a human task's row. A refused decision stays on the item with
 * its reason; when someone else decided first, the winning decision is read back and shown.
 */
import { A } from "@solidjs/router";
import { type Accessor, createSignal, For, Match, type Setter, Show, Switch } from "solid-js";
import type { GatewayApprovalRow, GatewayRunSummaryRow } from "../../../core/data/index.js";
import { errorCode, errorText } from "../../components/error-text.js";
import { formatAgo, shortId } from "../../components/format.js";
import { useConnection } from "../../flow-context.js";
import { isQueued } from "../../../sync/index.js";
import { QueuedDecision, queuedDecisionOf, queuedWrites } from "../../workspace/pending-writes.js";
import { describeResolution, dueOf, modeOf, moveItem, optionsOf, titleOf, whoMayDecide } from "./approval-model.js";
import { HumanTaskForm } from "./human-task-form.js";
import { workflowTitle } from "../../components/workflow-label.js";

/** What became of an action (shown in the inbox's log, which outlives the item). */
export interface Outcome {
  tone: "ok" | "warn" | "bad";
  text: string;
  runId: string;
}

/**
 * What a person entered on an item and the item's last error. The inbox keeps it per item,
 * outside the item: a decision removes the item at once (optimistic) and a refused one puts
 * it back as a new element, which must still show the person's ranking, note and the reason.
 */
export interface ItemDraft {
  note: Accessor<string>;
  setNote: Setter<string>;
  choice: Accessor<string | undefined>;
  setChoice: Setter<string | undefined>;
  ranked: Accessor<string[]>;
  setRanked: Setter<string[]>;
  error: Accessor<string | undefined>;
  setError: Setter<string | undefined>;
}

/**
 * A fresh draft of an item (the options in their given order).
 * @example
 * const draft = createDraft(row);
 */
export function createDraft(row: GatewayApprovalRow): ItemDraft {
  const [note, setNote] = createSignal("");
  const [choice, setChoice] = createSignal<string>();
  const [ranked, setRanked] = createSignal(optionsOf(row).map((o) => o.key));
  const [error, setError] = createSignal<string>();
  return { note, setNote, choice, setChoice, ranked, setRanked, error, setError };
}

/** The decision a submit sends. */
type Decision = "approve" | "deny" | { selected: string } | { ranked: string[] };

/**
 * An inbox item.
 * @example
 * <ApprovalItem row={row} draft={draftOf(row)} run={runsById().get(row.runId)} now={now()} selected={false} onSelect={toggle} onOutcome={log} />
 */
export function ApprovalItem(props: {
  row: GatewayApprovalRow;
  draft: ItemDraft;
  run: GatewayRunSummaryRow | undefined;
  now: number;
  /** Approve/deny items can be selected for a bulk decision. */
  selected: boolean;
  onSelect(selected: boolean): void;
  onOutcome(outcome: Outcome): void;
  /** Arrived while the person was in the list: added at its end, marked new (ui/views/approvals.tsx). */
  arrived?: boolean;
}) {
  const conn = useConnection();
  const { cols } = conn;
  const mode = () => modeOf(props.row);
  // A decision made offline waits in this browser: the item says so until it is sent, and once
  // sent until the decision reached the inbox (the item then goes; it is never offered again meanwhile).
  const writes = queuedWrites(() => conn.queue);
  const queuedHere = () => queuedDecisionOf(writes(), props.row);
  const text = () => titleOf(props.row);
  const who = () => whoMayDecide(props.row);
  const due = () => dueOf(props.row);
  const { note, setNote, choice, setChoice, ranked, setRanked, error, setError } = props.draft;
  const [busy, setBusy] = createSignal(false);
  const idBase = () => `${props.row.runId}-${props.row.nodeId}-${props.row.iteration}`.replace(/[^\w-]/g, "_");
  const labelOf = (key: string) => optionsOf(props.row).find((o) => o.key === key)?.label ?? key;
  const workflow = () => workflowTitle(props.run) ?? null;

  /** After APPROVAL_ALREADY_DECIDED: what the winner decided. */
  async function winningDecision(): Promise<string> {
    const waits = await cols.data.api.listWaits({ runId: props.row.runId, nodeId: props.row.nodeId, status: "any" }).catch(() => []);
    const won = waits.find((w) => w.iteration === props.row.iteration);
    return won ? describeResolution(won.resolution, won.resolvedBy) : "decided";
  }

  async function decide(decision: Decision, verb: string) {
    setBusy(true);
    setError(undefined);
    const { runId, nodeId, iteration } = props.row;
    const title = text().title;
    try {
      // askedAtMs names the request decided: a decision queued offline for a wait that asked again meanwhile is refused (WAIT_RESET).
      const result = await cols.approve({ runId, nodeId, iteration, decision, askedAtMs: props.row.createdAtMs, ...(note().trim() ? { note: note().trim() } : {}) });
      props.onOutcome(isQueued(result) ? { tone: "warn", text: `${verb} “${title}”: waits in this browser, sent once the workspace answers`, runId } : { tone: "ok", text: `${verb} “${title}”`, runId });
    } catch (e) {
      if (errorCode(e) === "APPROVAL_ALREADY_DECIDED") {
        const winner = await winningDecision();
        setError(`Someone decided first: ${winner}.`);
        props.onOutcome({ tone: "warn", text: `“${title}” was already ${winner}; your decision was not recorded`, runId });
      } else {
        // The item may leave the inbox (decided or cancelled meanwhile): the log keeps the reason.
        setError(errorText(e));
        props.onOutcome({ tone: "bad", text: `${verb} “${title}” was refused: ${errorText(e)}`, runId });
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <li class="card approval-item" classList={{ arrived: props.arrived === true }} data-testid="approval" data-run-id={props.row.runId} data-node-id={props.row.nodeId} data-mode={mode()} data-arrived={props.arrived ? "" : undefined}>
      <div class="approval-head">
        <Show when={mode() === "gate" || mode() === "decision"}>
          <input
            type="checkbox"
            class="approval-select"
            aria-label={`Select “${text().title}” for a bulk decision`}
            checked={props.selected}
            onChange={(e) => props.onSelect(e.currentTarget.checked)}
          />
        </Show>
        <div class="approval-title">
          <h3>{text().title}</h3>
          <Show when={text().summary}>
            <p class="approval-summary">{text().summary}</p>
          </Show>
        </div>
        <Show when={props.arrived}>
          <span class="badge tone-info" data-testid="approval-new">new</span>
        </Show>
        <span class={`badge ${mode() === "human" ? "tone-info" : "tone-warn"}`}>{mode() === "human" ? "human task" : mode()}</span>
      </div>
      <dl class="approval-meta">
        <div>
          <dt>Run</dt>
          <dd>
            <A href={`/runs/${encodeURIComponent(props.row.runId)}?node=${encodeURIComponent(props.row.nodeId)}`} class="mono">
              {shortId(props.row.runId)}
            </A>
            <Show when={workflow()}>
              {" "}
              <span class="muted">· {workflow()}</span>
            </Show>
            <span class="muted"> · node </span>
            <code>{props.row.nodeId}</code>
            <Show when={props.row.iteration > 0}>
              <span class="muted"> #{props.row.iteration}</span>
            </Show>
          </dd>
        </div>
        <div>
          <dt>Waiting since</dt>
          <dd title={new Date(props.row.createdAtMs).toLocaleString()}>{formatAgo(props.row.createdAtMs, props.now)}</dd>
        </div>
        <Show when={due()}>
          {(d) => (
            <div>
              <dt>{d().what === "auto-approves" ? "Auto-approves" : d().what === "times out" ? "Times out" : "Due"}</dt>
              <dd title={new Date(d().atMs).toLocaleString()}>{d().atMs > props.now ? new Date(d().atMs).toLocaleString() : "now"}</dd>
            </div>
          )}
        </Show>
        <div>
          <dt>Who may decide</dt>
          <dd>{who() ?? "anyone with approval:submit"}</dd>
        </div>
      </dl>

      <Switch>
        <Match when={queuedHere()}>{(w) => <QueuedDecision write={w()} />}</Match>
        <Match when={mode() === "human"}>
          <HumanTaskForm row={props.row} title={text().title} onOutcome={props.onOutcome} />
        </Match>
        <Match when={true}>
          <form
            class="approval-actions"
            onSubmit={(e) => {
              e.preventDefault();
              if (mode() === "select" && choice()) void decide({ selected: choice()! }, `Chose ${labelOf(choice()!)} for`);
              if (mode() === "rank") void decide({ ranked: ranked() }, "Ranked");
            }}
          >
            <Show when={mode() === "select"}>
              <fieldset class="approval-options">
                <legend>Choose one</legend>
                <For each={optionsOf(props.row)}>
                  {(o) => (
                    <label class="approval-option">
                      <input type="radio" name={`choice-${idBase()}`} value={o.key} checked={choice() === o.key} onChange={() => setChoice(o.key)} />
                      <span>
                        <strong>{o.label}</strong>
                        <Show when={o.summary}>
                          <span class="muted"> — {o.summary}</span>
                        </Show>
                      </span>
                    </label>
                  )}
                </For>
              </fieldset>
            </Show>
            <Show when={mode() === "rank"}>
              <fieldset class="approval-options">
                <legend>Order, best first</legend>
                <ol class="rank-list">
                  <For each={ranked()}>
                    {(key, i) => (
                      <li class="rank-item">
                        <span class="rank-pos">{i() + 1}</span>
                        <span class="rank-label">{labelOf(key)}</span>
                        <button type="button" class="ghost" aria-label={`Move ${labelOf(key)} up`} disabled={i() === 0} onClick={() => setRanked(moveItem(ranked(), i(), -1))}>
                          ↑
                        </button>
                        <button type="button" class="ghost" aria-label={`Move ${labelOf(key)} down`} disabled={i() === ranked().length - 1} onClick={() => setRanked(moveItem(ranked(), i(), 1))}>
                          ↓
                        </button>
                      </li>
                    )}
                  </For>
                </ol>
              </fieldset>
            </Show>
            <div class="form-actions">
              <label class="sr-only" for={`note-${idBase()}`}>
                Note
              </label>
              <input id={`note-${idBase()}`} data-testid="approval-note" class="approval-note" placeholder="Note (optional)" value={note()} onInput={(e) => setNote(e.currentTarget.value)} />
              <Switch>
                <Match when={mode() === "select"}>
                  <button type="submit" class="primary" data-testid="select-submit" disabled={busy() || !choice()}>
                    Choose
                  </button>
                </Match>
                <Match when={mode() === "rank"}>
                  <button type="submit" class="primary" data-testid="rank-submit" disabled={busy()}>
                    Submit order
                  </button>
                </Match>
                <Match when={true}>
                  <button type="button" class="primary" data-testid="approve" disabled={busy()} onClick={() => void decide("approve", "Approved")}>
                    Approve
                  </button>
                  <button type="button" class="danger" data-testid="deny" disabled={busy()} onClick={() => void decide("deny", "Denied")}>
                    Deny
                  </button>
                </Match>
              </Switch>
            </div>
          </form>
        </Match>
      </Switch>
      <Show when={error()}>
        <p class="inline-error" role="alert">
          {error()}
        </p>
      </Show>
    </li>
  );
}
