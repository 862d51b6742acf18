/**
 * @module ui/views/scores/score-charts
 * Two small SVG charts of a scorer: how its scores are distributed (a histogram of ten bins)
 * and how they went over time (one dot per score in order of time, joined; the dashed line is
 * the mean). Colours come from the theme.
 */
import { For } from "solid-js";
import { chartRange, histogram, type ScorerSummary } from "./score-stats.js";

const W = 220;
const H = 64;
const BINS = 10;
const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));

/**
 * A scorer's distribution.
 * @example
 * <ScoreHistogram summary={s} />
 */
export function ScoreHistogram(props: { summary: ScorerSummary }) {
  const range = () => chartRange(props.summary);
  const bins = () => histogram(props.summary.series.map((p) => p.score), BINS, ...range());
  const top = () => Math.max(1, ...bins());
  const bw = W / BINS;
  return (
    <figure class="score-chart">
      <svg viewBox={`0 0 ${W} ${H + 14}`} role="img" aria-label={`Distribution of ${props.summary.scorerName} scores from ${fmt(range()[0])} to ${fmt(range()[1])}: ${bins().join(", ")}`}>
        <For each={bins()}>
          {(n, i) => <rect class="score-bar" x={i() * bw + 1} y={H - (n / top()) * H} width={bw - 2} height={(n / top()) * H} rx="2"><title>{`${n} between ${fmt(range()[0] + (i() * (range()[1] - range()[0])) / BINS)} and ${fmt(range()[0] + ((i() + 1) * (range()[1] - range()[0])) / BINS)}`}</title></rect>}
        </For>
        <line class="score-axis" x1="0" x2={W} y1={H + 0.5} y2={H + 0.5} />
        <text class="score-tick" x="0" y={H + 12}>{fmt(range()[0])}</text>
        <text class="score-tick" x={W} y={H + 12} text-anchor="end">{fmt(range()[1])}</text>
      </svg>
      <figcaption class="muted">Distribution</figcaption>
    </figure>
  );
}

/**
 * A scorer's scores over time.
 * @example
 * <ScoreTimeline summary={s} />
 */
export function ScoreTimeline(props: { summary: ScorerSummary }) {
  const range = () => chartRange(props.summary);
  const points = () => {
    const s = props.summary.series;
    const [lo, hi] = range();
    // Evenly spaced in order of time (bursts of scores stay readable).
    return s.map((p, i) => ({
      x: s.length === 1 ? W / 2 : 4 + (i / (s.length - 1)) * (W - 8),
      y: 4 + (1 - (p.score - lo) / (hi - lo || 1)) * (H - 8),
      p,
    }));
  };
  return (
    <figure class="score-chart">
      <svg viewBox={`0 0 ${W} ${H + 14}`} role="img" aria-label={`${props.summary.scorerName} over time: ${props.summary.series.map((p) => fmt(p.score)).join(", ")}`}>
        <line class="score-axis" x1="0" x2={W} y1={H + 0.5} y2={H + 0.5} />
        <line class="score-mean" x1="0" x2={W} y1={4 + (1 - (props.summary.mean - range()[0]) / (range()[1] - range()[0] || 1)) * (H - 8)} y2={4 + (1 - (props.summary.mean - range()[0]) / (range()[1] - range()[0] || 1)) * (H - 8)}>
          <title>{`mean ${fmt(props.summary.mean)}`}</title>
        </line>
        <polyline class="score-line" points={points().map((p) => `${p.x},${p.y}`).join(" ")} />
        <For each={points()}>
          {(pt) => (
            <circle class="score-dot" cx={pt.x} cy={pt.y} r="2.5">
              <title>{`${fmt(pt.p.score)} at ${new Date(pt.p.atMs).toLocaleString()}`}</title>
            </circle>
          )}
        </For>
        <text class="score-tick" x="0" y={H + 12}>oldest</text>
        <text class="score-tick" x={W} y={H + 12} text-anchor="end">newest</text>
      </svg>
      <figcaption class="muted">Over time (line: mean)</figcaption>
    </figure>
  );
}
