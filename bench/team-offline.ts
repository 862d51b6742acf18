/**
 * A team workspace offline in Chromium (docs/performance.md "A team workspace offline",
 * issue #28): how long a member's workspace takes to open with no network when it holds
 * 10,000 runs (from `page.goto` to the runs list showing its first rows and the count of all
 * of them, read from the shapes this browser kept in IndexedDB), and how long the writes the
 * member queued offline take to reach the Gateway once the network is back (from
 * `setOffline(false)` to the last one answered, every row checked in PostgreSQL).
 * The team fixture (team Gateway on the test PostgreSQL, Electric stand-in behind the shape
 * proxy, the built app) as in e2e/team-offline.test.ts; the runs are one launched run copied
 * in SQL. One JSON line on stdout.
 *
 *   npx tsx bench/team-offline.ts                      # 10,000 runs, 3 reopens, 5 queued launches
 *   npx tsx bench/team-offline.ts --runs 2000 --reopens 5 --writes 10
 *
 * Fields: runs, reopenMs (each reopen), reopenP50Ms, shellMs (to the header's connection pill)
 * and firstRowMs (to the first run row) of each reopen, clickMs (to a click on the first row's
 * checkbox having selected it: the list is interactive), writes, deliveredMs (reconnect to the
 * queue empty), load (1-minute load average at the end; the machine is shared).
 * What the page itself saw, less dependent on the machine's load than Playwright's round trips:
 * pagePillMs and pageRowMs (from the page's navigation start to the pill and to the first row
 * with the count entering the DOM), longTasksMs (the main thread's tasks over 50 ms until the
 * click was seen, summed), and firstViewKB / firstViewModules (the JavaScript and CSS the first
 * view loads, from the build's dist/app/.first-view.json, vite.app.config.ts).
 * Every wait polls every 10 ms (the row's too: Playwright's default backoff polls a selector
 * 0, 20, 70, 170, 270, then 770 ms after it starts, which rounded a row up by as much as 0.5 s).
 */
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { APP_DIR } from "../e2e/support/app.js";
import { allowConsole, launchChromium } from "../e2e/support/chromium.js";
import { signIn, startTeamApp } from "../e2e/support/team-app.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10000" }, reopens: { type: "string", default: "3" }, writes: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const reopens = Number(values.reopens);
const writes = Number(values.writes);

const [t, browser] = await Promise.all([startTeamApp(), launchChromium()]);
// The sign-in probe before a token is set answers 401 (as in e2e/team.test.ts).
allowConsole(browser, /(status of|HTTP) 401 .*\/v1\/api\/runs\?limit=1/);
const db = new pg.Client({ connectionString: t.storeUrl });
try {
  await db.connect();
  const { runId } = (await t.launch("ana")).body.result as { runId: string };
  const cols = (await db.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '_flow_runs' AND column_name <> 'run_id'")).rows.map((r) => `"${r.column_name}"`);
  await db.query(`INSERT INTO _flow_runs (run_id, ${cols.join(", ")}) SELECT 'bench-' || g, ${cols.map((c) => `t.${c}`).join(", ")} FROM _flow_runs t, generate_series(1, $2::int) g WHERE t.run_id = $1`, [runId, runs - 1]);

  const bea = await signIn(browser, t.url, "bea", "/runs");
  await bea.page.waitForFunction((want) => document.querySelector('[data-testid="runs-count"]')?.textContent?.replace(/\D/g, "") === want, String(runs), { timeout: 120_000 });
  await bea.page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
  // The shape kept in IndexedDB holds every run (saved a moment after the last sync commit).
  await bea.page.waitForFunction(
    (want) =>
      new Promise<boolean>((resolve) => {
        const req = indexedDB.open("flow-last-seen");
        req.onsuccess = () => {
          const all = req.result.transaction("loads").objectStore("loads").getAll();
          all.onsuccess = () => resolve((all.result as Array<{ id: string; value: { count?: number } }>).some((s) => s.id.endsWith(":runs:shape") && s.value.count === want));
        };
        req.onerror = () => resolve(false);
      }),
    runs,
    { timeout: 60_000, polling: 250 },
  );

  // And the runs list's first page with the count of all (kept a second after the list last
  // changed, ui/views/runs-first-page.ts): without it a reopen waits for the whole shape.
  await bea.page.waitForFunction(
    (want) => Object.keys(localStorage).some((k) => k.startsWith("flow-runs-first-page:") && (JSON.parse(localStorage.getItem(k)!) as { count?: number }).count === want),
    runs,
    { timeout: 60_000, polling: 100 },
  );
  await bea.context.setOffline(true);
  // In each reopened page: when the pill, the first row and the count enter the DOM, and its long tasks.
  await bea.context.addInitScript(() => {
    const seen = { marks: {} as Record<string, number>, long: [] as number[] };
    (window as unknown as { __bench: typeof seen }).__bench = seen;
    new PerformanceObserver((list) => void list.getEntries().forEach((e) => seen.long.push(e.duration))).observe({ type: "longtask", buffered: true });
    // Inline callbacks only: tsx names a `const f = () => ...` with a helper the page does not have.
    new MutationObserver(() => {
      if (seen.marks.pill === undefined && document.querySelector('[data-testid="connection-status"]')) seen.marks.pill = performance.now();
      if (seen.marks.row === undefined && document.querySelector('[data-testid="run-row"]') && /\d/.test(document.querySelector('[data-testid="runs-count"]')?.textContent ?? "")) seen.marks.row = performance.now();
    }).observe(document, { childList: true, subtree: true, characterData: true });
  });
  let page = bea.page;
  const reopenMs: number[] = [];
  const shellMs: number[] = [];
  const firstRowMs: number[] = [];
  const clickMs: number[] = [];
  const pagePillMs: number[] = [];
  const pageRowMs: number[] = [];
  const longTasksMs: number[] = [];
  for (let i = 0; i < reopens; i++) {
    await page.close();
    page = await bea.context.newPage();
    const start = Date.now();
    await page.goto(`${t.url}/runs`);
    await page.getByTestId("connection-status").waitFor({ timeout: 60_000 });
    shellMs.push(Date.now() - start);
    await page.waitForFunction(() => document.querySelector('[data-testid="run-row"]') !== null, null, { timeout: 60_000, polling: 10 });
    firstRowMs.push(Date.now() - start);
    await page.waitForFunction((want) => document.querySelector('[data-testid="runs-count"]')?.textContent?.replace(/\D/g, "") === want, String(runs), { timeout: 60_000, polling: 10 });
    reopenMs.push(Date.now() - start);
    // Interactive: a click on the first row's checkbox selects it.
    await page.locator('[data-testid="run-row"]').first().locator('input[type="checkbox"]').click();
    await page.locator('[data-testid="run-row"].selected').first().waitFor({ timeout: 60_000 });
    clickMs.push(Date.now() - start);
    const seen = await page.evaluate(() => (window as unknown as { __bench: { marks: Record<string, number>; long: number[] } }).__bench);
    pagePillMs.push(Math.round(seen.marks.pill!));
    pageRowMs.push(Math.round(seen.marks.row!));
    longTasksMs.push(Math.round(seen.long.reduce((a, b) => a + b, 0)));
  }

  // Queued offline through the launch form, then the network back.
  await page.locator('.shell-nav a[href$="/launch"]').click();
  await page.locator('a[href$="/launch/release"]').first().click();
  for (let w = 0; w < writes; w++) {
    await page.locator('[data-testid="launch-form"] [name="service"]').fill(`queued-${w}`);
    await page.locator('[data-testid="launch-submit"]').click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="pending-write"][data-state="waiting"]').length === n, w + 1);
  }
  await bea.context.setOffline(false);
  const back = Date.now();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="pending-write"]').length === 0, null, { timeout: 60_000, polling: 10 });
  const deliveredMs = Date.now() - back;
  const applied = (await db.query<{ n: string }>("SELECT count(*) AS n FROM _flow_runs WHERE input_json LIKE '%queued-%'")).rows[0]!.n;
  if (Number(applied) !== writes) throw new Error(`${applied} queued launches in PostgreSQL, expected ${writes}`);
  const sorted = [...reopenMs].sort((a, b) => a - b);
  const firstView = (() => {
    try {
      const r = JSON.parse(readFileSync(join(APP_DIR, ".first-view.json"), "utf8")) as { bytes: number; modules: string[] };
      return { firstViewKB: Math.round(r.bytes / 1024), firstViewModules: r.modules.length };
    } catch {
      return {};
    }
  })();
  console.log(JSON.stringify({ bench: "team-offline", runs, reopenMs, reopenP50Ms: sorted[Math.floor(sorted.length / 2)], shellMs, firstRowMs, clickMs, pagePillMs, pageRowMs, longTasksMs, ...firstView, writes, deliveredMs, load: Math.round(loadavg()[0]! * 10) / 10 }));
  await bea.context.close();
} finally {
  await db.end();
  await browser.close();
  await t.close();
}
