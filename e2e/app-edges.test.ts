/**
 * Issue #27: the app keeps its promises when the network, the Gateway or the page does not.
 * A real app Gateway (seeded, e2e/support/seed.ts) in Debian's Chromium:
 * - a plain load of every view logs no console error and makes no failed request (no
 *   `ext.workspace.list` on a plain Gateway, no `favicon.ico`); the guard that fails every e2e
 *   on such a line (e2e/support/console-guard.ts) is checked to notice one;
 * - a deep link to a run's Events tab shows its events;
 * - bulk Cancel asks first, says what it will do, and does nothing when kept as is;
 * - runs whose long ids differ only at the end (a cron's) are told apart in the runs list;
 * - the search matches a phrase, not words spread over the workflow and the input;
 * - the connection pill reads offline within 2 s of the network dropping; a view opened while
 *   offline and a run started meanwhile come back by themselves once the network returns;
 * - the workspace reopened with no network shows the runs it saw, says as of when and that the
 *   Gateway cannot be reached, then catches up when the network returns;
 * - switching workspace on a run page shows no gateway error and fails no live query, and says
 *   the run is not in that workspace (with a link to its runs) instead of loading forever.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Browser, Page, Request } from "playwright-core";
import { launchChromium, launchPersistent, takeConsoleProblems } from "./support/chromium.js";
import { type AppGateway, startAppGateway } from "./support/gateway.js";
import { engineReady } from "./support/engine-page.js";
import { lastSeenHolds } from "./support/last-seen.js";
import { shootThemes } from "./support/screens.js";
import { rpc, type SeededRuns, seedAppData, waitForStatus } from "./support/seed.js";

describe("the app at the edges (issue #27)", () => {
  let gw: AppGateway;
  let browser: Browser;
  let runs: SeededRuns;
  let page: Page;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
    runs = await seedAppData(gw);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("loads every view with a clean console and no failed request", async () => {
    // The guard notices a failed request (a file the Gateway does not have).
    await page.goto(`${gw.url}/runs`);
    await page.evaluate(() => fetch("/no-such-file.png").catch(() => undefined));
    // Both lines of it: the response, and the console's "Failed to load resource".
    const noticed: string[] = [];
    const notice = () => (noticed.push(...takeConsoleProblems(browser)), noticed.join("\n"));
    await expect.poll(notice).toMatch(/HTTP 404 GET .*no-such-file\.png/);
    await expect.poll(notice).toMatch(/console error .*404.*no-such-file\.png/);

    // A view's requests all answered before the next view: none is cut off (and so unchecked)
    // by the navigation. The change stream stays open for as long as the page shows.
    const open = new Set<Request>();
    page.on("request", (r) => void open.add(r));
    page.on("requestfinished", (r) => void open.delete(r));
    page.on("requestfailed", (r) => void open.delete(r));
    const answered = () => expect.poll(() => [...open].map((r) => new URL(r.url()).pathname).filter((p) => !p.endsWith("/stream")), { timeout: 15_000 }).toEqual([]);

    const asked: string[] = [];
    page.on("request", (r) => asked.push(new URL(r.url()).pathname));
    const views: Array<[string, () => Promise<unknown>]> = [
      ["/runs", () => page.locator(`[data-testid="run-row"][data-run-id="${runs.waiting}"]`).waitFor()],
      [`/runs/${runs.waiting}`, () => page.locator('[data-testid="run-status"][data-status="waiting-approval"]').waitFor()],
      [`/runs/${runs.pipeline}?tab=events`, () => page.locator('[data-testid="event"]').first().waitFor()],
      ["/launch", () => page.locator('[data-testid="launch-workflow"]').first().waitFor()],
      ["/launch/release", () => page.locator('[data-testid="launch-form"] [name="service"]').waitFor()],
      ["/approvals", () => page.locator(`[data-testid="approval"][data-run-id="${runs.waiting}"]`).waitFor()],
      ["/memory", () => page.getByText("timezone").filter({ visible: true }).first().waitFor()],
      ["/scores", () => page.getByText("Greeting length").filter({ visible: true }).first().waitFor()],
      ["/crons", () => page.getByText("nightly-release").filter({ visible: true }).first().waitFor()],
      ["/settings", () => page.locator(".settings-view").waitFor()],
    ];
    const problems: string[] = [];
    for (const [path, ready] of views) {
      await page.goto(`${gw.url}${path}`);
      await ready();
      await expect.poll(() => page.getByTestId("connection-status").getAttribute("data-status")).toBe("online");
      await answered();
      problems.push(...takeConsoleProblems(browser).map((p) => `${path}: ${p}`));
    }
    expect(problems).toEqual([]);
    expect(asked.filter((p) => p.includes("ext.workspace") || p.endsWith("favicon.ico"))).toEqual([]);
  }, 120_000);

  it("keeps every view to a phone's width: the header wraps, the tabs and wide tables scroll inside", async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      for (const path of ["/runs", "/approvals", "/launch", `/runs/${encodeURIComponent(runs.waiting)}`, `/runs/${encodeURIComponent(runs.pipeline)}?node=test-0`, "/crons", "/settings"]) {
        await phone.goto(`${gw.url}${path}`);
        await phone.locator(".shell-main > *").first().waitFor();
        await phone.waitForTimeout(300);
        const wide = await phone.evaluate(() => {
          const main = document.querySelector(".shell-main")!;
          const vw = document.documentElement.clientWidth;
          const past = [...document.querySelectorAll("body *")].filter((el) => el.getBoundingClientRect().right > vw + 1 && !(el.parentElement && el.parentElement.getBoundingClientRect().right > vw + 1) && !el.closest(".shell-nav"));
          return { page: document.documentElement.scrollWidth - vw, main: main.scrollWidth - main.clientWidth, past: past.map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")}`) };
        });
        // `past`: what reaches past the screen's edge (inside a container that scrolls, or not), to read when this fails.
        expect({ path, page: wide.page, main: wide.main }, wide.past.join(" ")).toEqual({ path, page: 0, main: 0 });
      }
      // In the inbox an item's title and text take the card's width (its badges on a row above).
      await phone.goto(`${gw.url}/approvals`);
      const item = phone.getByTestId("approval").first();
      await item.waitFor();
      const [card, title] = [(await item.boundingBox())!, (await item.locator(".approval-title").boundingBox())!];
      expect(title.width).toBeGreaterThan(card.width - 40);
      // The waiting run's approval can be given from there: its buttons are on the screen.
      await phone.goto(`${gw.url}/runs/${encodeURIComponent(runs.waiting)}`);
      const approve = phone.getByTestId("approve").first();
      await approve.waitFor();
      const box = (await approve.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      // The timeline's axis has room for fewer labels there: they do not run into each other.
      const ticks = await phone.locator(".tl-tick").evaluateAll((els) => els.map((el) => ({ left: el.getBoundingClientRect().left, right: el.getBoundingClientRect().right })));
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      expect(ticks.filter((t, i) => i > 0 && t.left < ticks[i - 1]!.right)).toEqual([]);
      await shootThemes(phone, "view-run-phone");
    } finally {
      await phone.close();
    }
  });

  it("opens a run's Events tab from a deep link with its events", async () => {
    await page.goto(`${gw.url}/runs/${runs.pipeline}?tab=events`);
    await page.locator('[data-testid="tab-events"], #tab-events').waitFor();
    expect(await page.locator("#tab-events").getAttribute("aria-selected")).toBe("true");
    // The log follows the latest events (the first ones are scrolled out of the virtual list).
    await page.locator('[data-testid="event"][data-type="RunFinished"]').waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="event"]').count()).toBeGreaterThan(5);
    // A reload keeps the tab and its rows.
    await page.reload();
    await page.locator('[data-testid="event"][data-type="RunFinished"]').waitFor({ timeout: 15_000 });
  });

  it("tells runs apart whose long ids differ only at the end, as a cron's do", async () => {
    const ids = ["1795911480000", "1795911540000"].map((slot) => `cron-nightly-report-for-the-whole-team-${slot}`);
    for (const runId of ids) await rpc(gw.url, "launchRun", { workflow: "hello", input: { name: "cron" }, runId });
    await page.goto(`${gw.url}/runs`);
    const shown: string[] = [];
    for (const runId of ids) {
      const link = page.locator(`[data-testid="run-row"][data-run-id="${runId}"] a.run-id`).first();
      await link.waitFor();
      // The whole id is still the link's text (and its tooltip), cut in its middle where the column is narrow.
      expect(await link.textContent()).toBe(runId);
      expect(await link.getAttribute("title")).toBe(runId);
      const cell = (await link.boundingBox())!;
      const end = link.locator(".middle-ellipsis-end");
      const box = (await end.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(cell.x + cell.width + 0.5);
      shown.push((await end.textContent())!);
    }
    expect(shown[0]).not.toBe(shown[1]);
    expect(ids.every((id, i) => id.endsWith(shown[i]!))).toBe(true);
  });

  it("asks before a bulk cancel, says how many runs end, and does nothing when kept as is", async () => {
    const cancels: string[] = [];
    const onRequest = (r: Request) => void (/cancel/i.test(r.url()) && cancels.push(r.url()));
    page.on("request", onRequest);
    const long = await Promise.all([0, 1].map(async () => (await rpc<{ runId: string }>(gw.url, "launchRun", { workflow: "release", input: { service: "slow", workMs: 60_000 } })).runId));
    await page.goto(`${gw.url}/runs`);
    for (const id of [...long, runs.finished[0]!]) await page.locator(`[data-testid="run-row"][data-run-id="${id}"] input[type="checkbox"]`).check();
    await page.getByTestId("bulk-cancel").click();
    const dialog = page.getByTestId("bulk-cancel-dialog");
    await dialog.waitFor();
    expect(await dialog.textContent()).toMatch(/Cancel 2 runs\?.*cannot be undone.*1 other selected run already ended/s);
    await shootThemes(page, "view-runs-bulk-cancel");
    // The dialog asked, and nothing was sent (bulk Cancel used to cancel at once).
    expect(cancels).toEqual([]);
    for (const id of long) expect((await rpc<{ status: string }>(gw.url, "getRun", { runId: id })).status).not.toBe("cancelled");
    await dialog.getByRole("button", { name: "Keep as is" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(cancels).toEqual([]);
    page.off("request", onRequest);
    for (const id of long) expect((await rpc<{ status: string }>(gw.url, "getRun", { runId: id })).status).not.toBe("cancelled");

    await page.getByTestId("bulk-cancel").click();
    await dialog.getByTestId("confirm").click();
    await Promise.all(long.map((id) => waitForStatus(gw.url, id, ["cancelled"])));
    await page.getByTestId("bulk-summary").filter({ hasText: "Cancelled 2 runs" }).waitFor();
  });

  it("searches for a phrase, not for words spread over the workflow and the input", async () => {
    const shown = async (q: string) => {
      await page.goto(`${gw.url}/runs?q=${encodeURIComponent(q)}`);
      // The list has its rows once it shows as many as its count says ("N of M").
      const count = page.getByTestId("runs-count");
      const rows = page.locator('[data-testid="run-row"]');
      await expect.poll(async () => /^(\d+) of /.exec((await count.textContent()) ?? "")?.[1] === String(await rows.count())).toBe(true);
      return page.locator('[data-testid="run-row"]').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.runId));
    };
    expect(await shown("Grace")).toEqual([runs.finished[1]]);
    expect(await shown("name grace")).toEqual([runs.finished[1]]);
    // "hello" is the workflow, "Grace" the input: no field holds the phrase.
    expect(await shown("hello Grace")).toEqual([]);
  });

  it("reads offline within 2 s of the network dropping, and catches up by itself when it returns", async () => {
    const context = page.context();
    await page.goto(`${gw.url}/runs`);
    const pill = page.getByTestId("connection-status");
    await expect.poll(() => pill.getAttribute("data-status")).toBe("online");
    const dropped = Date.now();
    await context.setOffline(true);
    await expect.poll(() => pill.getAttribute("data-status"), { timeout: 2_000, interval: 50 }).toBe("offline");
    expect(Date.now() - dropped).toBeLessThan(2_000);

    // Offline: a view whose data never loaded (client-side navigation), and a run started elsewhere.
    await page.getByRole("link", { name: "Crons" }).click();
    await page.getByRole("heading", { name: "Crons" }).waitFor();
    const started = (await rpc<{ runId: string }>(gw.url, "launchRun", { workflow: "hello", input: { name: "while offline" } })).runId;

    await context.setOffline(false);
    await page.getByText("nightly-release").filter({ visible: true }).first().waitFor({ timeout: 15_000 });
    expect(await page.getByRole("button", { name: "Try again" }).count()).toBe(0);
    await expect.poll(() => pill.getAttribute("data-status"), { timeout: 15_000 }).toBe("online");
    await page.getByRole("link", { name: "Runs" }).first().click();
    await page.locator(`[data-testid="run-row"][data-run-id="${started}"]`).waitFor({ timeout: 15_000 });
  }, 60_000);

  it("reopened offline, shows the runs it saw and says so, then catches up", async () => {
    // A context of its own: the network switched off once, as a person's would be.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${gw.url}/runs`);
    await page.locator(`[data-testid="run-row"][data-run-id="${runs.waiting}"]`).waitFor();
    // The service worker (it serves the page without network) controls the page once installed.
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    // And the runs it saw are kept in this browser.
    await expect.poll(() => lastSeenHolds(page, ":runs", runs.waiting), { timeout: 20_000 }).toBe(true);
    await context.setOffline(true);
    await page.reload();
    // Waits on what matters (the app saying it), not on navigator.onLine right after the reload.
    const banner = page.getByTestId("last-seen");
    await banner.waitFor({ timeout: 20_000 });
    expect(await banner.textContent()).toMatch(/cannot be reached.*saw .*ago|cannot be reached.*saw just now/s);
    await page.locator(`[data-testid="run-row"][data-run-id="${runs.waiting}"]`).waitFor();
    expect(await page.getByText("No runs yet").count()).toBe(0);
    await shootThemes(page, "view-runs-last-seen");
    expect(await page.getByTestId("connection-status").getAttribute("data-status")).toBe("offline");
    await context.setOffline(false);
    await banner.waitFor({ state: "detached", timeout: 15_000 });
    await expect.poll(() => page.getByTestId("connection-status").getAttribute("data-status"), { timeout: 15_000 }).toBe("online");
    await context.close();
  }, 120_000);

  it("switches workspace on a run page without a gateway error or a failed live query", async () => {
    // A profile on disk, as a person's browser has: the browser's workspace starts its engine on
    // OPFS, which an incognito context (browser.newContext) keeps in memory, where PGlite opened
    // 3-4 times slower (docs/performance.md "The test suite's time").
    const profile = mkdtempSync(join(tmpdir(), "flow-app-edges-"));
    const context = await launchPersistent(profile, { viewport: { width: 1280, height: 800 } });
    onTestFinished(async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(20_000);
    await page.goto(`${gw.url}/runs/${runs.released}`);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
    // Every state the connection pill shows from here on.
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { __pill: string[] }).__pill = []);
      new MutationObserver(() => {
        const status = document.querySelector('[data-testid="connection-status"]')?.getAttribute("data-status");
        if (status && seen.at(-1) !== status) seen.push(status);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"] });
    });
    await page.getByTestId("workspace-switcher").selectOption("browser");
    // The browser's workspace opens (its engine starts first); the run is not in it, and the
    // page says so (not "Loading run…" forever), with the way back to this workspace's runs.
    await page.getByTestId("engine-info").waitFor({ timeout: 120_000 });
    await engineReady(page, 120_000);
    // Its pill opens as its own: starting (its engine opens the database; nothing is reached
    // over a network), then this browser, never "reconnecting" (the Gateway's connection was
    // online, not this one).
    await expect.poll(() => page.getByTestId("connection-status").getAttribute("data-status"), { timeout: 30_000 }).toBe("local");
    const pill = await page.evaluate(() => (window as unknown as { __pill: string[] }).__pill);
    expect(pill).not.toContain("reconnecting");
    expect(pill.indexOf("starting")).toBeGreaterThanOrEqual(0);
    expect(pill.indexOf("starting")).toBeLessThan(pill.lastIndexOf("local"));
    const notFound = page.getByTestId("run-not-found");
    await notFound.waitFor();
    expect(await notFound.textContent()).toContain(`No run ${runs.released} in this workspace`);
    expect(await page.getByTestId("run-loading").count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toMatch(/GATEWAY_UNAVAILABLE|does not answer|Live Query/);
    await shootThemes(page, "view-run-other-workspace");
    await notFound.getByRole("link", { name: "Back to runs" }).click();
    await page.waitForURL((u) => u.pathname === "/runs");
    // Back on the run's page: still said to be elsewhere.
    await page.goBack();
    await notFound.waitFor();
    // Back to the Gateway: the run shows again.
    await page.getByTestId("workspace-switcher").selectOption({ index: 0 }); // the Gateway that served the page comes first
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 30_000 });
    expect(takeConsoleProblems(context)).toEqual([]);
  }, 200_000);
});
