/**
 * @module ui/views/settings
 * Settings (`/settings`): in a workspace of this browser, the model keys and endpoint settings
 * its SDK agents read as environment variables (browser/keys.ts: IndexedDB of this browser,
 * never the database). Each is set, replaced or forgotten; a set key shows only its last four
 * characters. In a Gateway or team workspace, keys are the Gateway's environment variables.
 */
import { createSignal, For, onMount, Show } from "solid-js";
import { loadBrowserKeys, saveBrowserKey } from "../../browser/keys.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { errorText } from "../components/error-text.js";
import { useConnection } from "../flow-context.js";
import "../components/view-layout.css";
import "./settings.css";

/** The names SDK agents read (docs/agents.md), with what each is for. */
const KNOWN_KEYS: { name: string; help: string; secret: boolean }[] = [
  { name: "OPENAI_API_KEY", help: "OpenAI models (the AI SDK's openai provider)", secret: true },
  { name: "ANTHROPIC_API_KEY", help: "Anthropic models (the AI SDK's anthropic provider)", secret: true },
  { name: "FLOW_LOCAL_BASE_URL", help: "an OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1", secret: false },
  { name: "FLOW_LOCAL_API_KEY", help: "the key that endpoint asks for (if any)", secret: true },
  { name: "FLOW_LOCAL_MODEL", help: "the model name to ask that endpoint for", secret: false },
];
const NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** What a set key shows: at most its last four characters (whole for a URL or model name). */
function shown(name: string, value: string): string {
  const known = KNOWN_KEYS.find((k) => k.name === name);
  if (known && !known.secret) return value;
  return value.length > 8 ? `•••• ${value.slice(-4)}` : "••••";
}

/**
 * The settings view (a route of ui/app.tsx).
 * @example
 * <Route path="/settings" component={Settings} />
 */
export default function Settings() {
  const conn = useConnection();
  return (
    <div class="settings-view">
      <header class="view-header">
        <h1>Settings</h1>
      </header>
      <Show
        when={conn.workspace.kind === "browser"}
        fallback={
          <section class="card settings-card" aria-labelledby="keys-title">
            <h2 id="keys-title">Model keys</h2>
            <p>
              This workspace runs in a Gateway: its agents read keys from the Gateway's environment variables (<code>OPENAI_API_KEY</code>, <code>FLOW_LOCAL_BASE_URL</code>, ...). Set them where the Gateway starts and restart it; nothing is kept in this browser.
            </p>
          </section>
        }
      >
        <BrowserKeys />
      </Show>
    </div>
  );
}

function BrowserKeys() {
  // A signal rather than a resource: saving re-reads the keys without suspending the view
  // (which would drop what is being typed in another row).
  const [keys, setKeys] = createSignal<Record<string, string>>();
  const [loadError, setLoadError] = createSignal<unknown>();
  const reload = () => loadBrowserKeys().then(setKeys, setLoadError);
  onMount(() => void reload());
  const [notice, setNotice] = createSignal<{ tone: "ok" | "bad"; text: string }>();
  const names = () => {
    const extra = Object.keys(keys() ?? {}).filter((n) => !KNOWN_KEYS.some((k) => k.name === n)).sort();
    return [...KNOWN_KEYS, ...extra.map((name) => ({ name, help: "your own setting", secret: true }))];
  };

  async function save(name: string, value: string | null) {
    try {
      await saveBrowserKey(name, value);
      setNotice({ tone: "ok", text: value === null ? `${name} is forgotten.` : `${name} is saved in this browser; runs started from now on read it.` });
      await reload();
    } catch (error) {
      setNotice({ tone: "bad", text: `${name} was not saved: ${errorText(error)}` });
    }
  }

  return (
    <section class="card settings-card" aria-labelledby="keys-title">
      <h2 id="keys-title">Model keys, kept in this browser</h2>
      <p class="muted settings-where" data-testid="keys-where">
        Kept in this browser's IndexedDB (database <code>flow-keys</code>) and given to workflows as environment variables. Never written to the database, never exported, never sent anywhere but the endpoint a workflow calls.
      </p>
      <Show when={notice()}>{(n) => <p class={`settings-notice tone-${n().tone}`} role="status">{n().text}</p>}</Show>
      <Show when={loadError() === undefined} fallback={<p class="inline-error">The keys could not be read: {errorText(loadError())}. This browser may block IndexedDB (private mode); agents then need a Gateway.</p>}>
        <Show when={keys()} fallback={<p class="muted">Reading keys…</p>}>
          {(values) => (
            <ul class="key-list">
              <For each={names()}>{(k) => <KeyRow name={k.name} help={k.help} secret={k.secret} value={values()[k.name]} onSave={save} />}</For>
            </ul>
          )}
        </Show>
      </Show>
      <AddKey onSave={save} />
    </section>
  );
}

function KeyRow(props: { name: string; help: string; secret: boolean; value: string | undefined; onSave: (name: string, value: string | null) => Promise<void> }) {
  const [draft, setDraft] = createSignal("");
  const [forgetting, setForgetting] = createSignal(false);
  const id = () => `key-${props.name}`;
  return (
    <li class="key-row" data-testid="key-row" data-key={props.name} data-set={props.value === undefined ? "false" : "true"}>
      <div class="key-name">
        <label for={id()}>
          <code>{props.name}</code>
        </label>
        <span class="muted">{props.help}</span>
      </div>
      <span class={`badge ${props.value === undefined ? "tone-idle" : "tone-ok"}`} data-testid="key-state">
        {props.value === undefined ? "not set" : `set · ${shown(props.name, props.value)}`}
      </span>
      <form
        class="key-form"
        onSubmit={(e) => {
          e.preventDefault();
          const value = draft().trim();
          if (!value) return;
          void props.onSave(props.name, value).then(() => setDraft(""));
        }}
      >
        <input id={id()} name={props.name} type={props.secret ? "password" : "text"} autocomplete="off" placeholder={props.value === undefined ? "value" : "new value"} value={draft()} onInput={(e) => setDraft(e.currentTarget.value)} />
        <button type="submit" disabled={!draft().trim()} data-testid="key-save">
          {props.value === undefined ? "Set" : "Replace"}
        </button>
        <Show when={props.value !== undefined}>
          <button type="button" class="ghost" data-testid="key-forget" onClick={() => setForgetting(true)}>
            Forget
          </button>
        </Show>
      </form>
      <ConfirmDialog open={forgetting()} title={`Forget ${props.name}?`} confirmLabel="Forget the key" tone="danger" testId="key-forget-dialog" onConfirm={() => props.onSave(props.name, null)} onClose={() => setForgetting(false)}>
        <p>It is removed from this browser; workflows that read it fail until you set it again. Flow keeps no other copy.</p>
      </ConfirmDialog>
    </li>
  );
}

function AddKey(props: { onSave: (name: string, value: string | null) => Promise<void> }) {
  const [name, setName] = createSignal("");
  const [value, setValue] = createSignal("");
  const invalid = () => name() !== "" && !NAME_PATTERN.test(name());
  return (
    <form
      class="key-add"
      data-testid="key-add"
      onSubmit={(e) => {
        e.preventDefault();
        if (!NAME_PATTERN.test(name()) || !value()) return;
        void props.onSave(name(), value()).then(() => (setName(""), setValue("")));
      }}
    >
      <h3>Another variable</h3>
      <label>
        Name
        <input name="key-name" value={name()} placeholder="MY_PROVIDER_KEY" autocomplete="off" aria-invalid={invalid()} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        Value
        <input name="key-value" type="password" autocomplete="off" value={value()} onInput={(e) => setValue(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={!NAME_PATTERN.test(name()) || !value()}>
        Save
      </button>
      <Show when={invalid()}>
        <p class="inline-error">A name is upper-case letters, digits and underscores, not starting with a digit.</p>
      </Show>
    </form>
  );
}
