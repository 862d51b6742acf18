/**
 * Issue #27, "the browser workspace opens fast": the built app served as static files opens
 * "This browser" in Debian's Chromium (one profile for the file).
 * - The views do not wait for the engine: while the engine cannot start (the test holds the
 *   tabs' engine lock `flow:flow:engine` from another page of the origin, so the app's worker
 *   waits in line), a first visit shows the empty runs list with its launch link, and a later
 *   visit shows the runs this browser saw last and says the database is opening. Released, the
 *   engine answers and the list moves live.
 * - A 100-task run of instant tasks launched from the Launch form shows its page while it runs,
 *   and its tree moves before it finishes (the engine lets the worker's event loop in between
 *   statements, browser/store/pglite-browser.ts).
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import { engineCall, engineReady, runStatus, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";
import { shootThemes } from "./support/screens.js";

const LOCK = "flow:flow:engine";

type Held = { releaseEngine?: () => void };

/** Takes the engine lock in `holder` (a page of the app's origin that runs no app) and keeps it until `release`. */
async function holdEngine(holder: Page): Promise<void> {
  await holder.evaluate(
    (lock) =>
      new Promise<void>((held) => {
        void navigator.locks.request(lock, () => new Promise<void>((release) => ((globalThis as Held).releaseEngine = release, held())));
      }),
    LOCK,
  );
}

const release = (holder: Page) => holder.evaluate(() => (globalThis as Held).releaseEngine?.());

/** Whether this browser's last-seen store holds the runs list with `runId`. */
const savedRuns = (page: Page, runId: string) =>
  page.evaluate(
    (id) =>
      new Promise<boolean>((resolve) => {
        // The version the app made (no version asked: asking an older one fails), closed after
        // reading so the app's own upgrade is never blocked by this connection.
        const req = indexedDB.open("flow-last-seen");
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains("loads")) return db.close(), resolve(false);
          const get = db.transaction("loads").objectStore("loads").get("flow:http://flow.worker:runs");
          get.onsuccess = () => (db.close(), resolve(JSON.stringify(get.result?.value ?? []).includes(id)));
          get.onerror = () => (db.close(), resolve(false));
        };
        req.onerror = () => resolve(false);
      }),
    runId,
  );

describe("the browser workspace opens fast (issue #27)", () => {
  const app = offlineApp("browser-open");

  it("shows the runs list before its engine answers, on a first visit and on the next, then moves live", async () => {
    app.ctx = await launchPersistent(app.profile, { viewport: { width: 1280, height: 800 } });
    const holder = app.ctx.pages()[0] ?? (await app.ctx.newPage());
    // A page of the origin that runs no app (and asks for no icon the server lacks).
    await holder.route("**/favicon.ico", (r) => r.fulfill({ status: 204 }));
    await holder.goto(`${app.server.url}sw.js`);
    await holdEngine(holder);

    // First visit, the engine held: the empty list and its launch link, at once.
    let page = await app.ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(app.server.url);
    await page.getByTestId("empty-launch").waitFor();
    expect(await page.evaluate(() => "__FLOW_ENGINE__" in globalThis && (globalThis as unknown as { __FLOW_ENGINE__: { role: string } }).__FLOW_ENGINE__.role)).not.toBe("leader");

    await release(holder);
    await engineReady(page, 60_000);
    const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "hello", input: { name: "Ada" } });
    await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).waitFor({ timeout: 30_000 });
    await until(() => savedRuns(page, runId), (saved) => saved, "the runs list saved in this browser");

    // The next visit, the engine held again: the runs seen last, said to be as of then.
    await page.close();
    await holdEngine(holder);
    page = await app.ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${app.server.url}runs`);
    await page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).waitFor();
    const banner = page.getByTestId("engine-starting");
    await banner.waitFor();
    expect(await banner.textContent()).toMatch(/Opening this browser's database.*saw/s);
    await shootThemes(page, "view-runs-engine-starting");

    // Released: the banner goes, and the list is the engine's, live.
    await release(holder);
    await engineReady(page, 60_000);
    await banner.waitFor({ state: "detached", timeout: 30_000 });
    const next = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "hello", input: { name: "Grace" } });
    await page.locator(`[data-testid="run-row"][data-run-id="${next.runId}"]`).waitFor({ timeout: 30_000 });
    await until(() => runStatus(page, next.runId), (s) => s === "finished", "the second run to finish");
    await page.close();
  }, 240_000);

  it("shows a 100-task run's page while it runs, moving, however fast its tasks", async () => {
    app.ctx ??= await launchPersistent(app.profile, { viewport: { width: 1280, height: 800 } });
    const page = await app.ctx.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${app.server.url}launch/pipeline`);
    await engineReady(page, 60_000);
    const tasks = page.locator('[data-testid="launch-form"] [name="tasks"]');
    await tasks.fill("100");
    // What the run page showed, as it showed it: its status and how many tasks were done.
    await page.evaluate(() => {
      const seen: { status: string | null; done: number; at: number }[] = [];
      (globalThis as unknown as { seenRun: typeof seen }).seenRun = seen;
      new MutationObserver(() => {
        const status = document.querySelector('[data-testid="run-status"]')?.getAttribute("data-status") ?? null;
        if (!status) return;
        const done = document.querySelectorAll('[data-testid="tree-node"][data-state="finished"]').length;
        const last = seen.at(-1);
        if (!last || last.status !== status || last.done !== done) seen.push({ status, done, at: Date.now() });
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByTestId("launch-submit").click();
    await page.waitForURL(/\/runs\/[^/]+$/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 60_000 });
    const run = await engineCall<{ finishedAtMs: number; status: string }>(page, "GET", `/v1/api/runs/${runId}`);
    const seen = await page.evaluate(() => (globalThis as unknown as { seenRun: { status: string | null; done: number; at: number }[] }).seenRun);
    // Its page showed while the run still ran, and the tree moved on before the end.
    expect(seen[0]!.at).toBeLessThan(run.finishedAtMs);
    expect(seen[0]!.status).not.toBe("finished");
    const whileRunning = seen.filter((s) => s.status !== "finished" && s.done > 0 && s.done < 100);
    expect(new Set(whileRunning.map((s) => s.done)).size).toBeGreaterThanOrEqual(2);
    await page.close();
  }, 180_000);
});
