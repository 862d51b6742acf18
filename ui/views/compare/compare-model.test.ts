import { describe, expect, it } from "vitest";
import type { GatewayRunRow } from "../../../core/data/index.js";
import { differs, outputValue, pairTasks, timeSpent } from "./compare-model.js";

type Node = GatewayRunRow["nodes"][number];
const node = (nodeId: string, iteration: number, attempts: Array<[number, number | null, string?]> = []): Node => ({
  key: `${nodeId}#${iteration}`,
  nodeId,
  iteration,
  state: "finished",
  label: null,
  outputTable: "t",
  error: null,
  updatedAtMs: 0,
  attempts: attempts.map(([startedAtMs, finishedAtMs, state], i) => ({ nodeId, iteration, attempt: i + 1, state: (state ?? "finished") as never, startedAtMs, finishedAtMs, error: null, meta: null, vcsPointer: null })),
});

describe("compare model", () => {
  it("pairs tasks by node id and iteration, in the first run's order then the second's extras", () => {
    const rows = pairTasks([node("a", 0), node("b", 0), node("b", 1)], [node("b", 1), node("c", 0), node("a", 0)]);
    expect(rows.map((r) => [r.key, !!r.a, !!r.b])).toEqual([
      ["a#0", true, true],
      ["b#0", true, false],
      ["b#1", true, true],
      ["c#0", false, true],
    ]);
  });

  it("sums the time of every attempt, counting a running one up to now", () => {
    expect(timeSpent(node("a", 0, [[100, 150, "failed"], [200, 260]]), 1000)).toBe(110);
    expect(timeSpent(node("a", 0, [[100, null, "in-progress"]]), 400)).toBe(300);
    expect(timeSpent(node("a", 0), 400)).toBeNull();
    expect(timeSpent(undefined, 400)).toBeNull();
  });

  it("compares values whatever their key order, and leaves out the columns every output row has", () => {
    expect(differs({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(false);
    expect(differs({ a: 1 }, { a: 2 })).toBe(true);
    expect(differs([1, 2], [2, 1])).toBe(true);
    expect(outputValue({ runId: "r1", nodeId: "greet", iteration: 0, text: "hi" })).toEqual({ text: "hi" });
    expect(differs(outputValue({ runId: "r1", nodeId: "g", iteration: 0, text: "hi" }), outputValue({ runId: "r2", nodeId: "g", iteration: 0, text: "hi" }))).toBe(false);
    expect(outputValue(null)).toBeNull();
  });
});
