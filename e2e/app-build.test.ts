/**
 * When `ensureAppBuilt` rebuilds the app (scripts/app-build.ts): a `dist/app/`-like directory
 * is current only with its index.html and a stamp at least as new as the newest source.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appBuildIsCurrent, appSourcesMtime } from "../scripts/app-build.js";

describe("appBuildIsCurrent", () => {
  it("needs index.html and a stamp no older than the newest source", () => {
    const dir = mkdtempSync(join(tmpdir(), "flow-app-stamp-"));
    const newest = appSourcesMtime();
    expect(newest).toBeGreaterThan(0);
    expect(appBuildIsCurrent(dir)).toBe(false);
    // A stamp from the future stays current while others edit the tree during the test.
    writeFileSync(join(dir, ".build-stamp.json"), JSON.stringify({ sourcesMtimeMs: Date.now() + 86_400_000 }));
    expect(appBuildIsCurrent(dir)).toBe(false); // no index.html
    writeFileSync(join(dir, "index.html"), "<!doctype html>");
    expect(appBuildIsCurrent(dir)).toBe(true);
    writeFileSync(join(dir, ".build-stamp.json"), JSON.stringify({ sourcesMtimeMs: newest - 1 }));
    expect(appBuildIsCurrent(dir)).toBe(false);
    writeFileSync(join(dir, ".build-stamp.json"), "not json");
    expect(appBuildIsCurrent(dir)).toBe(false);
  });
});
