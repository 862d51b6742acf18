/** Tokens and cost in words (the run header, the node panel and the runs list's Cost column), and counts. */
import { describe, expect, it } from "vitest";
import { formatCost, formatCount, formatUsage, plural, shortId } from "./format.js";

describe("formatCost", () => {
  it("keeps two significant digits under a dollar, cents above, and says when it rounds to nothing", () => {
    expect(formatCost(0.000125)).toBe("$0.00013");
    expect(formatCost(0.0031)).toBe("$0.0031");
    expect(formatCost(1.234)).toBe("$1.23");
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(0.0000001)).toBe("< $0.00001");
  });
});

describe("formatUsage", () => {
  it("says tokens and cost, sums input and output without a total, and nothing without either", () => {
    expect(formatUsage({ totalTokens: 1904, costUsd: 0.0031 })).toBe(`${(1904).toLocaleString()} tokens · $0.0031`);
    expect(formatUsage({ inputTokens: 22, outputTokens: 14 })).toBe("36 tokens");
    expect(formatUsage({ costUsd: 0.5 })).toBe("$0.50");
    expect(formatUsage({ totalTokens: 1 })).toBe("1 token");
    expect(formatUsage({})).toBeUndefined();
    expect(formatUsage(null)).toBeUndefined();
  });
});

describe("plural and formatCount", () => {
  it("count as the locale groups them, the noun singular for one only", () => {
    expect(plural(1, "node")).toBe("1 node");
    expect(plural(0, "node")).toBe("0 nodes");
    expect(plural(12_345, "run")).toBe(`${(12_345).toLocaleString()} runs`);
    expect(formatCount(1_000_000)).toBe((1_000_000).toLocaleString());
  });
});

describe("shortId", () => {
  it("keeps what tells runs apart: a UUID's start, a short id whole, a long id's start and end", () => {
    expect(shortId("0d9c6a2e-5b1f-4a57-9a0e-2f6f2b1c9d41")).toBe("0d9c6a2e");
    expect(shortId("release-web-42")).toBe("release-web-42");
    // A child run: told from its parent by the node it runs for.
    expect(shortId("0d9c6a2e-5b1f-4a57-9a0e-2f6f2b1c9d41/draft@0")).toBe("0d9c6a2e…/draft@0");
    // Two runs of one cron, a minute apart: told apart (their first 8 characters were both "cron-cro").
    const [a, b] = [1795911480000, 1795911540000].map((slot) => shortId(`cron-cron-b53272ec-2226-4160-a2ab-01f671814e83-${slot}`));
    expect(a).toBe("cron-cron-…480000");
    expect(b).not.toBe(a);
  });
});
