import { describe, expect, it } from "vitest";
import { gatewayBackoffDelay } from "./backoff.js";

describe("gatewayBackoffDelay", () => {
  it("grows 250 ms x2 per attempt and caps at 10000 ms before jitter (SPEC.md defaults)", () => {
    const mid = () => 0.5; // no jitter
    expect([0, 1, 2, 3, 5, 6, 10, 50].map((a) => gatewayBackoffDelay(a, { random: mid }))).toEqual([250, 500, 1000, 2000, 8000, 10000, 10000, 10000]);
  });

  it("jitters symmetrically by up to half the capped delay", () => {
    expect(gatewayBackoffDelay(0, { random: () => 0 })).toBe(125);
    expect(gatewayBackoffDelay(0, { random: () => 0.999999 })).toBeCloseTo(375, 2);
    expect(gatewayBackoffDelay(20, { random: () => 0 })).toBe(5000);
    expect(gatewayBackoffDelay(20, { random: () => 0.999999 })).toBeCloseTo(15000, 1);
  });

  it("honours its options and is never negative", () => {
    expect(gatewayBackoffDelay(2, { baseMs: 100, factor: 3, maxMs: 500, jitter: 0, random: () => 0 })).toBe(500);
    expect(gatewayBackoffDelay(0, { jitter: 3, random: () => 0 })).toBe(0);
    expect(gatewayBackoffDelay(-4, { random: () => 0.5 })).toBe(250);
  });
});
