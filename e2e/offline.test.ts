/**
 * The app offline (issue #13, "What it must show" 2): loaded once, then with no network a
 * reload still opens it (the service worker); a workflow started there runs in the engine's
 * worker over PGlite; a reload mid-run resumes it to the end, every task once; after a browser
 * restart with the same profile its rows are still there. And the network going while the app
 * is open leaves a run page whole.
 */
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import { engineCall, engineReady, finishesByNode, runEvents, runStatus, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";

const TASKS = 12;
const steps = Array.from({ length: TASKS }, (_, i) => `step-${i}`);

describe("the app offline", () => {
  const app = offlineApp("offline");

  const firstPage = async (c: BrowserContext): Promise<Page> => c.pages()[0] ?? c.newPage();

  it("opens without network, runs a workflow in the worker, resumes it after a reload, keeps it after a restart", async () => {
    app.ctx = await launchPersistent(app.profile);
    let page = await firstPage(app.ctx);
    await page.goto(app.server.url);
    await engineReady(page);
    // The service worker has cached the app and controls the page.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 20_000 });

    await app.ctx.setOffline(true);
    const reloaded = await page.reload();
    // Checked by what it means, not by navigator.onLine: after Playwright's offline switch and
    // a reload, navigator.onLine stayed true for 15 s and more on a loaded machine (it failed
    // this test once read right after the reload). The page came from the service worker, and
    // a request from it finds no network.
    expect(reloaded?.fromServiceWorker()).toBe(true);
    const probe = await page.evaluate((u) => fetch(u, { cache: "no-store" }).then(() => "answered", () => "no network"), `${app.server.url}network-probe`);
    expect(probe).toBe("no network");
    await page.getByTestId("connection-status").waitFor();
    const { storage } = await engineReady(page);
    expect(["opfs", "idb"]).toContain(storage);
    // A key saved in this browser reaches the engine's workflows as an environment variable.
    await page.evaluate(() => (globalThis as unknown as { __FLOW_ENGINE__: { saveKey(n: string, v: string): Promise<void> } }).__FLOW_ENGINE__.saveKey("FLOW_LOCAL_API_KEY", "sk-local-test"));
    const engineWorker = page.workers().find((w) => w.url().includes("engine-worker"))!;
    await until(() => engineWorker.evaluate(() => (globalThis as unknown as { process?: { env: Record<string, string> } }).process?.env.FLOW_LOCAL_API_KEY), (v) => v === "sk-local-test", "the key in the worker's env");

    const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: TASKS, workMs: 300 } });
    await until(() => runEvents(page, runId), (events) => finishesByNode(events).size >= 3, "three tasks finished");
    const beforeReload = finishesByNode(await runEvents(page, runId)).size;
    expect(beforeReload).toBeLessThan(TASKS);

    // Reloaded mid-run (still offline): the new worker takes the run over and finishes it.
    await page.reload();
    await engineReady(page);
    await until(() => runStatus(page, runId), (s) => s === "finished", "the run to finish", 40_000);
    const events = await runEvents(page, runId);
    expect(events.some((e) => e.type === "RunResumed" && e.takeover === true)).toBe(true);
    const finishes = finishesByNode(events);
    expect([...finishes.keys()].sort()).toEqual([...steps].sort());
    expect([...finishes.values()].every((n) => n === 1)).toBe(true);

    // A browser restart with the same profile, still without network, straight to the run's
    // deep link (the service worker answers it with the app): the rows are there.
    await app.ctx.close();
    app.ctx = await launchPersistent(app.profile, { offline: true });
    page = await firstPage(app.ctx);
    await page.goto(`${app.server.url}runs/${runId}`);
    await engineReady(page);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 30_000 });
    expect(await runStatus(page, runId)).toBe("finished");
    const output = await engineCall<unknown>(page, "GET", `/v1/api/runs/${runId}/nodes/step-${TASKS - 1}/output`);
    expect(JSON.stringify(output)).toContain(`${(TASKS - 1) ** 2}`);
  }, 120_000);

  it("keeps a run page whole when the network drops while the app is open: its tasks, and the approval to give", async () => {
    await app.ctx?.close();
    app.ctx = await launchPersistent(app.profile);
    const page = await firstPage(app.ctx);
    await page.goto(`${app.server.url}runs`);
    await engineReady(page);
    // The network goes while the page is open (no reload): the page is told (the `offline`
    // event), which held back every read TanStack Query makes; this browser's reads need no network.
    await app.ctx.setOffline(true);
    await until(() => page.evaluate(() => navigator.onLine), (online) => !online, "the page to know it is offline");
    const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "release", input: { service: "web", shards: 1, workMs: 0 } });
    // Opened from the runs list, as a person does.
    const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`).first();
    await row.locator('[data-status="waiting-approval"]').waitFor({ timeout: 30_000 });
    await row.click();
    await page.locator('[data-testid="run-status"][data-status="waiting-approval"]').waitFor();
    // Its tasks (it used to say "Loading tasks…" for good) and the approval, given from here.
    await page.locator('[data-testid="tree-node"][data-node-id="ship"][data-state="waiting-approval"]').first().waitFor({ timeout: 15_000 });
    // The tree is virtualized (rows are reused as it renders): its rows as a set, once settled.
    await expect.poll(() => page.locator('[data-testid="tree-node"]').evaluateAll((nodes) => [...new Set(nodes.map((n) => n.getAttribute("data-node-id")))].sort())).toEqual(["build", "deploy", "ship", "test-0"]);
    const approval = page.getByTestId("approval");
    await approval.waitFor({ timeout: 15_000 });
    await approval.getByTestId("approve").click();
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('[data-testid="tree-node"][data-node-id="deploy"]').first().getAttribute("data-state")).toBe("finished");
  }, 120_000);
});
