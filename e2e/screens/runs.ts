/**
 * Screenshots of the runs list (with runs, empty, 10,000 rows, filtered, a bulk selection) and
 * the launch views (the workflow list, a form, a form with problems), light and dark, saved to
 * `docs/app/`; and a check that they work: the script fails when the list does not show what
 * the Gateway holds, when a filter in the URL or the search does not narrow it, when a run
 * launched from the form does not open at `/runs/<id>`, or when a live change needs a reload.
 *
 *   npx tsx e2e/screens/runs.ts    # writes docs/app/{runs,runs-empty,runs-10k,runs-filtered,runs-bulk,shell-shortcuts,shell-add-gateway,shell-browser,launch,launch-form,launch-invalid,launch-rich}-{light,dark}.png
 *
 * Two Gateways over fresh SQLite files serve the app's workflows: one with a handful of real
 * runs (the app from Vite's dev server in front of it), one with 10,000 (60 real runs, then
 * copies of their rows under new ids: the list reads only run rows) serving the built app
 * (`ui: true`; built first when stale), so its numbers are the production build's. Critical
 * accessibility violations (axe-core) of each view fail it too. It prints one JSON line per
 * measurement (loading and scrolling the 10,000 rows).
 */
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { createDataClient } from "durable-flow/data";
import { appWorkflows } from "../../examples/app-workflows.js";
import { launchWorkflows } from "./launch-workflows.js";
import { runDetailWorkflows } from "./run-detail-workflows.js";
import { allowConsole, launchChromium } from "../support/chromium.js";
import { startAppGateway } from "../support/gateway.js";
import { criticalA11y, finishScreens, shootThemes, startDevApp, until } from "../support/screens.js";

// A few runs: the app served by Vite's dev server in front of a Gateway.
const small = await startDevApp("runs", [...appWorkflows, launchWorkflows, runDetailWorkflows]);
const app = small.app;
// 10,000 runs: the built app served by a Gateway (`ui: true`), so the numbers are the production build's.
const big = await startAppGateway();
const bigData = createDataClient({ mode: { kind: "local", apiBaseUrl: big.url } });
const bigApp = big.url;
const settle = (status: (runId: string) => Promise<string>, runId: string, ok: (s: string) => boolean) => until(() => status(runId), ok, `${runId} to settle`);
const bigStatus = async (runId: string) => (await bigData.api.getRunSummary(runId)).status;

const browser = await launchChromium();
const shots: string[] = [];
const failures: string[] = [];
const expectThat = (ok: boolean, what: string) => void (ok || failures.push(what));
const shoot = async (page: Page, name: string) => void shots.push(...(await shootThemes(page, name)));
const a11y = async (page: Page, view: string) => void failures.push(...(await criticalA11y(page)).map((v) => `${view}: ${v}`));

/** Runs in the page: scrolls the list by `step` per frame and times the frames. (No named functions inside: tsx would wrap them in a helper the page lacks.) */
async function measureScroll(step: "wheel" | "page") {
  const el = document.querySelector('[data-testid="runs-scroll"]') as HTMLElement;
  el.scrollTop = 0;
  await new Promise((r) => requestAnimationFrame(r));
  const frames: number[] = [];
  let last = performance.now();
  const by = step === "wheel" ? 160 : el.clientHeight;
  const end = step === "wheel" ? Math.min(el.scrollHeight, 160 * 600) : el.scrollHeight;
  while (el.scrollTop + el.clientHeight < end - 1) {
    el.scrollTop += by;
    await new Promise((r) => requestAnimationFrame(r));
    const t = performance.now();
    frames.push(t - last);
    last = t;
  }
  frames.sort((a, b) => a - b);
  const [p50Ms, p95Ms, p99Ms] = [0.5, 0.95, 0.99].map((p) => Math.round(frames[Math.min(frames.length - 1, Math.floor(frames.length * p))]! * 10) / 10);
  return { frames: frames.length, p50Ms, p95Ms, p99Ms, over25Ms: frames.filter((f) => f > 25).length };
}
const rowIds = (page: Page) => page.locator('[data-testid="run-row"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));

try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));

  // 1. Empty.
  await page.goto(`${app}/runs`);
  await page.getByText("No runs yet").waitFor();
  expectThat(await page.getByTestId("empty-launch").isVisible(), "the empty list offers to launch a workflow");
  await shoot(page, "runs-empty");
  await a11y(page, "empty runs list");

  // 2. A few real runs of every workflow; the list follows them live.
  await small.call("POST", "/v1/api/runs", { workflow: "release", input: { service: "payments-api", shards: 3, workMs: 50 }, runId: "rel-payments", options: { startedBy: { harness: "claude-code", sessionId: "s-42" } } });
  await settle(small.status, "rel-payments", (s) => s === "waiting-approval");
  for (const [i, name] of ["Ada", "Grace", "Linus", "Margaret"].entries()) {
    await small.call("POST", "/v1/api/runs", { workflow: "hello", input: { name }, runId: `hello-${i + 1}`, options: { startedBy: { harness: "cli" } } });
  }
  await small.call("POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: 40, workMs: 25 }, runId: "pipe-40" });
  await small.call("POST", "/v1/api/runs", { workflow: "release", input: { service: "search", shards: 2, workMs: 20_000 }, runId: "rel-search" });
  await page.locator('[data-testid="run-row"][data-run-id="hello-4"]').waitFor();
  await until(() => page.locator('[data-testid="run-row"][data-run-id="hello-4"]').getAttribute("data-status"), (s) => s === "finished", "hello-4 to show finished without a reload");
  await small.call("POST", "/v1/api/runs/rel-search/cancel", {}).catch(() => undefined);
  await small.call("POST", "/v1/api/runs", { workflow: "hello", input: { name: "Katherine" }, runId: "hello-5" });
  await until(() => rowIds(page), (ids) => ids.length === 8, "8 rows");
  await shoot(page, "runs");
  await a11y(page, "runs list");

  // 3. Filters in the URL, search by input text.
  await page.goto(`${app}/runs?status=waiting&workflow=release`);
  await until(() => rowIds(page), (ids) => ids.join() === "rel-payments", "the URL filter to show rel-payments alone");
  await page.goto(`${app}/runs`);
  await page.locator('[data-testid="run-row"]').first().waitFor();
  await page.keyboard.press("/");
  await page.keyboard.type("grace");
  await until(() => rowIds(page), (ids) => ids.join() === "hello-2", "a search by input text to find hello-2");
  expectThat(new URL(page.url()).searchParams.get("q") === "grace", "the search is kept in the URL");
  await shoot(page, "runs-filtered");

  // 3b. Keyboard: j moves to the second row, Enter opens it.
  await page.goto(`${app}/runs`);
  await page.locator('[data-testid="run-row"]').first().waitFor();
  const second = (await rowIds(page))[1]!;
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await page.keyboard.press("k");
  await page.keyboard.press("Enter");
  await page.waitForURL((u) => u.pathname.endsWith(`/runs/${second}`));

  // 3c. Bulk cancel of a filtered set: three long releases, filtered by their input, all selected, cancelled.
  for (const n of [1, 2, 3]) await small.call("POST", "/v1/api/runs", { workflow: "release", input: { service: `batch-${n}`, shards: 1, workMs: 30_000 }, runId: `batch-${n}` });
  await page.goto(`${app}/runs?q=batch`);
  await until(() => rowIds(page), (ids) => ids.length === 3, "the three batch runs");
  await page.getByTestId("select-all").check();
  await page.getByTestId("bulk-cancel").click();
  // Cancel asks first, saying how many runs end.
  await page.getByTestId("bulk-cancel-dialog").getByRole("button", { name: "Cancel 3 runs" }).click();
  await page.getByTestId("bulk-summary").waitFor();
  expectThat(((await page.getByTestId("bulk-summary").textContent()) ?? "").startsWith("Cancelled 3 runs"), "bulk cancel reports the 3 runs cancelled");
  for (const n of [1, 2, 3]) await settle(small.status, `batch-${n}`, (st) => st === "cancelled");
  await until(() => page.locator('[data-testid="run-row"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-status"))), (st) => st.every((x) => x === "cancelled"), "the rows to show cancelled");

  // 3c'. Bulk resume: a run that failed (flaky fails its first 3 attempts) is resumed from the list and finishes.
  await small.call("POST", "/v1/api/runs", { workflow: "flaky", input: { failTimes: 3 }, runId: "flaky-1" });
  await settle(small.status, "flaky-1", (st) => st === "failed");
  await page.goto(`${app}/runs?status=failed&q=flaky-1`);
  await until(() => rowIds(page), (ids) => ids.join() === "flaky-1", "the failed flaky run");
  await page.locator('[data-run-id="flaky-1"] input[type="checkbox"]').check();
  await page.getByTestId("bulk-resume").click();
  await page.getByTestId("bulk-summary").waitFor();
  expectThat(((await page.getByTestId("bulk-summary").textContent()) ?? "").startsWith("Resumed 1 run"), "bulk resume reports the run resumed");
  await settle(small.status, "flaky-1", (st) => st === "finished");

  // 3d. Parent and child runs: an order pays in a child run, then continues as a new run.
  await small.call("POST", "/v1/api/runs", { workflow: "order", input: { rounds: 1 }, runId: "ord-1" });
  await settle(small.status, "ord-1", (st) => st === "continued");
  await page.goto(`${app}/runs?workflow=order`);
  await page.locator('[data-run-id="ord-1"] .runs-related').first().waitFor();
  await page.goto(`${app}/runs`);
  // (The run ord-1 continued as runs at once too, with a child run of its own.)
  const childOfOrder = page.locator('[data-run-id="ord-1/pay@0"] [data-testid="parent-link"]');
  await childOfOrder.waitFor();
  expectThat(((await childOfOrder.getAttribute("href")) ?? "").endsWith("/runs/ord-1"), "a child run links its parent order");

  // 4. Bulk selection: select all shown of `hello`, cancel applies to none (all finished).
  await page.goto(`${app}/runs?workflow=hello`);
  await page.locator('[data-testid="run-row"]').first().waitFor();
  await page.getByTestId("select-all").check();
  await page.getByTestId("selected-count").waitFor();
  expectThat((await page.getByTestId("selected-count").textContent())?.startsWith("5") ?? false, "select all takes the 5 shown runs");
  expectThat(await page.getByTestId("bulk-cancel").isDisabled(), "cancel is off when no selected run can be cancelled");
  await shoot(page, "runs-bulk");
  await a11y(page, "bulk bar");

  // 4b. The shell: shortcuts help, and "Add a Gateway…" refusing an address nothing answers at.
  await page.goto(`${app}/runs`);
  await page.locator('[data-testid="run-row"]').first().waitFor();
  await page.keyboard.press("?");
  await page.getByTestId("shortcuts-help").waitFor();
  await shoot(page, "shell-shortcuts");
  await a11y(page, "shortcuts help");
  await page.keyboard.press("Escape");
  await page.getByTestId("workspace-switcher").selectOption("__add");
  await page.getByTestId("add-gateway").waitFor();
  // Nothing answers at port 9 on purpose: the browser logs the refused request.
  allowConsole(browser, /127\.0\.0\.1:9\/health/);
  await page.locator('[data-testid="add-gateway"] input[name="url"]').fill("127.0.0.1:9");
  await page.locator('[data-testid="add-gateway"] button[type="submit"]').click();
  await page.locator(".ws-problem").waitFor();
  expectThat(((await page.locator(".ws-problem").textContent()) ?? "").includes("No answer from http://127.0.0.1:9"), "Add a Gateway says nothing answers at a closed port");
  await shoot(page, "shell-add-gateway");
  await a11y(page, "add a Gateway");
  await page.keyboard.press("Escape");

  // 4c. "This browser": the engine starts in a worker; the header says where its data lives and this tab's role.
  await page.getByTestId("workspace-switcher").selectOption("browser");
  await page.getByTestId("engine-info").waitFor({ timeout: 60_000 });
  await until(() => page.getByTestId("engine-info").textContent(), (t) => /^(OPFS|IndexedDB) · this tab runs the engine$/.test(t ?? ""), "the browser workspace to say where its data lives and that this tab runs the engine", 60_000);
  await page.getByText("No runs yet").waitFor();
  await until(() => page.getByTestId("connection-status").getAttribute("data-status"), (s) => s === "local", "the pill to say this browser", 30_000);
  await shoot(page, "shell-browser");
  await a11y(page, "browser workspace");
  await page.getByTestId("workspace-switcher").selectOption(`gateway:${app}`);
  await page.locator('[data-testid="run-row"]').first().waitFor();

  // 5. Launch: the list of workflows, a form, problems shown per field, then a launch.
  await page.goto(`${app}/launch`);
  await page.getByTestId("launch-workflow").first().waitFor();
  await shoot(page, "launch");
  await a11y(page, "launch list");
  await page.goto(`${app}/launch/release`);
  await page.getByTestId("launch-form").waitFor();
  await page.locator('input[name="shards"]').fill("99");
  await page.getByTestId("launch-submit").click();
  await page.locator('[data-testid="field-problem"]').first().waitFor();
  await shoot(page, "launch-invalid");
  await a11y(page, "launch form with problems");
  await page.locator('input[name="service"]').fill("checkout");
  await page.locator('input[name="shards"]').fill("2");
  await page.locator('input[name="workMs"]').fill("10");
  expectThat((await page.locator('[data-testid="field-problem"]').count()) === 0, "fixed fields lose their problems as they are edited");
  await shoot(page, "launch-form");
  await a11y(page, "launch form");
  await page.getByTestId("launch-submit").click();
  await page.waitForURL(/\/runs\/[^/?]+$/);
  const launched = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  const row = await small.call<{ input: unknown; workflowKey: string }>("GET", `/v1/api/runs/${launched}?view=summary`);
  expectThat(row.workflowKey === "release" && JSON.stringify(row.input) === JSON.stringify({ service: "checkout", shards: 2, workMs: 10 }), `the form launched release with its input (got ${JSON.stringify(row)})`);
  // A form with every kind of field (deploy): a list of enums, a nested group, JSON.
  await page.goto(`${app}/launch/deploy`);
  await page.getByTestId("launch-form").waitFor();
  await page.locator('select[name="target"]').selectOption('"production"');
  await page.locator('input[name="version"]').fill("2.4.1");
  await page.getByRole("button", { name: "+ Add one" }).first().click();
  await page.locator('select[name="regions"]').first().selectOption('"eu-west"');
  await page.locator('input[name="notify.channel"]').fill("#deploys");
  await shoot(page, "launch-rich");
  await a11y(page, "launch form (every kind of field)");
  await page.getByTestId("launch-submit").click();
  await page.waitForURL(/\/runs\/[^/?]+$/);
  const deployed = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
  const deployRow = await small.call<{ input: unknown }>("GET", `/v1/api/runs/${deployed}?view=summary`);
  expectThat(JSON.stringify(deployRow.input) === JSON.stringify({ target: "production", version: "2.4.1", replicas: 2, regions: ["eu-west"], notify: { channel: "#deploys" } }), `the deploy form launched with its input (got ${JSON.stringify(deployRow.input)})`);

  // Re-run with this input: the form is filled from the run.
  await page.goto(`${app}/launch/release?from=${encodeURIComponent(launched)}`);
  await until(() => page.locator('input[name="service"]').inputValue(), (v) => v === "checkout", "re-run to prefill the service");

  // 6. 10,000 runs: real ones, then copies of their rows. (The first page closes: nothing else
  // runs in the browser while the list is timed.)
  await page.close();
  for (let i = 0; i < 60; i++) await bigData.api.launchRun({ workflow: i % 3 === 0 ? "pipeline" : "hello", input: i % 3 === 0 ? { tasks: 3 } : { name: `user-${i}` }, runId: `seed-${String(i).padStart(2, "0")}` });
  for (let i = 0; i < 60; i++) await settle(bigStatus, `seed-${String(i).padStart(2, "0")}`, (s) => s === "finished");
  const db = new Database(big.dbPath);
  const cols = (db.prepare("PRAGMA table_info(_flow_runs)").all() as Array<{ name: string }>).map((c) => c.name);
  const select = cols.map((c) => (c === "run_id" ? `'copy-' || printf('%05d', n) || '-' || run_id` : c === "created_at_ms" ? `created_at_ms - n * 61000` : c === "updated_at_ms" ? `updated_at_ms - n * 61000` : c === "finished_at_ms" ? `finished_at_ms - n * 61000` : c)).join(", ");
  db.prepare(`WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${Math.ceil(9940 / 60)}) INSERT INTO _flow_runs (${cols.join(", ")}) SELECT ${select} FROM _flow_runs, seq LIMIT 9940`).run();
  const total = (db.prepare("SELECT COUNT(*) AS n FROM _flow_runs").get() as { n: number }).n;
  db.close();
  expectThat(total === 10_000, `10,000 runs stored (got ${total})`);

  const bigPage = await context.newPage();
  bigPage.on("pageerror", (e) => failures.push(`page error (10k): ${e.message}`));
  // The longest frame while the list loads (Long Animation Frames): how long the page is stuck.
  await bigPage.addInitScript(() => {
    const w = window as unknown as { __longestFrameMs: number };
    w.__longestFrameMs = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longestFrameMs = Math.max(w.__longestFrameMs, Math.round(e.duration));
    }).observe({ type: "long-animation-frame", buffered: true });
  });
  const started = Date.now();
  await bigPage.goto(`${bigApp}/runs`);
  await until(() => bigPage.getByTestId("runs-count").textContent(), (t) => t === "10,000 runs", "10,000 runs to load", 60_000);
  const loadMs = Date.now() - started;
  await bigPage.waitForTimeout(1500); // let the load's last work (and its garbage) settle before timing scrolls
  const longestFrameMs = await bigPage.evaluate(() => (window as unknown as { __longestFrameMs: number }).__longestFrameMs);
  const rendered = await bigPage.locator('[data-testid="run-row"]').count();
  expectThat(rendered < 80, `only the rows in view are in the page (${rendered})`);
  // Scroll through all of it: wheel-like (160 px a frame) and a screen a frame, timing each frame.
  // The control scrolls a static page of the same size the same way: on a busy machine it
  // shows how many slow frames are the machine's, not the list's.
  // (One page at a time in front: a page behind another gets no animation frames.)
  const scrolls = async (target: Page, name: string) => {
    await target.bringToFront();
    for (const step of ["wheel", "page"] as const) {
      const scroll = await target.evaluate(measureScroll, step);
      console.log(JSON.stringify({ bench: `app.runs-list-10k.scroll-${step}${name}`, runs: total, renderedRows: rendered, ...scroll }));
    }
  };
  await scrolls(bigPage, "");
  const control = await context.newPage();
  await control.setContent(`<div data-testid="runs-scroll" style="height:560px;overflow:auto"><div style="height:${total * 44}px;background:repeating-linear-gradient(#fff 0 43px,#ddd 43px 44px)"></div></div>`);
  await scrolls(control, ".control");
  await control.close();
  await bigPage.bringToFront();
  console.log(JSON.stringify({ bench: "app.runs-list-10k.load", runs: total, loadMs, longestFrameMs }));
  await bigPage.evaluate(() => ((document.querySelector('[data-testid="runs-scroll"]') as HTMLElement).scrollTop = 0));
  await bigPage.keyboard.press("j");
  await bigPage.keyboard.press("j");
  await shoot(bigPage, "runs-10k");
  await a11y(bigPage, "10,000 runs");
  await bigPage.getByTestId("runs-search").fill("user-7");
  await until(() => bigPage.getByTestId("runs-count").textContent(), (t) => !!t && t.endsWith("of 10,000") && !t.startsWith("0 "), "a search over 10,000 runs");
} finally {
  await browser.close();
  bigData.close();
  await small.close();
  await big.close();
}
finishScreens(shots, failures);
