/**
 * @module ui/views/run-detail/fork-dialog
 * "Fork from here": a new run of the same workflow that starts at this task (`forkRun`,
 * docs/time-travel.md "Fork and replay"): what finished before it is reused, the task and what
 * came after it run again, on the run's input edited in a form made from the workflow's input
 * schema (the launch form's fields). The input is checked in the browser (Ajv) and by the
 * server (its INPUT_INVALID problems) before anything is written, each problem beside its
 * field; the original run is only read. A fork opens the new run's page.
 */
import { useNavigate } from "@solidjs/router";
import { createEffect, createMemo, createSignal, on, Show } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import type { GatewayRunRow, GatewayWorkflowRow } from "../../../core/data/index.js";
import { createCollectionRows } from "../../components/collection-rows.js";
import { ConfirmDialog } from "../../components/confirm-dialog.js";
import { useConnection } from "../../flow-context.js";
import { SchemaFields } from "../../launch/schema-fields.js";
import { formModel, formToInput, type FormValues, inputToForm } from "../../launch/schema-form.js";
import { type FieldProblems, inputChecker, serverProblems } from "../../launch/validate-input.js";
import "../launch.css";

/**
 * The fork dialog of one node iteration.
 * @example
 * <ForkDialog open={forking()} run={run} nodeId="write" iteration={0} onClose={() => setForking(false)} />
 */
export function ForkDialog(props: { open: boolean; run: GatewayRunRow; nodeId: string; iteration: number; onClose(): void }) {
  const { cols } = useConnection();
  const navigate = useNavigate();
  // The collection's rows, not a live query: mounted with each node's panel while a run goes on,
  // a live query would suspend the whole page (its first read waits a microtask even when ready).
  const workflows = createCollectionRows<GatewayWorkflowRow>(cols.workflows);
  const workflow = createMemo(() => (workflows.isReady ? workflows().find((w) => w.key === props.run.workflowKey) : undefined));
  const model = createMemo(() => formModel(workflow()?.inputSchema ?? null));
  const [values, setValues] = createStore<FormValues>({});
  const [json, setJson] = createSignal("{}");
  const [problems, setProblems] = createSignal<FieldProblems>({});
  const raw = () => model().rawOnly || model().fields.length === 0;
  // Filled with the run's input each time the dialog opens (once its workflow is known); a
  // refresh of the workflows list while it is open keeps what was typed.
  const reset = () => {
    setValues(reconcile(inputToForm(model(), props.run.input)));
    setJson(JSON.stringify(props.run.input ?? {}, null, 2));
    setProblems({});
  };
  const ready = createMemo(() => props.open && workflow() !== undefined);
  createEffect(on(ready, (isReady) => isReady && reset()));

  const read = (): { input?: Record<string, unknown>; found: FieldProblems } => {
    if (raw()) {
      try {
        const input = JSON.parse(json() || "{}") as Record<string, unknown>;
        return { input, found: inputChecker(workflow()?.inputSchema)(input) };
      } catch (e) {
        return { found: { "": `The JSON does not parse: ${(e as Error).message}` } };
      }
    }
    const { input, errors } = formToInput(model(), values);
    return { input, found: { ...inputChecker(workflow()?.inputSchema)(input), ...errors } };
  };
  const fork = async () => {
    const { input, found } = read();
    setProblems(found);
    if (Object.keys(found).length) throw new Error(`Fix the marked ${Object.keys(found).length === 1 ? "field" : "fields"} to fork.`);
    try {
      const { runId } = await cols.fork({ runId: props.run.runId, nodeId: props.nodeId, iteration: props.iteration, input: input ?? {} });
      navigate(`/runs/${encodeURIComponent(runId)}`);
    } catch (error) {
      const fromServer = serverProblems(error);
      if (fromServer) {
        setProblems(fromServer);
        throw new Error("The workflow refused this input: fix the marked fields to fork.");
      }
      throw error;
    }
  };
  const whole = () => (raw() ? Object.entries(problems()).map(([k, v]) => (k ? `${k}: ${v}` : v)).join(" ") : problems()[""]);

  return (
    <ConfirmDialog open={props.open} title={`Fork from ${props.nodeId}?`} confirmLabel="Fork run" onConfirm={fork} onClose={props.onClose} testId="fork-dialog">
      <p>
        A new run of <code>{props.run.workflowKey}</code> starts at <code>{props.nodeId}</code> (iteration {props.iteration}): what finished before it is reused, this task and
        what came after it run again, on the input below. Run <code>{props.run.runId}</code> stays as it is.
      </p>
      <div class="launch-form fork-form" data-testid="fork-form">
        <Show
          when={raw()}
          fallback={
            <SchemaFields
              fields={model().fields}
              values={values}
              problems={problems()}
              onChange={(key, value) => {
                setValues(key, value);
                if (Object.keys(problems()).length) setProblems(read().found);
              }}
            />
          }
        >
          <div class="launch-field">
            <label for="fork-json" class="launch-label">
              Input (JSON)
            </label>
            <textarea id="fork-json" name="input" class="mono" rows={8} spellcheck={false} value={json()} onInput={(e) => setJson(e.currentTarget.value)} aria-invalid={whole() ? true : undefined} />
          </div>
        </Show>
        <Show when={whole()}>
          <p class="launch-problem" role="alert" data-testid="field-problem">
            {whole()}
          </p>
        </Show>
      </div>
    </ConfirmDialog>
  );
}
