/**
 * @module ui/views/scores
 * Scores (`/scores`): per scorer its count, mean, median and range with two small charts
 * (distribution, over time), and a table of the latest scores linking to their run and node.
 * `?scorer=<id>` narrows the table (and the cards) to one scorer. See
 * docs/app-views-people.md "Scores".
 */
import { A, useSearchParams } from "@solidjs/router";
import { useLiveQuery } from "@tanstack/solid-db";
import { createMemo, For, Show, Suspense } from "solid-js";
import type { GatewayScoreRow } from "../../core/data/index.js";
import { EmptyState } from "../components/empty-state.js";
import { formatAgo, formatDuration, shortId } from "../components/format.js";
import { useConnection } from "../flow-context.js";
import { ScoreHistogram, ScoreTimeline } from "./scores/score-charts.js";
import { summarize } from "./scores/score-stats.js";
import "../components/view-layout.css";
import "./scores.css";

/** How many of the latest scores the table lists. */
const TABLE_ROWS = 100;
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) >= 10 ? 1 : 3));

/**
 * The scores view (a route of ui/app.tsx).
 * @example
 * <Route path="/scores" component={Scores} />
 */
export default function Scores() {
  const { cols } = useConnection();
  const [params, setParams] = useSearchParams<{ scorer?: string }>();
  const scores = useLiveQuery((q) => q.from({ s: cols.scores }).orderBy(({ s }) => s.scoredAtMs, "desc"));
  const all = () => scores() as GatewayScoreRow[];
  const summaries = createMemo(() => summarize(all()));
  const shownSummaries = () => summaries().filter((s) => !params.scorer || s.scorerId === params.scorer);
  const latest = createMemo(() => all().filter((s) => !params.scorer || s.scorerId === params.scorer).slice(0, TABLE_ROWS));

  return (
    <div class="scores-view">
      <header class="view-header">
        <h1>Scores</h1>
        <Show when={summaries().length > 1}>
          <label class="scores-filter">
            <span>Scorer</span>
            <select value={params.scorer ?? ""} onChange={(e) => setParams({ scorer: e.currentTarget.value || undefined })}>
              <option value="">All scorers</option>
              <For each={summaries()}>{(s) => <option value={s.scorerId}>{s.scorerName}</option>}</For>
            </select>
          </label>
        </Show>
      </header>
      <Suspense fallback={<p class="muted">Loading scores…</p>}>
        <Show when={!scores.isError} fallback={<div class="error-banner" role="alert">Could not load the scores. Check the connection and reload.</div>}>
          <Show when={all().length} fallback={<EmptyState title="No scores yet" hint="Give a Task a scorers prop (createScorer, createLlmJudge) and each attempt's output is graded here; scoreRuns grades past runs." />}>
            <ul class="scorer-cards" aria-label="Scorers">
              <For each={shownSummaries()}>
                {(s) => (
                  <li class="card scorer-card" data-testid="scorer" data-scorer-id={s.scorerId}>
                    <div class="scorer-head">
                      <h2>
                        <button type="button" class="ghost scorer-name" onClick={() => setParams({ scorer: params.scorer === s.scorerId ? undefined : s.scorerId })} aria-pressed={params.scorer === s.scorerId}>
                          {s.scorerName}
                        </button>
                      </h2>
                      <code class="muted">{s.scorerId}</code>
                    </div>
                    <dl class="scorer-stats">
                      <div>
                        <dt>Mean</dt>
                        <dd class="scorer-mean">{fmt(s.mean)}</dd>
                      </div>
                      <div>
                        <dt>Count</dt>
                        <dd>{s.count}</dd>
                      </div>
                      <div>
                        <dt>Median</dt>
                        <dd>{fmt(s.p50)}</dd>
                      </div>
                      <div>
                        <dt>Range</dt>
                        <dd>
                          {fmt(s.min)} – {fmt(s.max)}
                        </dd>
                      </div>
                    </dl>
                    <div class="scorer-charts">
                      <ScoreHistogram summary={s} />
                      <ScoreTimeline summary={s} />
                    </div>
                  </li>
                )}
              </For>
            </ul>
            <section class="card scores-table-card" aria-labelledby="latest-scores">
              <h2 id="latest-scores">
                Latest scores <span class="muted">({latest().length < all().length ? `latest ${latest().length}` : latest().length})</span>
              </h2>
              <div class="table-scroll">
                <table class="scores-table">
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Scorer</th>
                      <th scope="col" class="num">
                        Score
                      </th>
                      <th scope="col">Reason</th>
                      <th scope="col">Run · node</th>
                      <th scope="col" class="num">
                        Took
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    <For each={latest()}>
                      {(s) => (
                        <tr data-testid="score-row">
                          <td title={new Date(s.scoredAtMs).toLocaleString()}>{formatAgo(s.scoredAtMs)}</td>
                          <td>{s.scorerName}</td>
                          <td class="num mono">{fmt(s.score)}</td>
                          <td class="scores-reason">{s.reason ?? <span class="muted">—</span>}</td>
                          <td>
                            <A href={`/runs/${encodeURIComponent(s.runId)}`} class="mono">
                              {shortId(s.runId)}
                            </A>
                            {" · "}
                            <A href={`/runs/${encodeURIComponent(s.runId)}?node=${encodeURIComponent(s.nodeId)}`} class="mono">
                              {s.nodeId}
                              {s.iteration ? `#${s.iteration}` : ""}
                            </A>
                            <Show when={s.attempt > 1}>
                              <span class="muted"> (attempt {s.attempt})</span>
                            </Show>
                          </td>
                          <td class="num">{formatDuration(s.durationMs)}</td>
                        </tr>
                      )}
                    </For>
                  </tbody>
                </table>
              </div>
            </section>
          </Show>
        </Show>
      </Suspense>
    </div>
  );
}
