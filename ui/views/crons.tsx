/**
 * @module ui/views/crons
 * Crons (`/crons`): every schedule with its workflow, expression (in words where it has a
 * common shape), next firing, whether it is enabled and its last run (a link); run one now,
 * enable or disable it, or delete it (confirmed); and the form that creates one. See docs/app-views-people.md "Crons".
 */
import { A } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createSignal, For, Show, Suspense } from "solid-js";
import type { GatewayCronRow, GatewayWorkflowRow } from "../../core/data/index.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { EmptyState } from "../components/empty-state.js";
import { errorText } from "../components/error-text.js";
import { formatAgo, formatUntil, shortId } from "../components/format.js";
import { createNow } from "../components/now.js";
import { useConnection } from "../flow-context.js";
import { CronForm } from "./crons/cron-form.js";
import { describeCron } from "./crons/cron-text.js";
import "../components/view-layout.css";
import "./crons.css";

/**
 * The crons view (a route of ui/app.tsx).
 * @example
 * <Route path="/crons" component={Crons} />
 */
export default function Crons() {
  const { cols } = useConnection();
  const crons = useLiveQuery((q) => q.from({ c: cols.crons }).select(({ c }) => ({ ...c, id: c.cronId })).orderBy(({ c }) => c.cronId, "asc"));
  const workflows = useLiveQuery((q) => q.from({ w: cols.workflows }).select(({ w }) => ({ ...w, id: w.key })));
  const now = createNow(() => true, 15_000);
  const [deleting, setDeleting] = createSignal<GatewayCronRow>();
  const [notice, setNotice] = createSignal<{ tone: "ok" | "bad"; text: string; runId?: string }>();
  const [running, setRunning] = createSignal<string>();

  /** Saving a cron under its own id with `enabled` flipped (cronCreate replaces it). */
  async function toggle(cron: GatewayCronRow) {
    setRunning(cron.cronId);
    try {
      await cols.data.api.createCron({ cronId: cron.cronId, workflow: cron.workflowKey, schedule: cron.schedule, input: cron.input, enabled: !cron.enabled });
      setNotice({ tone: "ok", text: `${cron.enabled ? "Disabled" : "Enabled"} cron ${cron.cronId}.` });
    } catch (error) {
      setNotice({ tone: "bad", text: errorText(error) });
    } finally {
      setRunning(undefined);
    }
  }

  async function runNow(cron: GatewayCronRow) {
    setRunning(cron.cronId);
    try {
      const { runId } = await cols.data.api.runCron(cron.cronId);
      setNotice({ tone: "ok", text: `Started ${cron.workflowKey} from ${cron.cronId}:`, runId });
    } catch (error) {
      setNotice({ tone: "bad", text: errorText(error) });
    } finally {
      setRunning(undefined);
    }
  }

  return (
    <div class="crons-view">
      <header class="view-header">
        <h1>Crons</h1>
      </header>
      <Show when={notice()}>
        {(n) => (
          <p class={`crons-notice tone-${n().tone}`} role="status">
            {n().text}{" "}
            <Show when={n().runId}>
              {(runId) => (
                <A href={`/runs/${encodeURIComponent(runId())}`} class="mono" title={runId()}>
                  {shortId(runId())}
                </A>
              )}
            </Show>
          </p>
        )}
      </Show>
      <Suspense fallback={<p class="muted">Loading crons…</p>}>
        <Show when={!crons.isError} fallback={<div class="error-banner" role="alert">Could not load the crons. Check the connection and reload.</div>}>
          <Show when={(crons() as GatewayCronRow[]).length} fallback={<EmptyState title="No crons yet" hint="A cron starts a workflow on a schedule. Create one below, or register a workflow with { schedule }." />}>
            <div class="card table-scroll">
              <table class="crons-table">
                <thead>
                  <tr>
                    <th scope="col">Cron</th>
                    <th scope="col">Workflow</th>
                    <th scope="col">Schedule</th>
                    <th scope="col">Next</th>
                    <th scope="col">Last run</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  <For each={crons() as GatewayCronRow[]}>
                    {(c) => (
                      <tr data-testid="cron-row" data-cron-id={c.cronId} data-enabled={String(c.enabled)}>
                        <td>
                          <span class="mono">{c.cronId}</span>
                          <Show when={!c.enabled}>
                            {" "}
                            <span class="badge tone-idle">disabled</span>
                          </Show>
                        </td>
                        <td>
                          <A href={`/runs?workflow=${encodeURIComponent(c.workflowKey)}`}>{c.workflowKey}</A>
                        </td>
                        <td>
                          <code>{c.schedule}</code>
                          <Show when={describeCron(c.schedule)}>
                            <div class="muted crons-words">{describeCron(c.schedule)}</div>
                          </Show>
                        </td>
                        <td title={c.nextFireAtMs ? new Date(c.nextFireAtMs).toLocaleString() : "Disabled: it does not fire"}>
                          {c.enabled && c.nextFireAtMs ? formatUntil(c.nextFireAtMs, now()) : <span class="muted">—</span>}
                        </td>
                        <td>
                          <Show when={c.lastRunId} fallback={<span class="muted">never</span>}>
                            {(runId) => (
                              <>
                                <A href={`/runs/${encodeURIComponent(runId())}`} class="mono" title={runId()}>
                                  {shortId(runId())}
                                </A>{" "}
                                <span class="muted">{formatAgo(c.lastFiredAtMs, now())}</span>
                              </>
                            )}
                          </Show>
                        </td>
                        <td class="crons-actions">
                          <button type="button" data-testid="cron-run" disabled={running() === c.cronId} onClick={() => void runNow(c)}>
                            Run now
                          </button>
                          <button type="button" data-testid="cron-toggle" disabled={running() === c.cronId} onClick={() => void toggle(c)} aria-label={`${c.enabled ? "Disable" : "Enable"} cron ${c.cronId}`}>
                            {c.enabled ? "Disable" : "Enable"}
                          </button>
                          <button type="button" class="danger" data-testid="cron-delete" onClick={() => setDeleting(c)}>
                            Delete
                          </button>
                        </td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
          </Show>
        </Show>
        <CronForm workflows={workflows() as GatewayWorkflowRow[]} onCreated={(id) => setNotice({ tone: "ok", text: `Saved cron ${id}.` })} />
      </Suspense>
      <ConfirmDialog
        open={!!deleting()}
        title={`Delete cron ${deleting()?.cronId ?? ""}?`}
        confirmLabel="Delete cron"
        tone="danger"
        testId="cron-delete-dialog"
        onConfirm={async () => {
          const c = deleting()!;
          await cols.data.api.deleteCron(c.cronId);
          setNotice({ tone: "ok", text: `Deleted cron ${c.cronId}.` });
        }}
        onClose={() => setDeleting(undefined)}
      >
        It stops starting {deleting()?.workflowKey} ({deleting()?.schedule}). Runs it started stay.
      </ConfirmDialog>
    </div>
  );
}
