/**
 * @module ui/components/json-field
 * A labelled JSON text area that says what is wrong with its text (not JSON, or not matching
 * the schema) once the person types, and shows the schema's fields as help. The form's submit
 * button stays off while the text does not check (`checkJson`).
 */
import { createMemo, createSignal, For, Show } from "solid-js";
import { checkJson } from "./json-check.js";
import "./json-field.css";

/** The fields of a JSON Schema object, as `name: type` hints (required ones marked). */
function fieldsOf(schema: object | null | undefined): Array<{ name: string; type: string; required: boolean; description?: string }> {
  const s = (schema ?? {}) as { properties?: Record<string, { type?: string | string[]; enum?: unknown[]; description?: string }>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, p]) => ({
    name,
    type: p.enum ? p.enum.map((v) => JSON.stringify(v)).join(" | ") : Array.isArray(p.type) ? p.type.join(" | ") : (p.type ?? "any"),
    required: (s.required ?? []).includes(name),
    ...(p.description ? { description: p.description } : {}),
  }));
}

/**
 * A JSON field.
 * @example
 * <JsonField id="payload" label="Payload" value={text()} onInput={setText} schema={wait.request.schema} />
 */
export function JsonField(props: { id: string; label: string; value: string; onInput: (text: string) => void; schema?: object | null | undefined; name?: string; testid?: string; rows?: number; emptyAs?: unknown }) {
  const check = createMemo(() => checkJson(props.value, props.schema, props.emptyAs));
  // A prefilled value is not wrong before the person touched it: problems show once they type.
  const [touched, setTouched] = createSignal(false);
  const fields = createMemo(() => fieldsOf(props.schema));
  return (
    <div class="json-field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        name={props.name ?? props.id}
        data-testid={props.testid}
        rows={props.rows ?? 4}
        spellcheck={false}
        class="mono"
        value={props.value}
        aria-invalid={touched() && !check().ok}
        aria-describedby={`${props.id}-help`}
        onInput={(e) => {
          setTouched(true);
          props.onInput(e.currentTarget.value);
        }}
      />
      <div id={`${props.id}-help`} class="json-field-help">
        <Show when={!check().ok}>
          <Show when={touched()} fallback={<p class="muted json-field-todo">To send: {(check() as { error: string }).error}</p>}>
            <p class="json-field-error" role="alert">{(check() as { error: string }).error}</p>
          </Show>
        </Show>
        <Show when={fields().length}>
          <ul class="json-field-schema" aria-label="Fields">
            <For each={fields()}>
              {(f) => (
                <li>
                  <code>{f.name}</code>
                  <span class="muted">: {f.type}{f.required ? "" : " (optional)"}</span>
                  {f.description && <span class="muted"> — {f.description}</span>}
                </li>
              )}
            </For>
          </ul>
        </Show>
      </div>
    </div>
  );
}
