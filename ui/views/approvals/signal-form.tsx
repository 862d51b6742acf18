/**
 * @module ui/views/approvals/signal-form
 * Sends a signal or an event to a waiting run: the runs' pending `Signal` and `WaitForEvent`
 * waits (`GET /v1/api/waits`, re-read whenever the set of `waiting-event` runs changes) to
 * pick from (`?signal=<runId>/<nodeId>#<iteration>` keeps the choice in the URL), a payload
 * checked against the schema the wait recorded, and `cols.signal` to deliver it.
 */
import { A, useSearchParams } from "@solidjs/router";
import { createEffect, createMemo, createResource, createSignal, For, on, Show } from "solid-js";
import type { WaitInfo } from "../../../core/api/index.js";
import type { GatewayRunSummaryRow } from "../../../core/data/index.js";
import { runNodeKey } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { formatAgo, shortId } from "../../components/format.js";
import { checkJson, skeletonOf } from "../../components/json-check.js";
import { JsonField } from "../../components/json-field.js";
import { useConnection } from "../../flow-context.js";
import type { Outcome } from "./approval-item.js";
import { workflowTitle } from "../../components/workflow-label.js";

/**
 * The signal form.
 * @example
 * <SignalForm runs={runs()} now={now()} onOutcome={log} />
 */
export function SignalForm(props: { runs: GatewayRunSummaryRow[]; now: number; onOutcome(outcome: Outcome): void }) {
  const { cols } = useConnection();
  const [params, setParams] = useSearchParams<{ signal?: string }>();
  /** Changes when a run starts or stops waiting for an event: the waits are read again then. */
  const waitingKey = createMemo(() =>
    props.runs
      .filter((r) => r.status === "waiting-event")
      .map((r) => `${r.runId}@${r.updatedAtMs}`)
      .sort()
      .join(","),
  );
  const [waits, { refetch }] = createResource(
    () => ({ key: waitingKey() }),
    async (): Promise<WaitInfo[]> => {
      // Offline (no Gateway answers) the inbox still shows what this browser kept; the runs
      // waiting for a signal are listed again once the workspace answers.
      const all: WaitInfo[] = await cols.data.api.listWaits({ status: "pending" }).catch((error: unknown): WaitInfo[] => {
        if ((error as { code?: string }).code === "GATEWAY_UNAVAILABLE") return waits.latest ?? [];
        throw error;
      });
      return all.filter((w) => w.kind === "signal" || w.kind === "event");
    },
  );
  const list = () => waits.latest ?? [];
  const chosen = createMemo<WaitInfo | undefined>(() => list().find((w) => runNodeKey(w) === params.signal) ?? list()[0]);
  const workflowOf = (runId: string) => {
    return workflowTitle(props.runs.find((r) => r.runId === runId)) ?? null;
  };
  const [payload, setPayload] = createSignal("{}");
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  const schema = () => (chosen()?.request.schema as object | undefined) ?? null;
  // A starting payload of the chosen wait's schema (every field with a value of its type).
  createEffect(on(schema, (s) => setPayload(s ? JSON.stringify(skeletonOf(s), null, 2) : "{}")));
  const check = () => checkJson(payload(), schema(), null);

  async function send(e: Event) {
    e.preventDefault();
    const w = chosen();
    const c = check();
    if (!w?.name || !c.ok) return;
    setBusy(true);
    setError(undefined);
    try {
      const result = await cols.signal({ name: w.name, runId: w.runId, payload: c.value, kind: w.kind === "event" ? "event" : "signal" });
      props.onOutcome({ tone: "ok", text: `Sent ${w.kind} “${w.name}” (${result.status})`, runId: w.runId });
      void refetch();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card signal-form" aria-labelledby="signal-form-title">
      <h2 id="signal-form-title">Send a signal or event</h2>
      <Show when={waits.error}>
        <p class="inline-error" role="alert">
          Could not read the waiting runs: {errorText(waits.error)}
        </p>
      </Show>
      <Show when={!waits.loading || waits.latest} fallback={<p class="muted">Loading waiting runs…</p>}>
        <Show when={list().length} fallback={<p class="muted">No run waits for a signal or an event. Runs parked on a Signal or WaitForEvent show here.</p>}>
          <form onSubmit={(e) => void send(e)} data-testid="signal-form">
            <div class="signal-row">
              <label for="signal-wait">Waiting run</label>
              <select id="signal-wait" data-testid="signal-wait" value={chosen() ? runNodeKey(chosen()!) : ""} onChange={(e) => setParams({ signal: e.currentTarget.value })}>
                <For each={list()}>
                  {(w) => (
                    <option value={runNodeKey(w)}>
                      {w.kind} “{w.name}” · run {shortId(w.runId)}
                      {workflowOf(w.runId) ? ` (${workflowOf(w.runId)})` : ""} · {formatAgo(w.createdAtMs, props.now)}
                    </option>
                  )}
                </For>
              </select>
            </div>
            <Show when={chosen()}>
              {(w) => (
                <p class="muted signal-target">
                  Delivers <code>{w().name}</code> to run{" "}
                  <A href={`/runs/${encodeURIComponent(w().runId)}?node=${encodeURIComponent(w().nodeId)}`} class="mono">
                    {shortId(w().runId)}
                  </A>{" "}
                  (node <code>{w().nodeId}</code>
                  {w().correlationId ? `, correlation id ${w().correlationId}` : ""}). {schema() ? "The payload must match the schema below." : "Any JSON payload."}
                </p>
              )}
            </Show>
            <JsonField id="signal-payload" label="Payload" value={payload()} onInput={setPayload} schema={schema()} testid="signal-payload" emptyAs={null} />
            <div class="form-actions">
              <button type="submit" class="primary" data-testid="signal-submit" disabled={busy() || !check().ok}>
                Send {chosen()?.kind ?? "signal"}
              </button>
            </div>
            <Show when={error()}>
              <p class="inline-error" role="alert">
                {error()}
              </p>
            </Show>
          </form>
        </Show>
      </Show>
    </section>
  );
}
