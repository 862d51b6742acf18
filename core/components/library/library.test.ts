import { describe, expect, it } from "vitest";
import { exceededLimit } from "./aspects.js";
import { suitePasses } from "./check-suite.js";
import { matchingRules } from "./decision-table.js";
import { tallyVotes } from "./panel.js";
import { pollDelayMs } from "./poller.js";

describe("library decisions", () => {
  it("DecisionTable picks the first matching rule, or every one with all-match", () => {
    const rules = [{ when: false, then: "a" }, { when: true, then: "b" }, { when: true, then: "c" }];
    expect(matchingRules(rules, "first-match")).toEqual([1]);
    expect(matchingRules(rules, undefined)).toEqual([1]);
    expect(matchingRules(rules, "all-match")).toEqual([1, 2]);
    expect(matchingRules([{ when: false, then: "a" }], "all-match")).toEqual([]);
  });

  it("Panel tallies votes: a tie has no winner, minAgree decides agreement", () => {
    expect(tallyVotes([{ vote: "x" }, { vote: "x" }, { vote: "y" }], 2)).toEqual({ counts: { x: 2, y: 1 }, winner: "x", agreed: true });
    expect(tallyVotes([{ vote: "x" }, { vote: "x" }, { vote: "y" }], 3)).toMatchObject({ winner: "x", agreed: false });
    expect(tallyVotes([{ vote: "x" }, { vote: "y" }, undefined], 1)).toMatchObject({ winner: null, agreed: false });
  });

  it("CheckSuite strategies: all-pass, majority (more than half), any-pass", () => {
    expect([suitePasses("all-pass", 3, 3), suitePasses("all-pass", 2, 3), suitePasses(undefined, 2, 3)]).toEqual([true, false, false]);
    expect([suitePasses("majority", 2, 3), suitePasses("majority", 2, 4)]).toEqual([true, false]);
    expect([suitePasses("any-pass", 1, 5), suitePasses("any-pass", 0, 5)]).toEqual([true, false]);
  });

  it("Poller waits fixed, linear or exponential intervals before checks 2, 3, 4", () => {
    expect([2, 3, 4].map((n) => pollDelayMs("fixed", 100, n))).toEqual([100, 100, 100]);
    expect([2, 3, 4].map((n) => pollDelayMs("linear", 100, n))).toEqual([100, 200, 300]);
    expect([2, 3, 4].map((n) => pollDelayMs("exponential", 100, n))).toEqual([100, 200, 400]);
  });

  it("Aspects: the token budget in all and per task, then the latency SLO", () => {
    const t = { tokens: 120, maxTaskTokens: 80, latencyMs: 900, maxTaskLatencyMs: 600, tasks: 2 };
    expect(exceededLimit(t, { tokenBudget: { max: 100 } })).toEqual({ kind: "tokens", used: 120, limit: 100, onExceeded: "fail" });
    expect(exceededLimit(t, { tokenBudget: { max: 500, perTask: 50, onExceeded: "warn" } })).toEqual({ kind: "tokens", used: 80, limit: 50, onExceeded: "warn" });
    expect(exceededLimit(t, { tokenBudget: { max: 500 }, latencySlo: { maxMs: 5000, perTask: 500 } })).toEqual({ kind: "latency", used: 600, limit: 500, onExceeded: "fail" });
    expect(exceededLimit(t, { tokenBudget: { max: 500 }, latencySlo: { maxMs: 5000 } })).toBeUndefined();
  });
});
