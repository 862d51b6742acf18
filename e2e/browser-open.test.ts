/**
 * Issue #27, "the browser workspace opens fast": the built app served as static files opens
 * "This browser" in Debian's Chromium (one profile for the file).
 * - The views do not wait for the engine: while the engine cannot start (the test holds the
 *   tabs' engine lock `flow:flow:engine` from another page of the origin, so the app's worker
 *   waits in line), a first visit shows the empty runs list with its launch link, and a later
 *   visit shows the runs this browser saw last and says the database is opening. Released, the
 *   engine answers and the list moves live.
 * - A 100-task run of instant tasks launched from the Launch form opens its page; held paused
 *   at its first task (rewound, not resumed) and resumed from its page, its tree moves step by
 *   step before it finishes (the engine lets the worker's event loop in between statements,
 *   browser/store/pglite-browser.ts). The run is held where the test looks, so no window of
 *   time decides the result on a loaded machine.
 */
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import { engineCall, engineReady, runStatus, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";
import { lastSeenHolds } from "./support/last-seen.js";
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
    await until(() => lastSeenHolds(page, "flow:http://flow.worker:runs", runId), (saved) => saved, "the runs list saved in this browser");

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
    await page.locator('[data-testid="launch-form"] [name="tasks"]').fill("100");
    await page.getByTestId("launch-submit").click();
    // The launched run's page opens (whatever the run reached meanwhile) and ends finished, live.
    await page.waitForURL(/\/runs\/[^/]+$/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 60_000 });

    // Held where the test needs it: rewound to its first task and left paused (time travel,
    // `resume: false`), its page open. Nothing runs until the page's Resume.
    // (The engine lets go of a finished run just after its row says so: asked sooner, the rewind
    // answers that it still runs here, and is asked again.)
    const rewind = () => engineCall<{ success: boolean; status: string; error?: string }>(page, "POST", `/v1/api/runs/${encodeURIComponent(runId)}/rewind`, { nodeId: "step-0", iteration: 0, restoreVcs: false, resume: false });
    const rewound = await until(rewind, (r) => r.success || !/is running in this process/.test(r.error ?? ""), "the finished run let go by the engine");
    expect({ success: rewound.success, status: rewound.status, error: rewound.error }).toEqual({ success: true, status: "paused", error: undefined });
    await page.locator('[data-testid="run-status"][data-status="paused"]').waitFor();
    // The tree draws the rows near its view only, and it followed the first run to its last task:
    // back at its top, the sequence's row (whose count the page is read by) is drawn.
    await page.locator(".run-tree-scroll").evaluate((tree) => tree.scrollTo(0, 0));
    await page.getByTestId("tree-group-progress").waitFor();
    // What the run page showed from here, as it showed it: its status and how many tasks were done
    // (the tree's count of the sequence's finished tasks: its rows in view are the first 32 only).
    await page.evaluate(() => {
      const seen: { status: string | null; done: number }[] = [];
      (globalThis as unknown as { seenRun: typeof seen }).seenRun = seen;
      const look = () => {
        const status = document.querySelector('[data-testid="run-status"]')?.getAttribute("data-status") ?? null;
        const done = Number(document.querySelector('[data-testid="tree-group-progress"]')?.textContent?.split("/")[0] ?? -1);
        const last = seen.at(-1);
        if (!last || last.status !== status || last.done !== done) seen.push({ status, done });
      };
      look();
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    await page.getByTestId("run-resume").click();
    await page.locator('[data-testid="run-action-dialog"] [data-testid="confirm"]').click();
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 60_000 });
    expect(await runStatus(page, runId)).toBe("finished");
    const seen = await page.evaluate(() => (globalThis as unknown as { seenRun: { status: string | null; done: number }[] }).seenRun);
    // The page showed the held run, then its tree moved on while it ran, step by step, to the end,
    // and never left it: no "Loading…" in its place while a part of it (a node's panel) mounted.
    expect(seen[0]!.status).toBe("paused");
    expect(seen.filter((s) => s.status === null), JSON.stringify(seen)).toEqual([]);
    const whileRunning = seen.filter((s) => s.status === "running" && s.done > 0 && s.done < 100);
    expect(new Set(whileRunning.map((s) => s.done)).size, JSON.stringify(seen)).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)?.status).toBe("finished");
    await page.close();
  }, 180_000);
});
