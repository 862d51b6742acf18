/**
 * @module ui/views/crons/cron-form
 * Creates a cron (`data-testid="cron-form"`): a registered workflow, a cron expression checked
 * as it is typed (with its next firings), the run input as JSON checked against the workflow's
 * input schema, and whether it is enabled. The same id replaces that cron.
 */
import { createMemo, createSignal, For, Show } from "solid-js";
import type { GatewayWorkflowRow } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { formatUntil } from "../../components/format.js";
import { checkJson } from "../../components/json-check.js";
import { JsonField } from "../../components/json-field.js";
import { useConnection } from "../../flow-context.js";
import { describeCron, nextFirings } from "./cron-text.js";

/**
 * The cron form.
 * @example
 * <CronForm workflows={workflows} onCreated={(id) => setNotice(`Created ${id}`)} />
 */
export function CronForm(props: { workflows: GatewayWorkflowRow[]; onCreated(cronId: string): void }) {
  const { cols } = useConnection();
  const [cronId, setCronId] = createSignal("");
  const [workflow, setWorkflow] = createSignal("");
  const [schedule, setSchedule] = createSignal("0 9 * * 1-5");
  const [input, setInput] = createSignal("{}");
  const [enabled, setEnabled] = createSignal(true);
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  const chosen = createMemo(() => props.workflows.find((w) => w.key === (workflow() || props.workflows[0]?.key)));
  const fires = createMemo(() => nextFirings(schedule(), Date.now(), 3));
  const inputCheck = () => checkJson(input(), chosen()?.inputSchema ?? null, {});
  const ready = () => !!chosen() && fires().ok && inputCheck().ok && !busy();

  async function submit(e: Event) {
    e.preventDefault();
    const c = inputCheck();
    if (!ready() || !c.ok) return;
    setBusy(true);
    setError(undefined);
    try {
      const row = await cols.data.api.createCron({ workflow: chosen()!.key, schedule: schedule().trim(), input: c.value as Record<string, unknown>, enabled: enabled(), ...(cronId().trim() ? { cronId: cronId().trim() } : {}) });
      props.onCreated(row.cronId);
      setCronId("");
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card cron-form" data-testid="cron-form" onSubmit={(e) => void submit(e)} aria-labelledby="cron-form-title">
      <h2 id="cron-form-title">New cron</h2>
      <div class="cron-form-grid">
        <label>
          <span>Workflow</span>
          <select name="workflow" value={chosen()?.key ?? ""} onChange={(e) => setWorkflow(e.currentTarget.value)}>
            <For each={props.workflows}>{(w) => <option value={w.key}>{w.name && w.name !== w.key ? `${w.key} (${w.name})` : w.key}</option>}</For>
          </select>
        </label>
        <label>
          <span>Schedule</span>
          <input name="schedule" class="mono" value={schedule()} onInput={(e) => setSchedule(e.currentTarget.value)} aria-invalid={!fires().ok} aria-describedby="cron-schedule-help" placeholder="*/15 * * * *" />
        </label>
        <label>
          <span>Id (optional)</span>
          <input name="cronId" value={cronId()} onInput={(e) => setCronId(e.currentTarget.value)} placeholder="new id when empty" />
        </label>
        <label class="cron-enabled">
          <input type="checkbox" name="enabled" checked={enabled()} onChange={(e) => setEnabled(e.currentTarget.checked)} /> Enabled
        </label>
      </div>
      <p id="cron-schedule-help" class={fires().ok ? "muted cron-help" : "cron-help cron-help-bad"} role={fires().ok ? undefined : "alert"}>
        <Show when={fires().ok} fallback={(fires() as { error: string }).error}>
          {describeCron(schedule()) ? `${describeCron(schedule())}. ` : ""}Next:{" "}
          {(fires() as { times: number[] }).times.map((t) => `${new Date(t).toLocaleString()} (${formatUntil(t)})`).join(" · ")}
        </Show>
      </p>
      <JsonField id="cron-input" name="input" label="Input (JSON)" value={input()} onInput={setInput} schema={chosen()?.inputSchema ?? null} emptyAs={{}} rows={3} />
      <div class="form-actions">
        <button type="submit" class="primary" disabled={!ready()}>
          {busy() ? "Creating…" : "Create cron"}
        </button>
      </div>
      <Show when={error()}>
        <p class="error-banner" role="alert">
          {error()}
        </p>
      </Show>
    </form>
  );
}
