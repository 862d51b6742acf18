import { describe, expect, it } from "vitest";
import { Coalescer } from "./refresh-coalescer.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Coalescer", () => {
  it("runs a burst of ten refreshes of one key as at most three fetches, the newest result applied", async () => {
    const coalescer = new Coalescer(0);
    const fetched: number[] = [];
    const applied: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const work = async (generation: number) => {
      fetched.push(generation);
      await gate;
      if (coalescer.isLatest("run:a", generation)) applied.push(generation);
    };
    const all = Array.from({ length: 10 }, () => coalescer.run("run:a", work));
    await sleep(5);
    expect(fetched).toEqual([1, 2]);
    release();
    await Promise.all(all);
    // The third started once one of the two ended: it read the state after every change.
    expect(fetched).toHaveLength(3);
    expect(applied.at(-1)).toBe(fetched[2]);
  });

  it("starts a key's fetches at least the spacing apart, and one after a quiet moment at once", async () => {
    const coalescer = new Coalescer(40);
    const starts: number[] = [];
    const work = async () => void starts.push(Date.now());
    const first = Date.now();
    await coalescer.run("run:a", work);
    await coalescer.run("run:a", work);
    await coalescer.run("run:a", work);
    expect(starts[0]! - first).toBeLessThan(20);
    // The coalescer spaces its own clock readings 40 ms apart; `work` reads the clock a moment
    // after it (up to a millisecond later, so a gap may read one less).
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(39);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(39);

    // Other keys are not held by this one.
    const other = Date.now();
    await coalescer.run("run:b", work);
    expect(starts[3]! - other).toBeLessThan(20);

    await sleep(60);
    const later = Date.now();
    await coalescer.run("run:a", work);
    expect(starts[4]! - later).toBeLessThan(20);
  });
});
