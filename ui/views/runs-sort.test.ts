import { describe, expect, it } from "vitest";
import type { GatewayRunSummaryRow } from "../../core/data/index.js";
import { rangeMatcher, readRunsOrder, runsOrderParams, sortRuns } from "./runs-sort.js";

const row = (runId: string, createdAtMs: number, finishedAtMs: number | null, status: string, costUsd?: number): GatewayRunSummaryRow =>
  ({ runId, createdAtMs, finishedAtMs, status, usage: costUsd === undefined ? null : { costUsd } }) as unknown as GatewayRunSummaryRow;

const NOW = 10_000_000;
const rows = [row("new", NOW - 1000, null, "running"), row("mid", NOW - 7_200_000, NOW - 7_000_000, "failed", 0.5), row("old", NOW - 90_000_000, NOW - 80_000_000, "finished", 0.1)];

describe("runs-sort: the runs list's order and time range", () => {
  it("reads and writes the URL, defaults leaving it clean", () => {
    const order = readRunsOrder({ sort: "cost", dir: "asc", range: "custom", from: "2026-11-26T10:00", to: "" });
    expect(order).toEqual({ sort: "cost", dir: "asc", range: "custom", from: "2026-11-26T10:00", to: "" });
    expect(runsOrderParams(order)).toEqual({ sort: "cost", dir: "asc", range: "custom", from: "2026-11-26T10:00", to: undefined });
    expect(runsOrderParams(readRunsOrder({ sort: "nonsense", range: "1y" }))).toEqual({ sort: undefined, dir: undefined, range: undefined, from: undefined, to: undefined });
  });

  it("sorts by duration, status and cost, each way", () => {
    const ids = (sort: string, dir?: string) => sortRuns(rows, readRunsOrder({ sort, ...(dir ? { dir } : {}) }), NOW).map((r) => r.runId);
    expect(ids("started")).toEqual(["new", "mid", "old"]);
    expect(ids("started", "asc")).toEqual(["old", "mid", "new"]);
    expect(ids("duration")).toEqual(["old", "mid", "new"]);
    expect(ids("status")).toEqual(["mid", "new", "old"]);
    expect(ids("cost")).toEqual(["mid", "old", "new"]);
    expect(ids("cost", "asc")).toEqual(["old", "mid", "new"]);
  });

  it("keeps the runs started in the range", () => {
    const kept = (params: Record<string, string>) => rows.filter(rangeMatcher(readRunsOrder(params), NOW)).map((r) => r.runId);
    expect(kept({ range: "1h" })).toEqual(["new"]);
    expect(kept({ range: "24h" })).toEqual(["new", "mid"]);
    expect(kept({ range: "7d" })).toEqual(["new", "mid", "old"]);
    expect(kept({})).toEqual(["new", "mid", "old"]);
  });
});
