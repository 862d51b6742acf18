/**
 * @module ui/shell
 * The frame around every view: a skip link, the header (brand, workspace switcher, connection
 * status, keyboard shortcuts, theme), the navigation with the approvals badge, and the gate
 * that renders views once the workspace is open (with its loading and error states).
 */
import { A, type RouteSectionProps } from "@solidjs/router";
import { createEffect, createSignal, ErrorBoundary, For, Match, on, onCleanup, type ParentProps, Show, Suspense, Switch } from "solid-js";
import { createCollectionRows } from "./components/collection-rows.js";
import { ConnectionStatus } from "./components/connection-status.js";
import { formatAgo, formatDateTime } from "./components/format.js";
import { ShortcutsHelp } from "./components/shortcuts-help.js";
import { useConnection, useFlow } from "./flow-context.js";
import { isTokenError, TokenPrompt } from "./workspace/token-prompt.js";
import { isNotMemberError, NotMember } from "./workspace/not-member.js";
import { applyTheme, savedTheme, type ThemeChoice } from "./theme.js";
import { WorkspaceSwitcher } from "./workspace/workspace-switcher.js";
import { PendingWrites, queuedWrites } from "./workspace/pending-writes.js";

const NAV = [
  { href: "/runs", label: "Runs" },
  { href: "/approvals", label: "Approvals", badge: true },
  { href: "/launch", label: "Launch" },
  { href: "/memory", label: "Memory" },
  { href: "/scores", label: "Scores" },
  { href: "/crons", label: "Crons" },
  { href: "/members", label: "Members", team: true },
  { href: "/settings", label: "Settings" },
];

const THEME_NEXT: Record<ThemeChoice, ThemeChoice> = { system: "dark", dark: "light", light: "system" };
const THEME_LABEL: Record<ThemeChoice, string> = { system: "Auto", dark: "Dark", light: "Light" };

/**
 * The shell (the router's root).
 * @example
 * <Router root={Shell}>...</Router>
 */
export function Shell(props: RouteSectionProps) {
  const flow = useFlow();
  const [theme, setTheme] = createSignal<ThemeChoice>(savedTheme());
  const cycleTheme = () => {
    const next = THEME_NEXT[theme()];
    setTheme(next);
    applyTheme(next);
  };
  let openHelp: (() => void) | undefined;
  const writes = queuedWrites(() => flow.connection()?.queue);
  return (
    <div class="shell">
      <a class="skip-link" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header class="shell-header">
        <A href="/runs" class="brand">
          {flow.boot.title}
        </A>
        <WorkspaceSwitcher />
        <span class="shell-spacer" />
        {/* One pill per workspace: "reconnecting" is for a connection that was online, not the one before it. */}
        <Show when={flow.workspace().id} keyed>
          {(_id) => <ConnectionStatus status={flow.status} local={flow.workspace().kind === "browser"} waiting={writes().filter((w) => w.state === "waiting").length} />}
        </Show>
        <button type="button" class="ghost" onClick={() => openHelp?.()} aria-keyshortcuts="?" title="Keyboard shortcuts (?)">
          <span aria-hidden="true">⌨</span>
          <span class="sr-only">Keyboard shortcuts</span>
        </button>
        <button type="button" class="ghost" onClick={cycleTheme} aria-label={`Theme: ${THEME_LABEL[theme()]} (change)`} title={`Theme: ${THEME_LABEL[theme()]}; click to change`} data-testid="theme-toggle">
          {theme() === "dark" ? "☾" : theme() === "light" ? "☀" : "◐"} {THEME_LABEL[theme()]}
        </button>
      </header>
      <nav class="shell-nav" aria-label="Main">
        <For each={NAV.filter((item) => !item.team || flow.connection()?.team)}>
          {(item) => (
            <A href={item.href}>
              {item.label}
              <Show when={item.badge ? flow.connection() : undefined} keyed>
                {(_conn) => (
                  <ErrorBoundary fallback={null}>
                    <Suspense>
                      <ApprovalsBadge />
                    </Suspense>
                  </ErrorBoundary>
                )}
              </Show>
            </A>
          )}
        </For>
      </nav>
      <main class="shell-main" id="main" tabIndex={-1}>
        <WorkspaceGate writes={writes}>{props.children}</WorkspaceGate>
      </main>
      <ShortcutsHelp ref={(open) => (openHelp = open)} />
    </div>
  );
}

/** The number of pending approvals and human tasks (hidden at zero): counted from the collection, no live query (the shell opens first). */
function ApprovalsBadge() {
  const { cols } = useConnection();
  const approvals = createCollectionRows(cols.approvals);
  const count = () => (approvals.isReady ? approvals().length : 0);
  return (
    <Show when={count() > 0}>
      <span class="nav-badge" data-testid="approvals-badge" aria-label={`${count()} waiting`}>
        {count()}
      </span>
    </Show>
  );
}

/** Renders its children once the workspace is open; a loading line before, an error after a failure. */
function WorkspaceGate(props: ParentProps<{ writes: ReturnType<typeof queuedWrites> }>) {
  const flow = useFlow();
  return (
    <Switch>
      <Match when={isTokenError(flow.connection.error)}>
        <TokenPrompt />
      </Match>
      <Match when={isNotMemberError(flow.connection.error)}>
        <NotMember />
      </Match>
      <Match when={flow.connection.error}>
        <div class="error-banner" role="alert">
          <p>
            Could not open {flow.workspace().name}: {String((flow.connection.error as Error)?.message ?? flow.connection.error)}
          </p>
          <p>Pick another workspace in the switcher above, or reload once it is reachable.</p>
        </div>
      </Match>
      {/* Keyed: a switched workspace remounts the views, so they read its collections. */}
      <Match when={flow.connection()} keyed>
        {(conn) => (
        <>
        <Show when={flow.status() === "offline" && conn.lastSeen?.shownFrom()}>
          {(at) => (
            <p class="last-seen-banner" role="status" data-testid="last-seen">
              <strong>{flow.workspace().name} cannot be reached{conn.team ? " (neither its Gateway nor its sync answers)" : ""}.</strong> Showing what this browser saw {formatAgo(at())}, as of {formatDateTime(at())}; it catches up by itself once the Gateway answers.
            </p>
          )}
        </Show>
        <Show when={conn.engineReady && !conn.engineReady() && conn.lastSeen?.shownFrom()}>
          {(at) => (
            <p class="last-seen-banner" role="status" data-testid="engine-starting">
              <strong>Opening this browser's database.</strong> Showing what it saw {formatAgo(at())}; it catches up in a moment.
            </p>
          )}
        </Show>
        <PendingWrites queue={conn.queue} writes={props.writes} />
        <ErrorBoundary
          fallback={(err, reset) => <Recovering error={err} reset={reset} />}
        >
          <Suspense fallback={<p class="muted">Loading…</p>}>{props.children}</Suspense>
        </ErrorBoundary>
        </>
        )}
      </Match>
      <Match when={true}>
        <p class="muted">Opening {flow.workspace().name}…</p>
      </Match>
    </Switch>
  );
}

/**
 * What a view that failed shows while it recovers by itself: the workspace's data is fetched
 * again and the view re-rendered half a second after the workspace is (back) online, and again
 * every 2 s while it stays online and the view still fails. No button: nothing to press.
 */
let lastRetryAt = 0;

function Recovering(props: { error: unknown; reset(): void }) {
  const flow = useFlow();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const retry = async () => {
    clearTimeout(timer);
    await flow.connection()?.cols.invalidate().catch(() => undefined);
    lastRetryAt = Date.now();
    props.reset();
  };
  createEffect(
    on(flow.status, (s) => {
      clearTimeout(timer);
      if (s !== "online") return;
      // A view that fails again right after a retry waits longer before the next one.
      timer = setTimeout(() => void retry(), Date.now() - lastRetryAt < 5000 ? 2000 : 500);
    }),
  );
  onCleanup(() => clearTimeout(timer));
  const offline = () => flow.status() === "offline";
  return (
    <div class="error-banner" role="alert" data-testid="view-recovering">
      <p>{offline() ? `${flow.workspace().name} cannot be reached.` : "This view could not load its data."}</p>
      <p class="muted">
        {offline() ? "It shows again by itself as soon as the workspace answers." : "Retrying by itself…"} ({String((props.error as Error)?.message ?? props.error)})
      </p>
    </div>
  );
}
