/**
 * @module ui/launch/schema-fields
 * The inputs of a generated form (ui/launch/schema-form.ts): a labelled input per field with
 * its help text (description, limits, default), "optional" marked, the problem of the field
 * under it (`data-testid="field-problem"`, linked with `aria-describedby`), nested objects as
 * fieldsets and lists as repeatable rows. Every input is named by its field key.
 */
import { For, Index, type JSX, Match, Show, Switch } from "solid-js";
import type { FieldModel, FormValues } from "./schema-form.js";

/** What every field input needs. */
export interface FieldsProps {
  fields: readonly FieldModel[];
  values: FormValues;
  problems: Record<string, string>;
  onChange(key: string, value: FormValues[string]): void;
}

const inputId = (key: string) => `field-${key.replace(/[^a-zA-Z0-9_-]/g, "_")}`;

/** The id of a field's input (to focus the first one with a problem). */
export const fieldInputId = inputId;

/**
 * The fields of a form (recursively).
 * @example
 * <SchemaFields fields={model.fields} values={values} problems={problems()} onChange={(k, v) => setValues(k, v)} />
 */
export function SchemaFields(props: FieldsProps) {
  return (
    <For each={props.fields}>
      {(f) => (
        <Show when={f.kind === "object"} fallback={<Field field={f} {...props} />}>
          <fieldset class="launch-group">
            <legend>
              {f.label}
              {!f.required && <span class="launch-optional"> optional</span>}
            </legend>
            <Show when={f.description}>
              <p class="launch-help">{f.description}</p>
            </Show>
            <SchemaFields {...props} fields={f.fields ?? []} />
          </fieldset>
        </Show>
      )}
    </For>
  );
}

function limits(f: FieldModel): string | undefined {
  const parts: string[] = [];
  if (f.min !== undefined && f.max !== undefined) parts.push(`${f.min} to ${f.max}`);
  else if (f.min !== undefined) parts.push(`at least ${f.min}`);
  else if (f.max !== undefined) parts.push(`at most ${f.max}`);
  if (f.kind === "integer") parts.push("whole number");
  if (f.maxLength !== undefined) parts.push(`up to ${f.maxLength} characters`);
  if (f.default !== undefined && f.kind !== "boolean") parts.push(`default ${JSON.stringify(f.default)}`);
  if (f.kind === "json") parts.push("JSON");
  return parts.length ? parts.join(" · ") : undefined;
}

function Field(props: FieldsProps & { field: FieldModel }) {
  const f = props.field;
  const id = inputId(f.key);
  const problem = () => props.problems[f.key] ?? (f.kind === "list" ? Object.entries(props.problems).find(([k]) => k.startsWith(`${f.key}.`))?.[1] : undefined);
  const described = () => [f.description || limits(f) ? `${id}-help` : "", problem() ? `${id}-problem` : ""].filter(Boolean).join(" ") || undefined;
  const text = () => (typeof props.values[f.key] === "string" ? (props.values[f.key] as string) : "");
  const common = () => ({ id, name: f.key, "aria-invalid": problem() ? true : undefined, "aria-describedby": described(), "aria-required": f.required || undefined });
  const help = (
    <Show when={f.description || limits(f)}>
      <p class="launch-help" id={`${id}-help`}>
        {f.description}
        <Show when={f.description && limits(f)}> · </Show>
        <span class="muted">{limits(f)}</span>
      </p>
    </Show>
  );
  const label: JSX.Element = (
    <label for={id} class="launch-label">
      {f.label}
      <Show when={!f.required}>
        <span class="launch-optional"> optional</span>
      </Show>
    </label>
  );
  return (
    <div class="launch-field" classList={{ invalid: !!problem() }} data-field={f.key}>
      <Switch>
        <Match when={f.kind === "boolean"}>
          <label class="launch-check">
            <input type="checkbox" {...common()} checked={props.values[f.key] === true} onChange={(e) => props.onChange(f.key, e.currentTarget.checked)} />
            <span>{f.label}</span>
          </label>
        </Match>
        <Match when={f.kind === "enum"}>
          {label}
          <select {...common()} value={text()} onChange={(e) => props.onChange(f.key, e.currentTarget.value)}>
            <Show when={!f.required || f.default === undefined}>
              <option value="">{f.required ? "Choose…" : "—"}</option>
            </Show>
            <For each={f.options ?? []}>{(o) => <option value={JSON.stringify(o)}>{String(o)}</option>}</For>
          </select>
        </Match>
        <Match when={f.kind === "number" || f.kind === "integer"}>
          {label}
          <input type="number" inputMode={f.kind === "integer" ? "numeric" : "decimal"} {...common()} min={f.min} max={f.max} step={f.kind === "integer" ? 1 : "any"} value={text()} onInput={(e) => props.onChange(f.key, e.currentTarget.value)} />
        </Match>
        <Match when={f.kind === "json"}>
          {label}
          <textarea {...common()} class="mono" rows={4} spellcheck={false} value={text()} onInput={(e) => props.onChange(f.key, e.currentTarget.value)} />
        </Match>
        <Match when={f.kind === "list"}>
          {label}
          <ListRows {...props} field={f} id={id} described={described()} />
        </Match>
        <Match when={true}>
          {label}
          <input type={f.format === "email" ? "email" : f.format === "uri" ? "url" : f.format === "date" ? "date" : "text"} {...common()} minLength={f.minLength} maxLength={f.maxLength} value={text()} onInput={(e) => props.onChange(f.key, e.currentTarget.value)} />
        </Match>
      </Switch>
      {help}
      <Show when={problem()}>
        <p class="launch-problem" id={`${id}-problem`} data-testid="field-problem" data-field={f.key}>
          {problem()}
        </p>
      </Show>
    </div>
  );
}

/** A list of plain values as rows: one input each, add and remove. */
function ListRows(props: FieldsProps & { field: FieldModel; id: string; described: string | undefined }) {
  const rows = () => (Array.isArray(props.values[props.field.key]) ? (props.values[props.field.key] as string[]) : []);
  const set = (next: string[]) => props.onChange(props.field.key, next);
  const item = props.field.item!;
  return (
    <div class="launch-list" role="group" aria-describedby={props.described}>
      <Index each={rows()}>
        {(value, i) => (
          <div class="launch-list-row">
            <Show
              when={item.kind === "enum"}
              fallback={
                <input
                  id={i === 0 ? props.id : undefined}
                  name={props.field.key}
                  type={item.kind === "string" ? "text" : "number"}
                  step={item.kind === "integer" ? 1 : "any"}
                  aria-label={`${props.field.label} ${i + 1}`}
                  value={value()}
                  onInput={(e) => set(rows().map((r, j) => (j === i ? e.currentTarget.value : r)))}
                />
              }
            >
              <select id={i === 0 ? props.id : undefined} name={props.field.key} aria-label={`${props.field.label} ${i + 1}`} value={value()} onChange={(e) => set(rows().map((r, j) => (j === i ? e.currentTarget.value : r)))}>
                <option value="">—</option>
                <For each={item.options ?? []}>{(o) => <option value={JSON.stringify(o)}>{String(o)}</option>}</For>
              </select>
            </Show>
            <button type="button" class="ghost" aria-label={`Remove ${props.field.label} ${i + 1}`} onClick={() => set(rows().filter((_, j) => j !== i))}>
              ✕
            </button>
          </div>
        )}
      </Index>
      <button type="button" class="launch-add" onClick={() => set([...rows(), ""])}>
        + Add {rows().length ? "another" : "one"}
      </button>
    </div>
  );
}
