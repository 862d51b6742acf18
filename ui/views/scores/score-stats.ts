/**
 * @module ui/views/scores/score-stats
 * What the scores view computes from `ScoreRow`s: per scorer the count, mean, median, range
 * and the points of its charts (a histogram of the scores, and the scores over time).
 */
import type { GatewayScoreRow } from "../../../core/data/index.js";

/** One scorer's summary. */
export interface ScorerSummary {
  scorerId: string;
  scorerName: string;
  count: number;
  mean: number;
  p50: number;
  min: number;
  max: number;
  /** The scorer's scores, oldest first. */
  series: Array<{ atMs: number; score: number }>;
}

/**
 * Scores grouped by scorer (by name).
 * @example
 * summarize(scores).map((s) => `${s.scorerName}: ${s.mean.toFixed(2)} over ${s.count}`);
 */
export function summarize(scores: readonly GatewayScoreRow[]): ScorerSummary[] {
  const groups = new Map<string, GatewayScoreRow[]>();
  for (const s of scores) groups.set(s.scorerId, [...(groups.get(s.scorerId) ?? []), s]);
  return [...groups.values()]
    .map((rows) => {
      const values = rows.map((r) => r.score).sort((a, b) => a - b);
      const mid = values.length >> 1;
      return {
        scorerId: rows[0]!.scorerId,
        scorerName: rows[0]!.scorerName,
        count: rows.length,
        mean: values.reduce((a, b) => a + b, 0) / values.length,
        p50: values.length % 2 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2,
        min: values[0]!,
        max: values.at(-1)!,
        series: rows.map((r) => ({ atMs: r.scoredAtMs, score: r.score })).sort((a, b) => a.atMs - b.atMs),
      };
    })
    .sort((a, b) => a.scorerName.localeCompare(b.scorerName));
}

/**
 * Counts of `values` in `n` equal bins over [lo, hi] (the last bin includes `hi`).
 * @example
 * histogram([0, 0.5, 1], 2, 0, 1); // [1, 2]
 */
export function histogram(values: readonly number[], n: number, lo: number, hi: number): number[] {
  const bins = new Array<number>(n).fill(0);
  const width = (hi - lo) / n || 1;
  for (const v of values) bins[Math.max(0, Math.min(n - 1, Math.floor((v - lo) / width)))]! += 1;
  return bins;
}

/**
 * The range a scorer's charts use: [0, 1] when its scores fit, else their own range.
 * @example
 * chartRange({ min: 0.2, max: 0.9 }); // [0, 1]
 */
export function chartRange(s: Pick<ScorerSummary, "min" | "max">): [number, number] {
  if (s.min >= 0 && s.max <= 1) return [0, 1];
  return s.min === s.max ? [s.min - 1, s.max + 1] : [s.min, s.max];
}
