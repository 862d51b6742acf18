/**
 * @module ui/views/memory
 * Memory (`/memory`): the namespaces holding facts or notes (`GET /v1/api/memory/namespaces`,
 * re-read when facts change), and for the chosen one its live facts (key, value, updated, TTL)
 * with a filter, and its notes with full-text search (`GET /v1/api/memory/notes/search`).
 * The namespace, the fact filter and the note search live in the URL (`?ns=`, `?facts=`,
 * `?notes=`). See docs/app-views-people.md "Memory".
 */
import { useSearchParams } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createMemo, createResource, For, Show, Suspense } from "solid-js";
import type { GatewayMemoryFactRow } from "../../core/data/index.js";
import { EmptyState } from "../components/empty-state.js";
import { errorText } from "../components/error-text.js";
import { useConnection } from "../flow-context.js";
import { FactsTable } from "./memory/facts-table.js";
import { NotesPanel } from "./memory/notes-panel.js";
import "../components/view-layout.css";
import "./memory.css";

/**
 * The memory view (a route of ui/app.tsx).
 * @example
 * <Route path="/memory" component={Memory} />
 */
export default function Memory() {
  const { cols } = useConnection();
  const [params, setParams] = useSearchParams<{ ns?: string; facts?: string; notes?: string }>();
  const facts = useLiveQuery((q) => q.from({ f: cols.memoryFacts }).orderBy(({ f }) => f.key, "asc"));
  const allFacts = () => facts() as GatewayMemoryFactRow[];
  /** Facts change → the namespaces (and their note counts) are read again. */
  const factsVersion = createMemo(() => allFacts().map((f) => `${f.id}@${f.updatedAtMs}`).join(","));
  const [spaces] = createResource(() => ({ v: factsVersion() }), () => cols.data.api.listMemoryNamespaces());
  const namespaces = createMemo(() => {
    const byName = new Map((spaces.latest ?? []).map((s) => [s.namespace, { ...s }]));
    // Facts arrive live; counts of the namespaces API may lag behind them for a moment.
    const live = new Map<string, number>();
    for (const f of allFacts()) live.set(f.namespace, (live.get(f.namespace) ?? 0) + 1);
    for (const [namespace, n] of live) byName.set(namespace, { namespace, notes: byName.get(namespace)?.notes ?? 0, facts: n });
    for (const s of byName.values()) if (!live.has(s.namespace)) s.facts = 0;
    return [...byName.values()].filter((s) => s.facts || s.notes).sort((a, b) => a.namespace.localeCompare(b.namespace));
  });
  const current = () => params.ns ?? namespaces()[0]?.namespace;
  const factsOf = createMemo(() => allFacts().filter((f) => f.namespace === current()));

  return (
    <div class="memory-view">
      <header class="view-header">
        <h1>Memory</h1>
      </header>
      <Show when={spaces.error}>
        <div class="error-banner" role="alert">
          Could not list the memory namespaces: {errorText(spaces.error)}
        </div>
      </Show>
      <Suspense fallback={<p class="muted">Loading memory…</p>}>
        <Show
          when={namespaces().length || spaces.loading}
          fallback={<EmptyState title="No memory yet" hint="Facts and notes that workflows and agents remember (setFact, saveNote, a Task's memory prop) show here, by namespace." />}
        >
          <div class="memory-layout">
            <nav class="card memory-namespaces" aria-label="Namespaces">
              <h2>Namespaces</h2>
              <ul>
                <For each={namespaces()}>
                  {(s) => (
                    <li>
                      <button
                        type="button"
                        class="ghost memory-namespace"
                        data-testid="memory-namespace"
                        aria-current={s.namespace === current() ? "true" : undefined}
                        onClick={() => setParams({ ns: s.namespace, facts: undefined, notes: undefined })}
                      >
                        <span class="mono">{s.namespace}</span>
                        <span class="muted memory-counts">
                          {s.facts} {s.facts === 1 ? "fact" : "facts"} · {s.notes} {s.notes === 1 ? "note" : "notes"}
                        </span>
                      </button>
                    </li>
                  )}
                </For>
              </ul>
            </nav>
            <Show when={current()} keyed>
              {(ns) => (
                <div class="memory-detail">
                  <FactsTable namespace={ns} facts={factsOf()} filter={params.facts ?? ""} onFilter={(text) => setParams({ facts: text || undefined }, { replace: true })} />
                  <NotesPanel namespace={ns} query={params.notes ?? ""} onQuery={(text) => setParams({ notes: text || undefined }, { replace: true })} />
                </div>
              )}
            </Show>
          </div>
        </Show>
      </Suspense>
    </div>
  );
}
