/**
 * @module ui/shell
 * The frame around every view: the header (workspace switcher, connection status, theme), the
 * navigation, and the gate that renders views once the workspace is open (with its loading
 * and error states).
 */
import { A, type RouteSectionProps } from "@solidjs/router";
import { createSignal, ErrorBoundary, For, Match, type ParentProps, Suspense, Switch } from "solid-js";
import { useFlow } from "./flow-context.js";
import { applyTheme, savedTheme, type ThemeChoice } from "./theme.js";

const NAV = [
  { href: "/runs", label: "Runs" },
  { href: "/approvals", label: "Approvals" },
  { href: "/launch", label: "Launch" },
  { href: "/memory", label: "Memory" },
  { href: "/scores", label: "Scores" },
  { href: "/crons", label: "Crons" },
];

/**
 * The shell (the router's root).
 * @example
 * <Router root={Shell}>...</Router>
 */
export function Shell(props: RouteSectionProps) {
  const flow = useFlow();
  const [theme, setTheme] = createSignal<ThemeChoice>(savedTheme());
  const cycleTheme = () => {
    const next: ThemeChoice = theme() === "system" ? "dark" : theme() === "dark" ? "light" : "system";
    setTheme(next);
    applyTheme(next);
  };
  return (
    <div class="shell">
      <header class="shell-header">
        <A href="/runs" class="brand">
          {flow.boot.title}
        </A>
        <label class="workspace-switcher">
          <span class="sr-only">Workspace</span>
          <select value={flow.workspace().id} onChange={(e) => flow.switchWorkspace(e.currentTarget.value)}>
            <For each={flow.workspaces()}>{(w) => <option value={w.id}>{w.name}</option>}</For>
          </select>
        </label>
        <span class={`status-pill status-${flow.status()}`} role="status" aria-live="polite" data-testid="connection-status">
          {flow.status()}
        </span>
        <button type="button" class="ghost" onClick={cycleTheme} aria-label={`Theme: ${theme()}`} title={`Theme: ${theme()}`}>
          {theme() === "dark" ? "Dark" : theme() === "light" ? "Light" : "Auto"}
        </button>
      </header>
      <nav class="shell-nav" aria-label="Main">
        <For each={NAV}>{(item) => <A href={item.href}>{item.label}</A>}</For>
      </nav>
      <main class="shell-main">
        <WorkspaceGate>{props.children}</WorkspaceGate>
      </main>
    </div>
  );
}

/** Renders its children once the workspace is open; a loading line before, an error after a failure. */
function WorkspaceGate(props: ParentProps) {
  const flow = useFlow();
  return (
    <Switch>
      <Match when={flow.connection.error}>
        <div class="error-banner" role="alert">
          Could not open {flow.workspace().name}: {String((flow.connection.error as Error)?.message ?? flow.connection.error)}
        </div>
      </Match>
      <Match when={flow.connection()}>
        <ErrorBoundary fallback={(err) => <div class="error-banner" role="alert">{String(err?.message ?? err)}</div>}>
          <Suspense fallback={<p class="muted">Loading…</p>}>{props.children}</Suspense>
        </ErrorBoundary>
      </Match>
      <Match when={true}>
        <p class="muted">Opening {flow.workspace().name}…</p>
      </Match>
    </Switch>
  );
}
