/**
 * @module ui/views/approvals/human-task-form
 * The row a human task waits for, typed as JSON against the task's schema (read from
 * `GET /v1/api/waits` when the host serves the workflow; free JSON otherwise), prefilled with
 * a starting value, checked as the person types, and submitted with `submitHumanTask`.
 */
import { createEffect, createResource, createSignal, on, Show } from "solid-js";
import type { GatewayApprovalRow } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { checkJson, skeletonOf } from "../../components/json-check.js";
import { JsonField } from "../../components/json-field.js";
import { useConnection } from "../../flow-context.js";
import type { Outcome } from "./approval-item.js";

/**
 * A human task's form.
 * @example
 * <HumanTaskForm row={row} title="Enter the claim" onOutcome={log} />
 */
export function HumanTaskForm(props: { row: GatewayApprovalRow; title: string; onOutcome(outcome: Outcome): void }) {
  const { cols } = useConnection();
  const [wait] = createResource(
    () => ({ runId: props.row.runId, nodeId: props.row.nodeId, iteration: props.row.iteration }),
    async (k) => (await cols.data.api.listWaits({ runId: k.runId, nodeId: k.nodeId, kind: "human" })).find((w) => w.iteration === k.iteration),
  );
  const schema = () => (wait()?.request.schema as object | undefined) ?? null;
  const [text, setText] = createSignal("{}");
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  createEffect(on(schema, (s) => s && setText(JSON.stringify(skeletonOf(s), null, 2))));
  const check = () => checkJson(text(), schema());
  const id = () => `human-${props.row.runId}-${props.row.nodeId}-${props.row.iteration}`.replace(/[^\w-]/g, "_");

  async function submit(e: Event) {
    e.preventDefault();
    const c = check();
    if (!c.ok) return;
    setBusy(true);
    setError(undefined);
    try {
      await cols.data.api.submitHumanTask({ runId: props.row.runId, nodeId: props.row.nodeId, iteration: props.row.iteration, value: c.value as Record<string, unknown> });
      props.onOutcome({ tone: "ok", text: `Submitted “${props.title}”`, runId: props.row.runId });
      void cols.invalidate({ collection: "approvals" });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="approval-actions human-task-form" onSubmit={(e) => void submit(e)} aria-busy={wait.loading}>
      <JsonField id={id()} label={schema() ? "Row" : "Row (JSON object; this host does not know the task's schema)"} value={text()} onInput={setText} schema={schema()} testid="human-task-value" rows={5} />
      <div class="form-actions">
        <button type="submit" class="primary" data-testid="human-submit" disabled={busy() || !check().ok || typeof (check() as { value?: unknown }).value !== "object"}>
          Submit
        </button>
        <Show when={wait.error}>
          <span class="muted">Could not read the task's schema: {errorText(wait.error)}</span>
        </Show>
      </div>
      <Show when={error()}>
        <p class="inline-error" role="alert">
          {error()}
        </p>
      </Show>
    </form>
  );
}
