/**
 * @module ui/views/run-detail/run-actions
 * The run's actions — cancel, pause, resume — each behind a confirmation that says what will
 * happen, off (with the reason) when the run's status does not allow it. Cancel is optimistic
 * (`cols.cancel`); pause and resume call the domain API and the change stream brings the new
 * status. Beside them: Compare (`/compare?a=<runId>`) and Export events, which downloads the
 * run's whole event log as JSON lines (`<runId>.events.jsonl`, one stored event per line, read
 * from the domain API when pressed).
 */
import { A } from "@solidjs/router";
import { createSignal, Match, Show, Switch } from "solid-js";
import { type GatewayRunRow, listAllRunEvents } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { ActionButton } from "../../components/action-button.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { useConnection } from "../../flow-context.js";
import { type RunAction, whyNot } from "./run-status-rules.js";

/**
 * The run-level action bar.
 * @example
 * <RunActions run={run()} />
 */
export function RunActions(props: { run: GatewayRunRow }) {
  const { cols } = useConnection();
  const [asking, setAsking] = createSignal<RunAction>();
  const [exporting, setExporting] = createSignal(false);
  const [exportError, setExportError] = createSignal<string>();
  const exportEvents = async () => {
    setExporting(true);
    setExportError(undefined);
    try {
      const events = await listAllRunEvents(cols.data.api, props.run.runId, 0);
      const blob = new Blob(events.map((e) => `${JSON.stringify(e)}\n`), { type: "application/jsonl" });
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      // Child run ids hold "/" and "@": a file name keeps neither.
      link.download = `${props.run.runId.replace(/[^A-Za-z0-9._-]+/g, "_")}.events.jsonl`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
    } catch (error) {
      setExportError(`Could not export the events: ${errorText(error)}`);
    } finally {
      setExporting(false);
    }
  };
  const act = (a: RunAction): Promise<unknown> => {
    const id = props.run.runId;
    if (a === "cancel") return cols.cancel(id);
    if (a === "pause") return cols.data.api.pauseRun(id);
    return cols.data.api.resumeRun(id);
  };
  const titles: Record<RunAction, string> = { cancel: "Cancel this run?", pause: "Pause this run?", resume: "Resume this run?" };
  return (
    <div class="run-actions" role="toolbar" aria-label="Run actions">
      <ActionButton label="Pause" testId="run-pause" reason={whyNot("pause", props.run.status)} onClick={() => setAsking("pause")} />
      <ActionButton label="Resume" testId="run-resume" reason={whyNot("resume", props.run.status)} onClick={() => setAsking("resume")} />
      <ActionButton label="Cancel run" tone="danger" testId="run-cancel" reason={whyNot("cancel", props.run.status)} onClick={() => setAsking("cancel")} />
      <span class="run-actions-spacer" />
      <A class="button" href={`/compare?a=${encodeURIComponent(props.run.runId)}`} data-testid="run-compare">
        Compare…
      </A>
      <button type="button" disabled={exporting()} onClick={() => void exportEvents()} data-testid="run-export" title="Download every event of this run as JSON lines (one event per line)">
        {exporting() ? "Exporting…" : "Export events"}
      </button>
      <Show when={exportError()}>
        <p class="error-banner" role="alert">
          {exportError()}
        </p>
      </Show>
      <ConfirmDialog
        open={asking() !== undefined}
        title={titles[asking() ?? "cancel"]}
        confirmLabel={asking() === "cancel" ? "Cancel run" : asking() === "pause" ? "Pause" : "Resume"}
        tone={asking() === "cancel" ? "danger" : "primary"}
        onConfirm={() => act(asking()!)}
        onClose={() => setAsking(undefined)}
        testId="run-action-dialog"
      >
        <Switch>
          <Match when={asking() === "cancel"}>
            <p>
              Run <code>{props.run.runId}</code> stops: tasks in flight are cancelled and nothing new starts. Its rows and events stay. This cannot be undone, but a failed or
              cancelled task can be retried later.
            </p>
          </Match>
          <Match when={asking() === "pause"}>
            <p>Tasks in flight finish; nothing new starts. The run parks as paused until you resume it.</p>
          </Match>
          <Match when={asking() === "resume"}>
            <p>The run continues where it stopped: finished tasks are not run again.</p>
          </Match>
        </Switch>
      </ConfirmDialog>
    </div>
  );
}
