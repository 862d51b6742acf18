/**
 * Issue #28 in Chromium: a team member offline. bea (approve) has the workspace open, goes
 * offline, approves one release, denies another and launches a third: each waits in her
 * browser, shown where it was made and in the pill. She closes the tab and opens the workspace
 * again, still offline: the last-synced rows are there at once, as of when, with her three
 * changes listed. Meanwhile ana approves the release bea denied. Back online, bea's changes are
 * sent in order: the approval and the launch are applied once (rows in PostgreSQL), her denial
 * is refused and she reads why. A run page she never opened, opened offline, shows the run's
 * row as last synced and says the rest is not kept, with a clean console ("ana approved this … before your denial arrived"). dan (read)
 * cannot queue a launch offline; cy, removed while offline, sees his queued launch refused.
 */
import type { Page } from "playwright-core";
import { describe, expect, it, onTestFinished } from "vitest";
import { allowConsole, takeConsoleProblems } from "./support/chromium.js";
import { shootThemes } from "./support/screens.js";
import { signIn, teamBrowsers } from "./support/team-app.js";

const row = (page: Page, runId: string, status?: string) => page.locator(`[data-testid="run-row"][data-run-id="${runId}"]${status ? `[data-status="${status}"]` : ""}`);
const item = (page: Page, runId: string) => page.locator(`[data-testid="approval"][data-run-id="${runId}"]`);

/** The rows of a shape this browser kept (IndexedDB `flow-last-seen`), by the end of the collection id. */
async function keptShapeRows(page: Page, shape: string): Promise<number> {
  return page.evaluate(
    (suffix) =>
      new Promise<number>((resolve) => {
        const req = indexedDB.open("flow-last-seen");
        req.onsuccess = () => {
          const all = req.result.transaction("loads").objectStore("loads").getAll();
          all.onsuccess = () => {
            // A kept shape says how many rows its parts hold (sync/shape-cache.ts).
            const kept = (all.result as Array<{ id: string; value: { count?: number } }>).find((s) => s.id.endsWith(suffix));
            resolve(kept?.value.count ?? 0);
          };
          all.onerror = () => resolve(-1);
        };
        req.onerror = () => resolve(-1);
      }),
    `:${shape}:shape`,
  );
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a team workspace offline (issue #28)", () => {
  const t = teamBrowsers();

  it("keeps bea's offline approval, denial and launch across a closed tab, sends them once when back, and shows the refused denial with its reason", { timeout: 120_000 }, async () => {
    const { team, browser } = t;
    // bea's denial, sent once she is back, is refused on purpose: ana decided first.
    allowConsole(browser, /409 .*\/v1\/api\/approvals/);
    const launched = await Promise.all([1, 2].map((n) => team.call("ana", "POST", "/v1/api/runs", { workflow: "release", input: { service: `svc-${n}`, shards: 1, workMs: 0 } })));
    const [approveId, denyId] = launched.map((r) => r.body.result.runId as string) as [string, string];
    const bea = await signIn(browser, team.url, "bea", "/runs");
    for (const id of [approveId, denyId]) await row(bea.page, id, "waiting-approval").waitFor();
    // The launch form's workflow is loaded once online (kept like every API read); then the inbox.
    await bea.page.locator('.shell-nav a[href$="/launch"]').click();
    await bea.page.locator('a[href$="/launch/release"]').first().click();
    await bea.page.locator('[data-testid="launch-form"]').waitFor();
    await bea.page.locator('.shell-nav a[href$="/approvals"]').click();
    await item(bea.page, denyId).waitFor();
    await bea.page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    await until(() => keptShapeRows(bea.page, "runs"), (n) => n >= 2, "the runs shape kept in IndexedDB");
    await until(() => keptShapeRows(bea.page, "approvals"), (n) => n >= 2, "the approvals shape kept in IndexedDB");

    // The runs list's first page is kept for the next open (ui/views/runs-first-page.ts).
    const keptRuns = await keptShapeRows(bea.page, "runs");
    await until(() => bea.page.evaluate(() => Object.entries(localStorage).filter(([k]) => k.startsWith("flow-runs-first-page:")).map(([, v]) => (JSON.parse(v) as { count: number }).count)), (counts) => counts.length === 1 && counts[0] === keptRuns, "the runs list's first page kept");

    await bea.context.setOffline(true);
    // A tab opened at /runs itself, offline: the kept rows show, all of them counted.
    const runsTab = await bea.context.newPage();
    runsTab.setDefaultTimeout(20_000);
    await runsTab.goto(`${team.url}/runs`);
    await row(runsTab, approveId, "waiting-approval").waitFor();
    await row(runsTab, denyId, "waiting-approval").waitFor();
    expect(await runsTab.getByTestId("runs-count").textContent()).toBe(`${keptRuns} runs`);
    await runsTab.close();
    await item(bea.page, approveId).locator('[data-testid="approve"]').click();
    await item(bea.page, approveId).locator('[data-testid="approval-queued"]').waitFor();
    await item(bea.page, denyId).locator('[data-testid="deny"]').click();
    await item(bea.page, denyId).locator('[data-testid="approval-queued"]').waitFor();
    // The inbox offline says what a decision does now: it waits in this browser (it does not fail).
    await bea.page.locator('.approvals-view [role="status"]', { hasText: "a decision made now waits in this browser and is sent once it reconnects" }).waitFor();
    await bea.page.locator('.shell-nav a[href$="/launch"]').click();
    await bea.page.locator('a[href$="/launch/release"]').first().click();
    await bea.page.locator('[data-testid="launch-form"] [name="service"]').fill("offline-launch");
    await bea.page.locator('[data-testid="launch-submit"]').click();
    const queuedRunId = await bea.page.locator('[data-testid="launch-queued"]').getAttribute("data-run-id");
    expect(queuedRunId).toBeTruthy();
    expect(await bea.page.getByTestId("changes-waiting").textContent()).toContain("3 changes waiting");

    // The tab closed and opened again, still offline: the app comes from the service worker,
    // the rows from this browser, at once; the three changes are still waiting, in order.
    await bea.page.close();
    const page = await bea.context.newPage();
    page.setDefaultTimeout(20_000);
    const shapeRequests: URL[] = [];
    page.on("request", (r) => void (r.url().includes("/sync/acme/") && shapeRequests.push(new URL(r.url()))));
    const opening = Date.now();
    await page.goto(`${team.url}/approvals`);
    await item(page, approveId).locator('[data-testid="approval-queued"]').waitFor();
    const openedInMs = Date.now() - opening;
    await item(page, denyId).locator('[data-testid="approval-queued"]').waitFor();
    const banner = page.getByTestId("last-seen");
    expect(await banner.textContent()).toMatch(/Acme cannot be reached \(neither its Gateway nor its sync answers\)\. Showing what this browser saw .*, as of /);
    expect(await page.getByTestId("changes-waiting").textContent()).toContain("3 changes waiting");
    expect(await page.locator('[data-testid="pending-write"][data-state="waiting"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).toEqual(["approve", "approve", "launch"]);
    await page.locator('.shell-nav a[href$="/runs"]').click();
    await row(page, denyId, "waiting-approval").waitFor();
    await shootThemes(page, "view-team-offline");
    // The table ends with its last row: no empty band under it.
    expect(await page.getByTestId("runs-scroll").evaluate((el) => el.clientHeight - (el.firstElementChild as HTMLElement).offsetHeight)).toBe(0);
    // A run's page this browser never opened, opened offline: its row of the runs list, said to
    // be all it keeps, and no failed query on the console.
    expect(takeConsoleProblems(browser)).toEqual([]);
    await row(page, denyId).locator("a.run-id").click();
    await page.locator('[data-testid="run-status"][data-status="waiting-approval"]').waitFor();
    await page.locator('[data-testid="run-unseen"]').waitFor();
    await page.getByText("Tasks not kept in this browser").waitFor();
    expect(await page.getByTestId("run-not-found").count()).toBe(0);
    // bea denied this release offline: its page shows her decision waiting, not Approve and Deny again.
    const onRunPage = page.locator(`.run-approvals [data-testid="approval"][data-run-id="${denyId}"]`);
    await onRunPage.locator('[data-testid="approval-queued"][data-state="waiting"]').waitFor();
    expect(await onRunPage.getByTestId("approval-queued").textContent()).toContain("Waiting to be sent:");
    expect(await onRunPage.locator('[data-testid="approve"], [data-testid="deny"], [data-testid="approval-note"]').count()).toBe(0);
    await shootThemes(page, "view-team-offline-run");
    expect(takeConsoleProblems(browser)).toEqual([]);
    await page.locator('.shell-nav a[href$="/approvals"]').click();

    // Meanwhile ana approves the release bea denied offline.
    expect((await team.call("ana", "POST", "/v1/api/approvals", { runId: denyId, nodeId: "ship", decision: "approve" })).status).toBe(200);

    await bea.context.setOffline(false);
    const back = Date.now();
    const refused = page.locator('[data-testid="pending-write"][data-state="refused"]');
    await refused.waitFor();
    await page.locator('[data-testid="pending-write"][data-state="waiting"]').first().waitFor({ state: "detached" });
    const deliveredInMs = Date.now() - back;
    expect(await refused.getAttribute("data-code")).toBe("APPROVAL_ALREADY_DECIDED");
    expect(await refused.getByTestId("refusal-reason").textContent()).toMatch(/^ana approved this \d+ (s|min) before your denial arrived\.$/);
    expect(await page.getByTestId("changes-waiting").count()).toBe(0);
    // The shapes resumed from the offset and handle they had kept, and brought what changed
    // meanwhile: both approvals decided, neither in the inbox any more.
    await item(page, denyId).waitFor({ state: "detached" });
    await item(page, approveId).waitFor({ state: "detached" });
    const resumed = shapeRequests.filter((u) => u.pathname.endsWith("/approvals") || u.pathname.endsWith("/runs"));
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.filter((u) => u.searchParams.get("offset") === "-1" || !u.searchParams.get("handle")).map(String)).toEqual([]);
    await shootThemes(page, "view-team-offline-refused");

    // In PostgreSQL: bea's approval and her launch, once each; ana's decision on the other stands.
    const wait = async (runId: string) => (await team.call("ana", "GET", `/v1/api/waits?runId=${runId}&nodeId=ship&status=any`)).body.result[0];
    expect(await wait(approveId)).toMatchObject({ resolution: { approved: true }, resolvedBy: "bea" });
    expect(await wait(denyId)).toMatchObject({ resolution: { approved: true }, resolvedBy: "ana" });
    const runs = (await team.call("ana", "GET", "/v1/api/runs?limit=100")).body.result.runs as Array<{ runId: string; input: { service: string } }>;
    expect(runs.filter((r) => r.input.service === "offline-launch").map((r) => r.runId)).toEqual([queuedRunId]);
    // Dismissed, the refusal is gone for good (the queue in IndexedDB too).
    await refused.getByRole("button", { name: /Dismiss/ }).click();
    await page.getByTestId("pending-writes").waitFor({ state: "detached" });
    console.log(JSON.stringify({ reopenedOfflineMs: openedInMs, deliveredAfterReconnectMs: deliveredInMs }));
  });

  it("shows ana the members as last synced when offline, as of when, with the changes she cannot make offline disabled and saying why", { timeout: 60_000 }, async () => {
    const { team, browser } = t;
    const ana = await signIn(browser, team.url, "ana", "/runs");
    onTestFinished(() => ana.context.close());
    await ana.page.locator('.shell-nav a[href$="/members"]').click();
    await ana.page.locator('[data-testid="member-row"][data-user-id="bea"]').waitFor();
    await until(() => keptShapeRows(ana.page, "members"), (n) => n >= 2, "the members shape kept in IndexedDB");
    await ana.context.setOffline(true);
    await ana.page.locator('.shell-nav a[href$="/runs"]').click();
    await ana.page.locator('.shell-nav a[href$="/members"]').click();
    const offline = ana.page.getByTestId("members-offline");
    await offline.waitFor();
    expect(await offline.textContent()).toMatch(/cannot reach now; this list is as of .+\.$/);
    const bea = ana.page.locator('[data-testid="member-row"][data-user-id="bea"]');
    expect(await bea.getAttribute("data-role")).toBe("approve");
    expect(await ana.page.locator('[data-testid="member-row"][data-user-id="dan"]').getAttribute("data-role")).toBe("read");
    for (const control of [bea.getByLabel("Role of bea"), bea.getByRole("button", { name: "Remove bea" }), ana.page.getByTestId("member-add")]) {
      expect(await control.isDisabled()).toBe(true);
      expect(await control.getAttribute("title")).toBe(await offline.textContent());
    }
    await shootThemes(ana.page, "view-team-members-offline");
  });

  it("does not let dan, who may only read, queue a launch offline", { timeout: 60_000 }, async () => {
    const { team, browser } = t;
    const dan = await signIn(browser, team.url, "dan", "/launch/release");
    onTestFinished(() => dan.context.close());
    await dan.page.locator('[data-testid="launch-form"] [name="service"]').waitFor();
    await dan.context.setOffline(true);
    await dan.page.locator('[data-testid="launch-form"] [name="service"]').fill("not-allowed");
    await dan.page.locator('[data-testid="launch-submit"]').click();
    await dan.page.getByText(/FORBIDDEN: Launching release was not queued: your role in this workspace is read/).waitFor();
    expect(await dan.page.getByTestId("pending-writes").count()).toBe(0);
    expect(await dan.page.getByTestId("changes-waiting").count()).toBe(0);
  });

  it("lists cy's queued launch as refused when he was removed from the workspace while offline", { timeout: 60_000 }, async () => {
    const { team, browser } = t;
    await team.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "cy", role: "launch" });
    const cy = await signIn(browser, team.url, "cy", "/launch/release");
    onTestFinished(() => cy.context.close());
    await cy.page.locator('[data-testid="launch-form"] [name="service"]').waitFor();
    // The app is installed (its service worker holds every view's files) before the network goes:
    // going offline sooner, the runs list's own file could not load.
    await cy.page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    await cy.context.setOffline(true);
    await cy.page.locator('[data-testid="launch-form"] [name="service"]').fill("removed-meanwhile");
    await cy.page.locator('[data-testid="launch-submit"]').click();
    const queuedRunId = await cy.page.getByTestId("launch-queued").getAttribute("data-run-id");
    // The queued launch is a row of the runs list, pending, under the run id it will keep.
    await cy.page.locator('.shell-nav a[href$="/runs"]').click();
    const queuedRow = cy.page.locator(`[data-testid="queued-run"][data-run-id="${queuedRunId}"]`);
    await queuedRow.and(cy.page.locator('[data-state="waiting"]')).waitFor();
    expect(await queuedRow.getByTestId("queued-run-reason").textContent()).toMatch(/^waiting to be sent · made /);
    await team.call("ana", "POST", "/v1/rpc/ext.workspace.removeMember", { userId: "cy" });
    await cy.context.setOffline(false);
    const refused = cy.page.locator('[data-testid="pending-write"][data-state="refused"][data-kind="launch"]');
    await refused.waitFor();
    expect(await refused.getByTestId("refusal-reason").textContent()).toMatch(/no longer|role/);
    // Refused, the row says so with the reason, in the runs list too.
    await queuedRow.and(cy.page.locator('[data-state="refused"]')).waitFor();
    expect(await queuedRow.getByTestId("queued-run-reason").textContent()).toBe(await refused.getByTestId("refusal-reason").textContent());
    const runs = (await team.call("ana", "GET", "/v1/api/runs?limit=100")).body.result.runs as Array<{ input: { service: string } }>;
    expect(runs.some((r) => r.input.service === "removed-meanwhile")).toBe(false);
  });
});
