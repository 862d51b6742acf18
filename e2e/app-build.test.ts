/**
 * When `ensureAppBuilt` rebuilds the app (scripts/app-build.ts): a `dist/app/`-like directory
 * is current only with its index.html and a stamp at least as new as the newest source. And
 * what the built app's first view loads (vite.app.config.ts `firstView`).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appBuildIsCurrent, appSourcesMtime } from "../scripts/app-build.js";
import { APP_DIR, ensureAppBuilt } from "./support/app.js";

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

describe("the built app's first view", () => {
  it("names the runs list's files in index.html and loads no live-query engine before it", async () => {
    await ensureAppBuilt();
    const html = readFileSync(join(APP_DIR, "index.html"), "utf8");
    const report = JSON.parse(readFileSync(join(APP_DIR, ".first-view.json"), "utf8")) as { files: string[]; bytes: number; modules: string[] };
    // Every file of the first view is named in index.html: the page asks for them all at once.
    for (const file of report.files) expect(html).toContain(`href="./${file}"`.replace(/^href="\.\/(assets\/index-[^"]+\.js)"$/, `src="./$1"`));
    expect(report.files.some((f) => /^assets\/runs-list-[\w-]+\.js$/.test(f))).toBe(true);
    expect(report.files.some((f) => /^assets\/runs-list-[\w-]+\.css$/.test(f))).toBe(true);
    expect(report.modules).toEqual(expect.arrayContaining(["ui/shell.tsx", "ui/views/runs-list.tsx", "ui/views/runs-table.tsx"]));
    // The shell and the runs list read collections directly (ui/components/collection-rows.ts):
    // the live-query compiler and @tanstack/solid-db load with the views that query.
    const liveQuery = /@tanstack\/solid-db\/|@tanstack\/db\/dist\/esm\/query\/(live\/collection-config-builder|compiler\/index|builder\/index)\.js$/;
    expect(report.modules.filter((m) => liveQuery.test(m))).toEqual([]);
    expect(report.bytes).toBeGreaterThan(0);
  }, 180_000);
});
