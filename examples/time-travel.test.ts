import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it, onTestFinished, vi } from "vitest";

it("examples/time-travel.tsx rewinds, resumes only what was reset, and forks", async () => {
  // Vitest turns snapshots off for runs inside this repository; the example's own repository needs them.
  vi.stubEnv("FLOW_SNAPSHOTS", "on");
  vi.stubEnv("FLOW_EXAMPLE_DB", join(mkdtempSync(join(tmpdir(), "flow-ex-tt-")), "tt.db"));
  vi.stubEnv("FLOW_EXAMPLE_ROOT", undefined); // main() sets it to its repository: unset again when the test ends
  onTestFinished(() => void vi.unstubAllEnvs());
  const { main } = await import("./time-travel.js");
  const r = await main();
  expect(r.afterRewind).toEqual({ notes: false, published: false });
  expect(r.resumed).toEqual(["review", "publish"]);
  expect(r.forked).toEqual(["review", "publish"]);
  expect(r.forkTitle).toBe("reviewed: Final");
});
