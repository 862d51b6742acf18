/**
 * @module ui/views/runs-bulk-bar
 * The bar above the runs table while rows are selected: how many, "select all shown", and
 * bulk cancel / resume of the runs they apply to (the others are left alone, and the buttons
 * say how many will be acted on). Cancel asks first, saying how many runs end and how many are
 * left alone. Two selected runs can be compared (`/compare?a=&b=`). While an action runs it shows progress (and can be
 * stopped); afterwards a summary of what succeeded and what was refused, and why.
 */
import { A } from "@solidjs/router";
import { type Accessor, createSignal, For, Match, onCleanup, Show, Switch } from "solid-js";
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import { type BulkProgress, type BulkSummary, runBulk } from "../components/bulk-action.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { formatCount, plural } from "../components/format.js";
import { type BulkKind, bulkApplies } from "./run-facts.js";
import { EMPTY_SELECTION, type Selection } from "./run-selection.js";

const VERBS: Record<BulkKind, { doing: string; done: string }> = { cancel: { doing: "Cancelling", done: "Cancelled" }, resume: { doing: "Resuming", done: "Resumed" } };

/** What the bar needs. */
export interface RunsBulkBarProps {
  shown: Accessor<GatewayRunSummaryRow[]>;
  selection: Accessor<Selection>;
  onSelect(next: Selection): void;
  /** Performs one action on one run (throws the gateway's error when refused). */
  act(kind: BulkKind, runId: string): Promise<unknown>;
}

/**
 * The bulk-action bar.
 * @example
 * <RunsBulkBar shown={shown} selection={sel} onSelect={setSel} act={(kind, id) => kind === "cancel" ? cols.cancel(id) : cols.data.api.resumeRun(id)} />
 */
export function RunsBulkBar(props: RunsBulkBarProps) {
  const [progress, setProgress] = createSignal<{ kind: BulkKind } & BulkProgress>();
  const [summary, setSummary] = createSignal<{ kind: BulkKind; result: BulkSummary }>();
  /** The runs a confirmed cancel will act on (taken when the person asked). */
  const [asking, setAsking] = createSignal<{ cancel: string[]; skipped: number }>();
  let stop: AbortController | undefined;
  onCleanup(() => stop?.abort());
  const selected = () => props.shown().filter((r) => props.selection().ids.has(r.runId));
  const applicable = (kind: BulkKind) => selected().filter((r) => bulkApplies(kind, r));
  const allShown = () => props.shown().length > 0 && selected().length === props.shown().length;

  const run = async (kind: BulkKind, ids = applicable(kind).map((r) => r.runId)) => {
    if (!ids.length) return;
    stop = new AbortController();
    setSummary(undefined);
    setProgress({ kind, done: 0, total: ids.length, failed: 0 });
    const result = await runBulk(ids, (id) => props.act(kind, id), { signal: stop.signal, onProgress: (p) => setProgress({ kind, ...p }) });
    setProgress(undefined);
    setSummary({ kind, result });
    props.onSelect(EMPTY_SELECTION);
  };

  return (
    <Show when={props.selection().ids.size > 0 || progress() || summary()}>
      <div class="runs-bulk card" role="region" aria-label="Selected runs">
        <Switch>
          <Match when={progress()}>
            {(p) => (
              <>
                <span role="status">
                  {VERBS[p().kind].doing} {p().done} of {p().total}…
                </span>
                <progress max={p().total} value={p().done} aria-label={`${VERBS[p().kind].doing} runs`} />
                <button type="button" class="ghost" onClick={() => stop?.abort()}>
                  Stop
                </button>
              </>
            )}
          </Match>
          <Match when={props.selection().ids.size > 0}>
            <strong data-testid="selected-count">{formatCount(props.selection().ids.size)} selected</strong>
            <Show when={!allShown()}>
              <button type="button" class="ghost" onClick={() => props.onSelect({ ids: new Set(props.shown().map((r) => r.runId)), anchor: null })}>
                Select all {formatCount(props.shown().length)} shown
              </button>
            </Show>
            <span class="runs-bulk-spacer" />
            <Show when={props.selection().ids.size === 2}>
              <A class="button" href={`/compare?${[...props.selection().ids].map((id, i) => `${i ? "b" : "a"}=${encodeURIComponent(id)}`).join("&")}`} data-testid="bulk-compare" title="The two selected runs side by side: inputs, outputs per task, durations, tokens and cost">
                Compare
              </A>
            </Show>
            <button type="button" class="danger" disabled={!applicable("cancel").length} onClick={() => setAsking({ cancel: applicable("cancel").map((r) => r.runId), skipped: selected().length - applicable("cancel").length })} data-testid="bulk-cancel" title="Runs that have not ended stop; ended ones are left alone.">
              Cancel {formatCount(applicable("cancel").length)}
            </button>
            <button type="button" disabled={!applicable("resume").length} onClick={() => void run("resume")} data-testid="bulk-resume" title="Paused and failed runs continue from where they stopped; the others are left alone.">
              Resume {formatCount(applicable("resume").length)}
            </button>
            <button type="button" class="ghost" onClick={() => props.onSelect(EMPTY_SELECTION)}>
              Clear selection
            </button>
          </Match>
          <Match when={summary()}>
            {(s) => (
              <div class="runs-bulk-summary" role="status" data-testid="bulk-summary">
                <p>
                  {VERBS[s().kind].done} {formatCount(s().result.ok.length)} {s().result.ok.length === 1 ? "run" : "runs"}
                  {s().result.failed.length ? `; ${s().result.failed.length} refused` : ""}
                  {s().result.skipped.length ? `; ${s().result.skipped.length} not sent (stopped)` : ""}.
                </p>
                <Show when={s().result.failed.length}>
                  <ul class="runs-bulk-failures">
                    <For each={s().result.failed.slice(0, 5)}>
                      {(f) => (
                        <li>
                          <A href={`/runs/${encodeURIComponent(f.id)}`} class="mono">
                            {f.id}
                          </A>
                          : {f.code ? `${f.code}: ` : ""}
                          {f.message}
                        </li>
                      )}
                    </For>
                    <Show when={s().result.failed.length > 5}>
                      <li class="muted">and {s().result.failed.length - 5} more</li>
                    </Show>
                  </ul>
                </Show>
                <button type="button" class="ghost" onClick={() => setSummary(undefined)}>
                  Dismiss
                </button>
              </div>
            )}
          </Match>
        </Switch>
        <ConfirmDialog
          open={!!asking()}
          title={`Cancel ${plural(asking()?.cancel.length ?? 0, "run")}?`}
          confirmLabel={`Cancel ${plural(asking()?.cancel.length ?? 0, "run")}`}
          tone="danger"
          testId="bulk-cancel-dialog"
          onConfirm={async () => {
            const ids = asking()?.cancel ?? [];
            void run("cancel", ids);
          }}
          onClose={() => setAsking(undefined)}
        >
          <p>Their running tasks stop and they end as cancelled. This cannot be undone: a cancelled run can be re-run, not resumed.</p>
          <Show when={asking()?.skipped}>{(n) => <p class="muted">{plural(n(), "other selected run")} already ended and {n() === 1 ? "is" : "are"} left alone.</p>}</Show>
        </ConfirmDialog>
      </div>
    </Show>
  );
}
