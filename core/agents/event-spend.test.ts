import { describe, expect, it } from "vitest";
import { withInFlight } from "./event-spend.js";

describe("a stored total with what running attempts spent", () => {
  it("adds them to the store's total", () => {
    const stored = { inputTokens: 1100, outputTokens: 110, totalTokens: 1210, costUsd: 0.01, attempts: 2 };
    expect(withInFlight(stored, [{ inputTokens: 1700, outputTokens: 110, totalTokens: 1810, costUsd: 0.017 }])).toEqual({ inputTokens: 2800, outputTokens: 220, totalTokens: 3020, costUsd: 0.027 });
    expect(withInFlight(stored, [])).toBe(stored);
    expect(withInFlight(undefined, [{ inputTokens: 5, outputTokens: 1, totalTokens: 6 }])).toEqual({ inputTokens: 5, outputTokens: 1, totalTokens: 6 });
  });
});
