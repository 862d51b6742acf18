/**
 * @module ui/views/approvals/human-task-form
 * The row a human task waits for. When the host serves the task's workflow, `GET
 * /v1/api/waits` gives the row's JSON Schema and the form is generated from it (the launch
 * form's fields, ui/launch/schema-fields.tsx, checked with its Ajv checker); otherwise the row
 * is typed as a JSON object. Submitted with `submitHumanTask`; the run checks the row again.
 */
import { createEffect, createMemo, createResource, createSignal, on, Show } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import type { GatewayApprovalRow } from "../../../core/data/index.js";
import { errorText } from "../../components/error-text.js";
import { checkJson } from "../../components/json-check.js";
import { JsonField } from "../../components/json-field.js";
import { useConnection } from "../../flow-context.js";
import { isQueued } from "../../../sync/index.js";
import { SchemaFields } from "../../launch/schema-fields.js";
import { formModel, formToInput, type FormValues, inputToForm } from "../../launch/schema-form.js";
import { inputChecker } from "../../launch/validate-input.js";
import type { Outcome } from "./approval-item.js";
import "../launch.css";

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
  const schema = () => (wait()?.request.schema as Record<string, unknown> | undefined) ?? null;
  const model = createMemo(() => formModel(schema()));
  const [values, setValues] = createStore<FormValues>({});
  createEffect(on(model, (m) => setValues(reconcile(inputToForm(m, {})))));
  const [json, setJson] = createSignal("{}");
  const [problems, setProblems] = createSignal<Record<string, string>>({});
  const [busy, setBusy] = createSignal(false);
  const [error, setError] = createSignal<string>();
  const asForm = () => !!schema() && !model().rawOnly;
  const id = () => `human-${props.row.runId}-${props.row.nodeId}-${props.row.iteration}`.replace(/[^\w-]/g, "_");

  /** The row to send, or the problems per field. */
  function read(): { value?: Record<string, unknown>; problems: Record<string, string> } {
    if (!asForm()) {
      const c = checkJson(json(), schema());
      if (!c.ok) return { problems: { "": c.error } };
      if (typeof c.value !== "object" || c.value === null || Array.isArray(c.value)) return { problems: { "": "The row is a JSON object, e.g. { \"label\": \"bug\" }." } };
      return { value: c.value as Record<string, unknown>, problems: {} };
    }
    const { input, errors } = formToInput(model(), values);
    const found = { ...inputChecker(schema())(input), ...errors };
    return Object.keys(found).length ? { problems: found } : { value: input, problems: {} };
  }

  async function submit(e: Event) {
    e.preventDefault();
    const r = read();
    setProblems(r.problems);
    if (!r.value) return;
    setBusy(true);
    setError(undefined);
    try {
      const result = await cols.answer({ runId: props.row.runId, nodeId: props.row.nodeId, iteration: props.row.iteration, value: r.value, askedAtMs: props.row.createdAtMs });
      props.onOutcome(isQueued(result) ? { tone: "warn", text: `“${props.title}”: your answer waits in this browser and is sent once the workspace answers`, runId: props.row.runId } : { tone: "ok", text: `Submitted “${props.title}”`, runId: props.row.runId });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="approval-actions human-task-form" data-testid="human-task-form" onSubmit={(e) => void submit(e)} aria-busy={wait.loading} noValidate>
      <Show when={!wait.loading} fallback={<p class="muted">Loading the task's form…</p>}>
        <Show
          when={asForm()}
          fallback={<JsonField id={id()} label={schema() ? "Row (JSON)" : "Row (a JSON object; this host does not know the task's schema)"} value={json()} onInput={setJson} schema={schema()} testid="human-task-value" rows={4} />}
        >
          <div class="human-task-fields">
            <SchemaFields fields={model().fields} values={values} problems={problems()} onChange={(key, v) => setValues(key, v)} />
          </div>
        </Show>
      </Show>
      <Show when={problems()[""]}>
        <p class="inline-error" role="alert">
          {problems()[""]}
        </p>
      </Show>
      <div class="form-actions">
        <button type="submit" class="primary" data-testid="human-submit" disabled={busy() || wait.loading}>
          {busy() ? "Submitting…" : "Submit"}
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
