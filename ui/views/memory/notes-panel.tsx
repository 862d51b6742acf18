/**
 * @module ui/views/memory/notes-panel
 * The notes of a namespace: all of them live (`cols.docs(namespace)`), or, with a query, the
 * full-text search's best matches (`GET /v1/api/memory/notes/search`). Where the store has
 * no search index for the namespace's kind (NOTE_SEARCH_NOT_ENABLED), the notes containing
 * every word are shown instead, and the panel says so.
 */
import { A } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createEffect, createMemo, createResource, createSignal, For, on, onCleanup, Show, Suspense } from "solid-js";
import type { GatewayDocRow } from "../../../core/data/index.js";
import { errorCode, errorText } from "../../components/error-text.js";
import { formatAgo, shortId } from "../../components/format.js";
import { useConnection } from "../../flow-context.js";

/**
 * A namespace's notes, with search.
 * @example
 * <NotesPanel namespace="workflow:review" query="refunds" onQuery={setQuery} />
 */
export function NotesPanel(props: { namespace: string; query: string; onQuery(text: string): void }) {
  const { cols } = useConnection();
  const notes = useLiveQuery((q) => q.from({ n: cols.docs(props.namespace) }).orderBy(({ n }) => n.createdAtMs, "desc"));
  const all = () => notes() as GatewayDocRow[];
  // The search runs once typing pauses (the URL keeps every keystroke).
  const [query, setQuery] = createSignal(props.query.trim());
  createEffect(
    on(
      () => props.query.trim(),
      (q) => {
        const timer = setTimeout(() => setQuery(q), q ? 250 : 0);
        onCleanup(() => clearTimeout(timer));
      },
    ),
  );
  const [found] = createResource(
    () => (query() ? { ns: props.namespace, q: query(), n: all().length } : false),
    ({ ns, q }) => cols.data.api.searchMemoryNotes(ns, q, 50),
  );
  const notIndexed = () => found.error && errorCode(found.error) === "NOTE_SEARCH_NOT_ENABLED";
  const shown = createMemo<GatewayDocRow[]>(() => {
    if (!query()) return all();
    if (notIndexed()) {
      const words = query().toLowerCase().split(/\s+/).filter(Boolean);
      return all().filter((n) => words.every((w) => n.body.toLowerCase().includes(w)));
    }
    return found.latest ?? [];
  });
  const tags = (n: GatewayDocRow) => (n.tagsJson ? (JSON.parse(n.tagsJson) as string[]) : []);

  return (
    <section class="card memory-section" aria-labelledby="notes-title">
      <div class="memory-section-head">
        <h2 id="notes-title">
          Notes <span class="muted">({all().length})</span>
        </h2>
        <label class="sr-only" for="notes-search">
          Search notes
        </label>
        <input id="notes-search" type="search" data-testid="notes-search" placeholder="Search notes (full text)" value={props.query} onInput={(e) => props.onQuery(e.currentTarget.value)} />
      </div>
      <Show when={notIndexed()}>
        <p class="muted memory-hint">
          Full-text search is not enabled for {props.namespace.split(":")[0]} namespaces in this store (<code>enableNoteSearch("{props.namespace.split(":")[0]}")</code>): showing the notes that contain every word.
        </p>
      </Show>
      <Show when={found.error && !notIndexed()}>
        <p class="error-banner" role="alert">
          {errorText(found.error)}
        </p>
      </Show>
      <Suspense fallback={<p class="muted">Loading notes…</p>}>
        <Show when={!(query() && found.loading && !found.latest)} fallback={<p class="muted">Searching…</p>}>
          <Show when={shown().length} fallback={<p class="muted">{query() ? "No note matches the search." : `No notes in ${props.namespace}.`}</p>}>
            <ul class="memory-notes" aria-label={query() ? "Notes found, best first" : "Notes, newest first"}>
              <For each={shown()}>
                {(n) => (
                  <li class="memory-note" data-testid="memory-note">
                    <p class="memory-note-body">{n.body}</p>
                    <p class="muted memory-note-meta">
                      <Show when={n.kind}>
                        <span class="badge tone-info">{n.kind}</span>{" "}
                      </Show>
                      <Show when={n.status !== "accepted"}>
                        <span class="badge tone-warn">{n.status}</span>{" "}
                      </Show>
                      <For each={tags(n)}>{(t) => <span class="badge tone-idle">{t}</span>}</For> {n.author ? `by ${n.author} · ` : ""}
                      <span title={new Date(n.createdAtMs).toLocaleString()}>{formatAgo(n.createdAtMs)}</span>
                      <Show when={n.runId}>
                        {(runId) => (
                          <>
                            {" · from run "}
                            <A href={`/runs/${encodeURIComponent(runId())}${n.nodeId ? `?node=${encodeURIComponent(n.nodeId)}` : ""}`} class="mono">
                              {shortId(runId())}
                            </A>
                          </>
                        )}
                      </Show>
                    </p>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        </Show>
      </Suspense>
    </section>
  );
}
