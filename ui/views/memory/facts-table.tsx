/**
 * @module ui/views/memory/facts-table
 * The live facts of a namespace as a table (key, value, updated, expires), with a filter over
 * keys and values.
 */
import { createMemo, For, Show } from "solid-js";
import type { GatewayMemoryFactRow } from "../../../core/data/index.js";
import { formatAgo, formatUntil } from "../../components/format.js";
import { JsonBlock } from "../../components/json-block.js";
import { createNow } from "../../components/now.js";

/**
 * A namespace's facts.
 * @example
 * <FactsTable namespace="user:ana" facts={facts} filter="" onFilter={setFilter} />
 */
export function FactsTable(props: { namespace: string; facts: GatewayMemoryFactRow[]; filter: string; onFilter(text: string): void }) {
  const now = createNow(() => true, 10_000);
  const shown = createMemo(() => {
    const words = props.filter.toLowerCase().split(/\s+/).filter(Boolean);
    return props.facts.filter((f) => words.every((w) => `${f.key} ${f.valueJson}`.toLowerCase().includes(w)));
  });
  return (
    <section class="card memory-section" aria-labelledby="facts-title">
      <div class="memory-section-head">
        <h2 id="facts-title">
          Facts <span class="muted">({props.facts.length})</span>
        </h2>
        <label class="sr-only" for="facts-filter">
          Filter facts
        </label>
        <input id="facts-filter" type="search" placeholder="Filter by key or value" value={props.filter} onInput={(e) => props.onFilter(e.currentTarget.value)} />
      </div>
      <Show when={shown().length} fallback={<p class="muted">{props.facts.length ? "No fact matches the filter." : `No facts in ${props.namespace}.`}</p>}>
        <table class="memory-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Updated</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>
            <For each={shown()}>
              {(f) => (
                <tr data-testid="memory-fact" data-key={f.key}>
                  <td class="mono">{f.key}</td>
                  <td>
                    <Show when={f.valueJson.length > 60} fallback={<code>{f.valueJson}</code>}>
                      <JsonBlock title="" value={f.value} />
                    </Show>
                  </td>
                  <td title={new Date(f.updatedAtMs).toLocaleString()}>{formatAgo(f.updatedAtMs, now())}</td>
                  <td title={f.ttlMs === null ? "Kept until it is deleted" : `TTL ${Math.round(f.ttlMs / 1000)} s from the last write`}>
                    {f.ttlMs === null ? <span class="muted">never</span> : formatUntil(f.updatedAtMs + f.ttlMs, now())}
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </Show>
    </section>
  );
}
