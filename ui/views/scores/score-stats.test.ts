import { describe, expect, it } from "vitest";
import type { GatewayScoreRow } from "../../../core/data/index.js";
import { chartRange, histogram, summarize } from "./score-stats.js";

const row = (scorerId: string, score: number, scoredAtMs: number) => ({ id: `${scorerId}-${scoredAtMs}`, scorerId, scorerName: scorerId.toUpperCase(), score, scoredAtMs }) as GatewayScoreRow;

describe("score stats", () => {
  it("summarizes each scorer: count, mean, median, range, and its scores oldest first", () => {
    const [a, b] = summarize([row("b", 2, 1), row("a", 0.2, 3), row("a", 0.8, 1), row("a", 0.5, 2)]);
    expect(a).toMatchObject({ scorerId: "a", count: 3, p50: 0.5, min: 0.2, max: 0.8 });
    expect(a!.mean).toBeCloseTo(0.5);
    expect(a!.series.map((p) => p.score)).toEqual([0.8, 0.5, 0.2]);
    expect(b).toMatchObject({ scorerId: "b", count: 1, mean: 2, p50: 2 });
  });

  it("bins scores and picks a chart range", () => {
    expect(histogram([0, 0.05, 0.5, 1], 10, 0, 1)).toEqual([2, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(chartRange({ min: 0.1, max: 0.9 })).toEqual([0, 1]);
    expect(chartRange({ min: 2, max: 7 })).toEqual([2, 7]);
    expect(chartRange({ min: 3, max: 3 })).toEqual([2, 4]);
  });
});
