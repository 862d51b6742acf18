/**
 * @module ui/views/launch
 * Launching runs. `/launch` lists the workspace's workflows with their descriptions;
 * `/launch/:workflow` is a form generated from the workflow's input JSON Schema
 * (ui/launch/schema-form.ts), checked in the browser (Ajv) and by the server (its
 * INPUT_INVALID problems shown per field), with a raw JSON mode; a launch opens `/runs/<id>`.
 * `?from=<runId>` fills the form from a run ("re-run with this input"). Below the form, the
 * workflow's agent cost per day (workflow-cost.tsx).
 * See docs/app-views-runs.md "Launch".
 */
import { A, useNavigate, useParams, useSearchParams } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createMemo, createResource, createSignal, For, Match, onMount, Show, Switch } from "solid-js";
import { createStore, reconcile } from "solid-js/store";
import type { GatewayWorkflowRow } from "../../core/data/index.js";
import { EmptyState } from "../components/empty-state.js";
import { plural } from "../components/format.js";
import { fieldInputId, SchemaFields } from "../launch/schema-fields.js";
import { formModel, formToInput, type FormValues, inputToForm, leafFields } from "../launch/schema-form.js";
import { type FieldProblems, inputChecker, serverProblems } from "../launch/validate-input.js";
import { useConnection } from "../flow-context.js";
import { isQueued } from "../../sync/index.js";
import { WorkflowCost } from "./workflow-cost.js";
import "./launch.css";

/** The launch view: the workflow list, or one workflow's form. */
export default function Launch() {
  const params = useParams<{ workflow?: string }>();
  const { cols } = useConnection();
  const workflows = useLiveQuery((q) => q.from({ w: cols.workflows }));
  const list = createMemo(() => (workflows.isReady ? (workflows() as GatewayWorkflowRow[]) : []));
  // A launched run's page comes next: its code is loaded meanwhile, not after the launch.
  onMount(() => void import("./run-detail.js"));
  return (
    <section class="launch-view">
      <Switch>
        <Match when={workflows.isError}>
          <div class="error-banner" role="alert">
            Could not load the workflows of this workspace.{" "}
            <button type="button" onClick={() => void cols.invalidate({ collection: "workflows" })}>
              Try again
            </button>
          </div>
        </Match>
        <Match when={!workflows.isReady}>
          <p class="muted" aria-busy="true">
            Loading workflows…
          </p>
        </Match>
        <Match when={params.workflow}>
          {(key) => (
            <Show
              when={list().find((w) => w.key === key())}
              fallback={<EmptyState title={`No workflow "${key()}" here`} hint="This workspace does not serve it. Pick one it does." action={<A class="button" href="/launch">All workflows</A>} />}
            >
              {(w) => <LaunchForm workflow={w()} />}
            </Show>
          )}
        </Match>
        <Match when={true}>
          <WorkflowList workflows={list()} />
        </Match>
      </Switch>
    </section>
  );
}

function WorkflowList(props: { workflows: GatewayWorkflowRow[] }) {
  return (
    <>
      <header class="launch-head">
        <h1>Launch a workflow</h1>
      </header>
      <Show
        when={props.workflows.length}
        fallback={<EmptyState title="No workflows in this workspace" hint="Register workflows with the Gateway (gateway.register) or bundle them into the app; docs/app.md says how." />}
      >
        <ul class="launch-cards">
          <For each={props.workflows}>
            {(w) => {
              const fields = leafFields(formModel(w.inputSchema).fields);
              return (
                <li class="card launch-card" data-testid="launch-workflow" data-workflow={w.key}>
                  <div>
                    <h2>
                      <A href={`/launch/${encodeURIComponent(w.key)}`}>{w.key}</A>
                    </h2>
                    <p class="muted">{w.description ?? "No description."}</p>
                    <Show when={fields.length}>
                      <p class="launch-inputs">
                        <span class="muted">Inputs: </span>
                        <For each={fields}>
                          {(f, i) => (
                            <>
                              <code>{f.key}</code>
                              {f.required ? "" : "?"}
                              {i() < fields.length - 1 ? ", " : ""}
                            </>
                          )}
                        </For>
                      </p>
                    </Show>
                  </div>
                  <A class="button primary" href={`/launch/${encodeURIComponent(w.key)}`} aria-label={`Launch ${w.key}`}>
                    Launch
                  </A>
                </li>
              );
            }}
          </For>
        </ul>
      </Show>
    </>
  );
}

function LaunchForm(props: { workflow: GatewayWorkflowRow }) {
  const { cols, workspace } = useConnection();
  const kind = workspace.kind;
  const navigate = useNavigate();
  const [search] = useSearchParams();
  const model = formModel(props.workflow.inputSchema);
  const check = inputChecker(props.workflow.inputSchema);
  const [values, setValues] = createStore<FormValues>(inputToForm(model, {}));
  const [raw, setRaw] = createSignal(model.rawOnly);
  const [json, setJson] = createSignal("{}");
  const [problems, setProblems] = createSignal<FieldProblems>({});
  const [failure, setFailure] = createSignal<string>();
  const [queued, setQueued] = createSignal<{ runId: string; writeId: string }>();
  const [busy, setBusy] = createSignal(false);

  // Re-run with a run's input (`?from=<runId>`).
  const fromId = () => (typeof search.from === "string" ? search.from : undefined);
  const [from] = createResource(fromId, async (runId) => {
    const run = await cols.data.api.getRunSummary(runId);
    setValues(reconcile(inputToForm(model, run.input)));
    setJson(JSON.stringify(run.input ?? {}, null, 2));
    return run;
  });

  const currentInput = (): { input?: unknown; problems: FieldProblems } => {
    if (raw()) {
      try {
        return { input: JSON.parse(json() || "{}"), problems: {} };
      } catch (e) {
        return { problems: { "": `The JSON does not parse: ${(e as Error).message}` } };
      }
    }
    const { input, errors } = formToInput(model, values);
    return { input, problems: errors };
  };

  const toggleRaw = () => {
    if (raw()) {
      const { input, problems: p } = currentInput();
      if (p[""]) return setProblems(p);
      setValues(reconcile(inputToForm(model, input)));
      setProblems({});
      setRaw(false);
    } else {
      setJson(JSON.stringify(formToInput(model, values).input, null, 2));
      setProblems({});
      setRaw(true);
    }
  };

  // After the first launch attempt, problems follow the input as it is edited (a fixed field
  // loses its message at once).
  const [attempted, setAttempted] = createSignal(false);
  const recheck = (): { input?: unknown; found: FieldProblems } => {
    const read = currentInput();
    const found = { ...(read.input !== undefined ? check(read.input) : {}), ...read.problems };
    setProblems(found);
    return { input: read.input, found };
  };
  const edit = (key: string, value: FormValues[string]) => {
    setValues(key, value);
    if (attempted()) recheck();
  };
  const editJson = (text: string) => {
    setJson(text);
    if (attempted()) recheck();
  };

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setFailure(undefined);
    setQueued(undefined);
    setAttempted(true);
    const { input, found } = recheck();
    if (Object.keys(found).length) return focusFirstProblem(found);
    setBusy(true);
    try {
      // The run's page opens as soon as the run exists, not once the change stream has
      // confirmed it to the runs list: a run of fast tasks (in this browser's engine, which
      // shares its worker with every request) would otherwise show only when it has ended. A
      // team workspace's launch goes through its writes (offline it waits in this browser).
      // Provenance, shown as "Started by" where no signed-in caller is (SPEC `options.startedBy`).
      const params = { workflow: props.workflow.key, input: (input ?? {}) as Record<string, unknown>, options: { startedBy: { harness: "console" } } };
      const result = kind === "team" ? await cols.launch(params) : await cols.data.api.launchRun(params);
      // Offline in a team workspace the launch waits in this browser: the form says so and stays.
      if (isQueued(result)) setQueued({ runId: result.runId ?? result.writeId, writeId: result.writeId });
      else navigate(`/runs/${encodeURIComponent(result.runId)}`);
    } catch (error) {
      const fromServer = serverProblems(error);
      if (fromServer) {
        setProblems(fromServer);
        focusFirstProblem(fromServer);
      } else setFailure(`${(error as { code?: string }).code ? `${(error as { code: string }).code}: ` : ""}${(error as Error).message ?? String(error)}`);
    } finally {
      setBusy(false);
    }
  };

  const focusFirstProblem = (found: FieldProblems) => {
    const first = leafFields(model.fields).find((f) => found[f.key] || Object.keys(found).some((k) => k.startsWith(`${f.key}.`)));
    if (first && !raw()) queueMicrotask(() => document.getElementById(fieldInputId(first.key))?.focus());
  };
  // In JSON mode every problem shows at once (the form marks its fields instead).
  const formProblem = () => (raw() ? Object.entries(problems()).map(([k, v]) => (k ? `${k}: ${v}` : v)).join(" ") || undefined : problems()[""]);

  return (
    <>
      <header class="launch-head">
        <A href="/launch" class="launch-back">
          ← All workflows
        </A>
        <h1>
          Launch <span class="mono">{props.workflow.key}</span>
        </h1>
        <Show when={props.workflow.description}>
          <p class="muted">{props.workflow.description}</p>
        </Show>
      </header>
      <Show when={fromId()}>
        <p class="launch-from" role="status">
          <Show when={!from.error} fallback={<span class="launch-problem">Could not read run {fromId()}: {(from.error as Error)?.message}</span>}>
            {from.loading ? "Filling in the input of run " : "Filled in with the input of run "}
            <A href={`/runs/${encodeURIComponent(fromId()!)}`} class="mono">
              {fromId()}
            </A>
            . Change what you need, then launch.
          </Show>
        </p>
      </Show>
      <form class="launch-form card" data-testid="launch-form" novalidate onSubmit={(e) => void submit(e)}>
        <div class="launch-mode">
          <span class="muted">{model.fields.length ? plural(leafFields(model.fields).length, "input") : "This workflow takes no declared inputs."}</span>
          <Show when={!model.rawOnly && model.fields.length}>
            <button type="button" class="ghost" aria-pressed={raw()} onClick={toggleRaw} data-testid="raw-toggle">
              {raw() ? "Edit as form" : "Edit as JSON"}
            </button>
          </Show>
        </div>
        <Show
          when={raw()}
          fallback={<SchemaFields fields={model.fields} values={values} problems={problems()} onChange={edit} />}
        >
          <div class="launch-field">
            <label for="launch-json" class="launch-label">
              Input (JSON)
            </label>
            <textarea id="launch-json" name="input" class="mono" rows={12} spellcheck={false} value={json()} onInput={(e) => editJson(e.currentTarget.value)} aria-invalid={formProblem() ? true : undefined} aria-describedby="launch-json-problem" />
          </div>
        </Show>
        <Show when={formProblem()}>
          <p class="launch-problem" id="launch-json-problem" role="alert" data-testid="field-problem">
            {formProblem()}
          </p>
        </Show>
        <Show when={failure()}>
          <p class="error-banner" role="alert">
            {failure()}
          </p>
        </Show>
        <Show when={queued()}>
          {(q) => (
            <p class="last-seen-banner" role="status" data-testid="launch-queued" data-run-id={q().runId} data-write-id={q().writeId}>
              <strong>Queued:</strong> the workspace cannot be reached, so this launch waits in this browser (run {q().runId}) and is sent once it answers.
            </p>
          )}
        </Show>
        <div class="launch-actions">
          <Show when={Object.keys(problems()).length && !formProblem()}>
            <span class="launch-problem" role="alert">
              Fix the marked {Object.keys(problems()).length === 1 ? "field" : "fields"} to launch.
            </span>
          </Show>
          <A class="button" href="/runs">
            Cancel
          </A>
          <button type="submit" class="primary" disabled={busy()} data-testid="launch-submit">
            {busy() ? "Launching…" : "Launch run"}
          </button>
        </div>
      </form>
      <WorkflowCost workflow={props.workflow.key} />
    </>
  );
}
