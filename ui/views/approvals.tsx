/**
 * @module ui/views/approvals
 * The approvals inbox (`/approvals`): every pending approval and human task across runs,
 * newest first and live (`cols.approvals`), each with the actions of its mode; approve/deny
 * items can be selected and decided together; a log of what was decided (and of decisions
 * someone else made first) outlives the items; below, the form that sends a signal or event
 * to a waiting run. Filters (`?show=approvals|human`, `?q=`) live in the URL. See
 * docs/app-views-people.md "Approvals".
 */
import { useSearchParams } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createMemo, createSignal, For, Show, Suspense } from "solid-js";
import type { GatewayApprovalRow, GatewayRunSummaryRow } from "../../core/data/index.js";
import { runBulk } from "../components/bulk-action.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { EmptyState } from "../components/empty-state.js";
import { plural } from "../components/format.js";
import { createNow } from "../components/now.js";
import { useConnection, useFlow } from "../flow-context.js";
import { ApprovalItem, createDraft, type ItemDraft, type Outcome } from "./approvals/approval-item.js";
import { modeOf, titleOf } from "./approvals/approval-model.js";
import { SignalForm } from "./approvals/signal-form.js";
import "../components/view-layout.css";
import "./approvals.css";

type Show_ = "all" | "approvals" | "human";

/**
 * The approvals view (a route of ui/app.tsx).
 * @example
 * <Route path="/approvals" component={Approvals} />
 */
export default function Approvals() {
  const conn = useConnection();
  const { cols } = conn;
  const flow = useFlow();
  const [params, setParams] = useSearchParams<{ show?: string; q?: string }>();
  const show = (): Show_ => (params.show === "approvals" || params.show === "human" ? params.show : "all");
  const approvals = useLiveQuery((q) => q.from({ a: cols.approvals }).select(({ a }) => ({ ...a, id: a.key })).orderBy(({ a }) => a.createdAtMs, "desc"));
  const runs = useLiveQuery((q) => q.from({ r: cols.runs }).select(({ r }) => ({ ...r, id: r.runId })));
  const runsById = createMemo(() => new Map((runs() as GatewayRunSummaryRow[]).map((r) => [r.runId, r])));
  const now = createNow(() => true, 15_000);
  const [selected, setSelected] = createSignal<ReadonlySet<string>>(new Set());
  const [outcomes, setOutcomes] = createSignal<Array<Outcome & { id: number }>>([]);
  const [bulkNote, setBulkNote] = createSignal("");
  const [progress, setProgress] = createSignal<string>();
  const [askingDeny, setAskingDeny] = createSignal(false);
  let nextOutcome = 0;
  let heading!: HTMLHeadingElement;
  const log = (o: Outcome) => {
    setOutcomes((list) => [{ ...o, id: nextOutcome++ }, ...list].slice(0, 6));
    // The decided item leaves with the focus inside it: keyboard users go on from the top of
    // the inbox (the log just below the heading says what happened).
    if (o.tone === "ok" && (!document.activeElement || document.activeElement === document.body)) heading.focus();
  };

  const visible = createMemo(() => {
    const words = (params.q ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    return (approvals() as GatewayApprovalRow[]).filter((row) => {
      if (show() === "human" && row.kind !== "human") return false;
      if (show() === "approvals" && row.kind !== "approval") return false;
      if (!words.length) return true;
      const run = runsById().get(row.runId);
      const hay = `${titleOf(row).title} ${titleOf(row).summary ?? ""} ${row.runId} ${row.nodeId} ${run?.workflowKey ?? ""} ${run?.workflowName ?? ""}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    });
  });
  const key = (row: GatewayApprovalRow) => `${row.runId}/${row.nodeId}#${row.iteration}`;
  // While the pointer is over the list or the focus is in it, the items shown keep their order
  // and what arrives is added at the end, marked new, so nothing moves under the pointer (an
  // approval arriving at the top would push the item about to be clicked down). Once the
  // person leaves the list, it is newest first again (docs/app.md "Team workspaces").
  const [hovering, setHovering] = createSignal(false);
  const [focusedIn, setFocusedIn] = createSignal(false);
  const interacting = () => hovering() || focusedIn();
  const ordered = createMemo<{ rows: GatewayApprovalRow[]; arrived: ReadonlySet<string> }>(
    (prev) => {
      const rows = visible();
      if (!interacting()) return { rows, arrived: new Set() };
      const byKey = new Map(rows.map((r) => [key(r), r]));
      const kept = prev.rows.flatMap((r) => byKey.get(key(r)) ?? []);
      const known = new Set(kept.map(key));
      const added = rows.filter((r) => !known.has(key(r)));
      return { rows: [...kept, ...added], arrived: new Set([...[...prev.arrived].filter((k) => byKey.has(k)), ...added.map(key)]) };
    },
    { rows: [], arrived: new Set() },
  );
  const drafts = new Map<string, ItemDraft>();
  const draftOf = (row: GatewayApprovalRow) => drafts.get(key(row)) ?? drafts.set(key(row), createDraft(row)).get(key(row))!;
  const bulkable = createMemo(() => visible().filter((r) => modeOf(r) === "gate" || modeOf(r) === "decision"));
  const chosen = createMemo(() => bulkable().filter((r) => selected().has(key(r))));
  const toggle = (row: GatewayApprovalRow, on: boolean) =>
    setSelected((s) => {
      const next = new Set(s);
      if (on) next.add(key(row));
      else next.delete(key(row));
      return next;
    });

  async function decideAll(decision: "approve" | "deny") {
    const rows = chosen();
    const byKey = new Map(rows.map((r) => [key(r), r]));
    const note = bulkNote().trim();
    const summary = await runBulk(
      rows.map(key),
      (k) => {
        const r = byKey.get(k)!;
        return cols.approve({ runId: r.runId, nodeId: r.nodeId, iteration: r.iteration, decision, ...(note ? { note } : {}) });
      },
      { concurrency: 4, onProgress: (p) => setProgress(`${p.done} of ${p.total}${p.failed ? `, ${p.failed} refused` : ""}`) },
    );
    setProgress(undefined);
    setSelected(new Set<string>());
    const verb = decision === "approve" ? "Approved" : "Denied";
    log({ tone: summary.failed.length ? "warn" : "ok", text: `${verb} ${summary.ok.length} of ${rows.length}${summary.failed.length ? `; refused: ${summary.failed.map((f) => `${f.id} (${f.code ?? f.message})`).join(", ")}` : ""}`, runId: "" });
  }

  return (
    <div class="approvals-view">
      <header class="view-header">
        <h1 tabIndex={-1} ref={heading}>
          Approvals
        </h1>
        <div class="approvals-filters" role="group" aria-label="Filter the inbox">
          <For each={[["all", "All"], ["approvals", "Approvals"], ["human", "Human tasks"]] as const}>
            {([value, label]) => (
              <button type="button" class="ghost filter-tab" aria-pressed={show() === value} onClick={() => setParams({ show: value === "all" ? undefined : value })}>
                {label}
              </button>
            )}
          </For>
          <label class="sr-only" for="approvals-search">
            Search approvals
          </label>
          <input id="approvals-search" type="search" placeholder="Search title, run, workflow" value={params.q ?? ""} onInput={(e) => setParams({ q: e.currentTarget.value || undefined }, { replace: true })} />
        </div>
      </header>
      <Show when={flow.status() === "offline"}>
        <p class="inline-error" role="status">
          <Show when={conn.queue} fallback="The workspace is offline: the inbox shows what loaded last, and decisions will fail until it reconnects.">
            The workspace is offline: the inbox shows what loaded last; a decision made now waits in this browser and is sent once it reconnects.
          </Show>
        </p>
      </Show>
      <Show when={outcomes().length}>
        <div role="status" aria-live="polite">
          <ul class="approvals-log" aria-label="Recent decisions">
            <For each={outcomes()}>
              {(o) => (
                <li class={`tone-${o.tone}`} data-run-id={o.runId || undefined}>
                  {o.text}
                </li>
              )}
            </For>
          </ul>
        </div>
      </Show>
      <Suspense fallback={<p class="muted">Loading approvals…</p>}>
        <Show when={!approvals.isError} fallback={<div class="error-banner" role="alert">Could not load the approvals ({String(approvals.status)}). Check the connection and reload.</div>}>
          <Show when={bulkable().length > 1}>
            <div class="approvals-bulk" role="group" aria-label="Decide several">
              <label>
                <input
                  type="checkbox"
                  checked={chosen().length === bulkable().length}
                  ref={(el) => queueMicrotask(() => (el.indeterminate = chosen().length > 0 && chosen().length < bulkable().length))}
                  onChange={(e) => setSelected(new Set(e.currentTarget.checked ? bulkable().map(key) : []))}
                />{" "}
                {chosen().length ? `${chosen().length} selected` : `Select all ${bulkable().length} approve/deny items`}
              </label>
              <label class="sr-only" for="bulk-note">
                Note for the selected
              </label>
              <input id="bulk-note" placeholder="Note (optional)" value={bulkNote()} onInput={(e) => setBulkNote(e.currentTarget.value)} disabled={!chosen().length} />
              <button type="button" class="primary" data-testid="bulk-approve" disabled={!chosen().length || !!progress()} onClick={() => void decideAll("approve")}>
                Approve selected
              </button>
              <button type="button" class="danger" data-testid="bulk-deny" disabled={!chosen().length || !!progress()} onClick={() => setAskingDeny(true)}>
                Deny selected
              </button>
              <ConfirmDialog
                open={askingDeny()}
                title={`Deny ${plural(chosen().length, "item")}?`}
                confirmLabel={`Deny ${plural(chosen().length, "item")}`}
                tone="danger"
                testId="bulk-deny-dialog"
                onConfirm={async () => void decideAll("deny")}
                onClose={() => setAskingDeny(false)}
              >
                <p>Each selected run gets a denial{bulkNote().trim() ? " with your note" : ""}, and goes on as its workflow handles a denial (often it fails or stops). A decision cannot be taken back.</p>
              </ConfirmDialog>
              <Show when={progress()}>
                <span class="muted" role="status">
                  {progress()}
                </span>
              </Show>
            </div>
          </Show>
          <Show
            when={visible().length}
            fallback={
              <EmptyState
                title={(approvals() as GatewayApprovalRow[]).length ? "Nothing matches the filter" : "Nothing waits for you"}
                hint={(approvals() as GatewayApprovalRow[]).length ? "Clear the search or show all items." : "Approvals and human tasks of every run show here as soon as a run asks."}
              />
            }
          >
            <ul
              class="approvals-list"
              aria-label="Pending approvals and human tasks"
              onPointerEnter={() => setHovering(true)}
              onPointerLeave={() => setHovering(false)}
              onFocusIn={() => setFocusedIn(true)}
              onFocusOut={(e) => setFocusedIn(e.currentTarget.contains(e.relatedTarget as Node | null))}
            >
              <For each={ordered().rows}>
                {(row) => <ApprovalItem row={row} draft={draftOf(row)} run={runsById().get(row.runId)} now={now()} selected={selected().has(key(row))} onSelect={(on) => toggle(row, on)} onOutcome={log} arrived={ordered().arrived.has(key(row))} />}
              </For>
            </ul>
            <p class="sr-only" role="status" aria-live="polite">
              {ordered().arrived.size ? `${plural(ordered().arrived.size, "new item")} added at the end of the list` : ""}
            </p>
          </Show>
        </Show>
      </Suspense>
      <Suspense fallback={<p class="muted">Loading waiting runs…</p>}>
        <SignalForm runs={runs() as GatewayRunSummaryRow[]} now={now()} onOutcome={log} />
      </Suspense>
    </div>
  );
}
