/**
 * @module ui/workspace/workspace-switcher
 * The header's workspace switcher: a select of the offered workspaces (this browser, the
 * Gateway that served the page, saved Gateways) whose last entries open "Add a Gateway…" (URL
 * and token, checked with /health before saving) and "Manage workspaces…" (remove a saved one).
 * For this browser it says where the data lives (OPFS or IndexedDB) and whether this tab runs
 * the engine or follows the tab that does. A Gateway that serves a team workspace the user
 * belongs to (`ext.workspace.list`) is listed under the team's name, with the user's role.
 */
import { createEffect, createSignal, For, onCleanup, Show } from "solid-js";
import type { BrowserEngine } from "../../browser/client.js";
import { ConfirmDialog } from "../components/confirm-dialog.js";
import { useFlow } from "../flow-context.js";
import { checkGateway } from "./check-gateway.js";
import { removeWorkspace, saveWorkspace, type Workspace } from "./workspaces.js";
import "./workspace-switcher.css";

const ADD = "__add";
const MANAGE = "__manage";
const KIND_LABEL: Record<Workspace["kind"], string> = { browser: "offline, in this browser", gateway: "Gateway", team: "team" };
/** What the select shows: the name, then where it is (a Gateway's host, "local" for this browser). */
const optionLabel = (w: Workspace) => `${w.name} · ${w.kind === "browser" ? "local" : w.kind === "team" ? `team${w.url ? ` on ${hostOf(w.url)}` : ""}` : w.url ? hostOf(w.url) : KIND_LABEL[w.kind]}`;
const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};
const STORAGE_LABEL: Record<BrowserEngine["storage"], string> = { opfs: "OPFS", idb: "IndexedDB", memory: "memory only", unknown: "…" };
const ROLE_LABEL: Record<BrowserEngine["role"], string> = {
  leader: "this tab runs the engine",
  follower: "another tab runs the engine",
  starting: "engine starting",
};

/**
 * The switcher.
 * @example
 * <header><WorkspaceSwitcher /></header>
 */
export function WorkspaceSwitcher() {
  const flow = useFlow();
  let dialog!: HTMLDialogElement;
  let select!: HTMLSelectElement;
  const [mode, setMode] = createSignal<"add" | "manage">("add");
  const open = (m: "add" | "manage") => {
    setMode(m);
    dialog.showModal();
  };
  const onChange = (value: string) => {
    if (value === ADD || value === MANAGE) {
      select.value = flow.workspace().id;
      open(value === ADD ? "add" : "manage");
    } else flow.switchWorkspace(value);
  };
  // The select follows the open workspace (also when it changes from elsewhere).
  createEffect(() => {
    const id = flow.workspace().id;
    flow.workspaces();
    queueMicrotask(() => select && (select.value = id));
  });

  return (
    <div class="ws">
      <label class="ws-select">
        <span class="sr-only">Workspace</span>
        <select ref={select} data-testid="workspace-switcher" onChange={(e) => onChange(e.currentTarget.value)}>
          <For each={flow.workspaces()}>
            {(w) => (
              <option value={w.id} selected={w.id === flow.workspace().id}>
                {/* A Gateway that turned out to serve a team workspace is named as the team (connect.ts). */}
                {optionLabel(flow.connection()?.workspace.id === w.id ? flow.connection()!.workspace : w)}
              </option>
            )}
          </For>
          <option disabled>──────────</option>
          <option value={ADD}>Add a Gateway…</option>
          <option value={MANAGE}>Manage workspaces…</option>
        </select>
      </label>
      <EngineInfo />
      <Show when={flow.connection()?.team}>
        {(team) => (
          <span class="ws-engine muted" data-testid="team-info" title={`Team workspace ${team().workspaceId}: every member sees its runs and approvals live.`}>
            team · {team().role}
          </span>
        )}
      </Show>
      <dialog ref={dialog} class="ws-dialog card" aria-labelledby="ws-dialog-title" data-testid="workspace-dialog">
        <Show when={mode() === "add"} fallback={<ManageWorkspaces onClose={() => dialog.close()} onAdd={() => setMode("add")} />}>
          <AddGateway onClose={() => dialog.close()} />
        </Show>
      </dialog>
    </div>
  );
}

/** Where this browser's data lives and the engine's role (browser workspaces only). */
function EngineInfo() {
  const flow = useFlow();
  // Its worker starts while the views already show (ui/workspace/connect.ts).
  const [engine, setEngine] = createSignal<BrowserEngine>();
  createEffect(() => {
    const started = flow.workspace().kind === "browser" ? flow.connection()?.engine : undefined;
    setEngine(undefined);
    let current = true;
    onCleanup(() => (current = false));
    void started?.then((e) => current && setEngine(() => e)).catch(() => undefined);
  });
  const [role, setRole] = createSignal<BrowserEngine["role"]>();
  createEffect(() => {
    const e = engine();
    if (!e) return;
    setRole(e.role);
    onCleanup(e.onRoleChange(setRole));
  });
  return (
    <Show when={engine()}>
      {(e) => (
        <span class="ws-engine muted" data-testid="engine-info" title={`This browser's runs are stored in ${STORAGE_LABEL[e().storage]} and survive reloads and restarts. Tabs share one database; one tab runs the engine and another takes over when it closes.`}>
          {STORAGE_LABEL[e().storage]} · {ROLE_LABEL[role() ?? e().role]}
        </span>
      )}
    </Show>
  );
}

function AddGateway(props: { onClose(): void }) {
  const flow = useFlow();
  const [busy, setBusy] = createSignal(false);
  const [problem, setProblem] = createSignal<{ field: "url" | "token"; message: string }>();
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setProblem(undefined);
    const check = await checkGateway({ url: String(form.get("url") ?? ""), token: String(form.get("token") ?? ""), name: String(form.get("name") ?? "") });
    setBusy(false);
    if (!check.ok) {
      setProblem(check);
      return;
    }
    saveWorkspace(check.workspace);
    flow.refreshWorkspaces();
    flow.switchWorkspace(check.workspace.id);
    (e.currentTarget as HTMLFormElement | null)?.reset();
    props.onClose();
  };
  return (
    <form class="ws-form" onSubmit={(e) => void submit(e)} data-testid="add-gateway">
      <h2 id="ws-dialog-title">Add a Gateway</h2>
      <p class="muted">A Gateway runs workflows in Node, with shell tools and CLI agents. Its address is checked before it is saved in this browser.</p>
      <label>
        Address
        <input name="url" required placeholder="http://127.0.0.1:7331" autocomplete="url" aria-invalid={problem()?.field === "url"} aria-describedby="ws-url-problem" />
      </label>
      <Show when={problem()?.field === "url"}>
        <p id="ws-url-problem" class="ws-problem" role="alert">
          {problem()!.message}
        </p>
      </Show>
      <label>
        <span>
          Token <span class="muted">(if the Gateway asks for one)</span>
        </span>
        <input name="token" type="password" autocomplete="off" aria-invalid={problem()?.field === "token"} aria-describedby="ws-token-problem" />
      </label>
      <Show when={problem()?.field === "token"}>
        <p id="ws-token-problem" class="ws-problem" role="alert">
          {problem()!.message}
        </p>
      </Show>
      <label>
        <span>
          Name <span class="muted">(optional)</span>
        </span>
        <input name="name" placeholder="Build box" />
      </label>
      <div class="ws-buttons">
        <button type="button" onClick={() => props.onClose()}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy()}>
          {busy() ? "Checking…" : "Check and add"}
        </button>
      </div>
    </form>
  );
}

function ManageWorkspaces(props: { onClose(): void; onAdd(): void }) {
  const flow = useFlow();
  const saved = () => flow.workspaces().filter((w) => w.kind !== "browser" && !(flow.boot.gateway && w.url === flow.boot.gateway.url));
  const [removing, setRemoving] = createSignal<Workspace>();
  const remove = (w: Workspace) => {
    removeWorkspace(w.id);
    flow.refreshWorkspaces();
    if (flow.workspace().id === w.id) flow.switchWorkspace(flow.workspaces()[0]!.id);
  };
  return (
    <div class="ws-form">
      <h2 id="ws-dialog-title">Workspaces</h2>
      <ul class="ws-list">
        <For each={flow.workspaces()}>
          {(w) => (
            <li>
              <span>
                <strong>{w.name}</strong> <span class="muted">{w.url ?? KIND_LABEL[w.kind]}</span>
                <Show when={w.id === flow.workspace().id}>
                  <span class="badge tone-info">open</span>
                </Show>
              </span>
              <Show when={saved().includes(w)} fallback={<span class="muted ws-fixed">always offered</span>}>
                <button type="button" class="danger" onClick={() => setRemoving(w)} aria-label={`Remove ${w.name}`}>
                  Remove
                </button>
              </Show>
            </li>
          )}
        </For>
      </ul>
      <ConfirmDialog open={!!removing()} title={`Remove ${removing()?.name ?? ""}?`} confirmLabel="Remove from this browser" tone="danger" testId="ws-remove-dialog" onConfirm={async () => remove(removing()!)} onClose={() => setRemoving(undefined)}>
        <p>The switcher stops offering it and forgets its saved token. Its runs stay on the Gateway; add it again with its address{removing()?.token ? " and the token" : ""}.</p>
      </ConfirmDialog>
      <div class="ws-buttons">
        <button type="button" onClick={() => props.onAdd()}>
          Add a Gateway…
        </button>
        <button type="button" class="primary" onClick={() => props.onClose()}>
          Done
        </button>
      </div>
    </div>
  );
}
