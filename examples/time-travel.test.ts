import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("examples/time-travel.tsx rewinds, resumes only what was reset, and forks", async () => {
  // Vitest turns snapshots off for runs inside this repository; the example's own repository needs them.
  const before = process.env.FLOW_SNAPSHOTS;
  process.env.FLOW_SNAPSHOTS = "on";
  process.env.FLOW_EXAMPLE_DB = join(mkdtempSync(join(tmpdir(), "flow-ex-tt-")), "tt.db");
  const { main } = await import("./time-travel.js");
  const r = await main().finally(() => {
    if (before === undefined) delete process.env.FLOW_SNAPSHOTS;
    else process.env.FLOW_SNAPSHOTS = before;
  });
  expect(r.afterRewind).toEqual({ notes: false, published: false });
  expect(r.resumed).toEqual(["review", "publish"]);
  expect(r.forked).toEqual(["review", "publish"]);
  expect(r.forkTitle).toBe("reviewed: Final");
});
