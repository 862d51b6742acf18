/**
 * Screenshots of the run detail view (a running, a waiting and a failed run, light and dark),
 * saved to `docs/app/`, and a check that the view works: the script fails when the view does
 * not show what the Gateway holds, or when an action taken from it (approve, retry, cancel)
 * does not take effect, or when a live change needs a reload to show.
 *
 *   npx tsx e2e/screens/run-detail.ts    # writes docs/app/run-detail{,-running,-failed,-events}-{light,dark}.png
 *
 * A Gateway over a fresh SQLite file serves the app's workflows and `flaky`
 * (e2e/screens/run-detail-workflows.tsx); the Vite dev server serves the app and proxies the
 * domain API to it (e2e/support/screens.ts).
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { appWorkflows } from "../../examples/app-workflows.js";
import { allowConsole, launchChromium } from "../support/chromium.js";
import { criticalA11y, finishScreens, shootThemes, startDevApp, until } from "../support/screens.js";
import { openRolloutGate, runDetailWorkflows } from "./run-detail-workflows.js";

const dev = await startDevApp("run-detail", [...appWorkflows, runDetailWorkflows]);
const { app, call, status } = dev;
const launch = async (workflow: string, input: Record<string, unknown>, runId: string, settled: (s: string) => boolean) => {
  await call("POST", "/v1/api/runs", { workflow, input, runId });
  return until(() => status(runId), settled, `${runId} to settle`);
};

const VIEWPORT = { width: 1280, height: 900 };
const browser = await launchChromium();
// The Gateway answers 404 for the run it does not have (the not-found check below): only those.
allowConsole(browser, /404.*\/v1\/api\/runs\/no-such-run\b/);
const shots: string[] = [];
const failures: string[] = [];
/** Light and dark screenshots, each theme checked for critical accessibility violations. */
const shoot = async (page: Page, name: string) => {
  shots.push(...(await shootThemes(page, name)));
  failures.push(...(await criticalA11y(page)).map((v) => `${name}: ${v}`));
};
const expectThat = (ok: boolean, what: string) => void (ok || failures.push(what));
const runStatus = (page: Page) => page.locator('[data-testid="run-status"]').getAttribute("data-status");
const nodeState = (page: Page, nodeId: string) => page.locator(`[data-testid="tree-node"][data-node-id="${nodeId}"]`).getAttribute("data-state");
const waitStatus = (page: Page, s: string) => page.locator(`[data-testid="run-status"][data-status="${s}"]`).waitFor({ timeout: 20_000 });

const page = await browser.newPage({ viewport: VIEWPORT });
try {
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));

  // Not found, then loading a real run.
  await page.goto(`${app}/runs/no-such-run`);
  await page.locator('[data-testid="run-not-found"]').waitFor();

  // A waiting run: the approval shows, Pause is off with its reason.
  await launch("release", { service: "checkout", shards: 4, workMs: 120 }, "rel-checkout", (s) => s === "waiting-approval");
  await page.goto(`${app}/runs/rel-checkout`);
  await waitStatus(page, "waiting-approval");
  expectThat((await page.locator('[data-testid="tree-node"]').count()) === 7, "the waiting release shows its 7 tasks");
  expectThat((await nodeState(page, "ship")) === "waiting-approval", "ship shows waiting-approval");
  expectThat((await page.locator('[data-testid="node-panel"]').getAttribute("data-node-id")) === "ship", "the panel opens on what the run waits on");
  expectThat((await page.locator('[data-testid="run-pause"]').getAttribute("aria-disabled")) === "true", "pause is off for a waiting run");
  await page.locator('[data-testid="approval"][data-node-id="ship"]').waitFor();
  await shoot(page, "run-detail");

  // A running run, live: its check `e2e` is held in progress until the screenshot is taken, then
  // its state changes with no reload.
  await call("POST", "/v1/api/runs", { workflow: "rollout", input: {}, runId: "roll-search" });
  await page.goto(`${app}/runs/roll-search`);
  await page.locator('[data-testid="tree-node"][data-node-id="e2e"][data-state="in-progress"]').waitFor({ timeout: 20_000 });
  for (const done of ["lint", "unit"]) await page.locator(`[data-testid="tree-node"][data-node-id="${done}"][data-state="finished"]`).waitFor({ timeout: 20_000 });
  expectThat((await runStatus(page)) === "running", "roll-search shows running");
  await shoot(page, "run-detail-running");
  // Keyboard focus on the tree, active row `build`: live updates leave both alone.
  await page.locator('[role="tree"]').focus();
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowDown");
  openRolloutGate();
  await waitStatus(page, "waiting-approval");
  const focused = await page.evaluate(() => {
    const tree = document.activeElement;
    const active = tree?.getAttribute("aria-activedescendant");
    return tree?.getAttribute("role") === "tree" && active ? (document.getElementById(active)?.dataset.nodeId ?? "no row") : `focus on ${tree?.tagName}`;
  });
  expectThat(focused === "build", `the tree keeps the focus and its active row through live updates (got ${focused})`);

  // Approve from the run's page: the run finishes, live.
  await page.locator('[data-testid="approval-note"]').fill("shards green");
  await page.locator('[data-testid="approve"]').click();
  await waitStatus(page, "finished");
  expectThat((await nodeState(page, "deploy")) === "finished", "deploy finished after the approval");

  // A failed run: 3 failed attempts with backoff between them.
  await launch("flaky", { failTimes: 3 }, "pay-7f3a", (s) => s === "failed");
  await page.goto(`${app}/runs/pay-7f3a`);
  await waitStatus(page, "failed");
  expectThat((await page.locator('[data-testid="node-panel"]').getAttribute("data-node-id")) === "charge", "the panel opens on the failed task");
  expectThat((await page.locator('[data-testid="attempt"][data-state="failed"]').count()) === 3, "charge lists 3 failed attempts");
  expectThat((await page.locator('[data-testid="timeline-row"][data-node-id="charge"] [data-kind="retry"]').count()) === 2, "the timeline shows 2 retry backoffs");
  await shoot(page, "run-detail-failed");

  // The event log, filtered by type (kept in the URL).
  await page.getByRole("tab", { name: /Events/ }).click();
  await page.locator('[data-testid="events-type"]').selectOption("TaskFailed");
  await page.locator('[data-testid="event"]').nth(2).waitFor();
  expectThat((await page.locator('[data-testid="event"]').count()) === 3, "the TaskFailed filter shows 3 events");
  expectThat(new URL(page.url()).searchParams.get("evtype") === "TaskFailed", "the event filter is in the URL");
  await page.locator('[data-testid="event"] button').first().click();
  await shoot(page, "run-detail-events");

  // Deep link to a node, and keyboard navigation in the tree.
  await page.goto(`${app}/runs/pay-7f3a?node=fetch&iteration=0`);
  await page.locator('[data-testid="node-panel"][data-node-id="fetch"]').waitFor();
  await page.locator('[role="tree"]').focus(); // the active row is the selected one, fetch
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await page.locator('[data-testid="node-panel"][data-node-id="charge"]').waitFor();
  expectThat(new URL(page.url()).searchParams.get("node") === "charge", "Enter on a tree node selects it in the URL");

  // Retry the failed task from its panel: the run finishes, the failed attempts stay.
  await page.locator('[data-testid="retry"]').click();
  await page.locator('[data-testid="retry-dialog"]').waitFor();
  failures.push(...(await criticalA11y(page)).map((v) => `retry dialog: ${v}`));
  await page.locator('[data-testid="retry-dialog"] [data-testid="confirm"]').click();
  await waitStatus(page, "finished");
  await page.locator('[data-testid="attempt"][data-state="finished"]').waitFor();
  expectThat((await page.locator('[data-testid="attempt"]').count()) === 4, "charge keeps its 3 failed attempts beside the 4th");

  // Rewind the finished run to notify's attempt: it runs again, its first attempt kept.
  await page.goto(`${app}/runs/pay-7f3a?node=notify&iteration=0`);
  await page.locator('[data-testid="node-panel"][data-node-id="notify"] [data-testid="attempt"]').first().waitFor();
  await page.locator('[data-testid="rewind"]').first().click();
  await page.locator('[data-testid="rewind-dialog"]').getByText("Nothing is erased from the record.").waitFor();
  await page.locator('[data-testid="rewind-dialog"] [data-testid="confirm"]').click();
  await page.locator('[data-testid="node-panel"][data-node-id="notify"] [data-testid="attempt"]').nth(1).waitFor();
  await waitStatus(page, "finished");
  expectThat((await page.locator('[data-testid="attempt"][data-state="finished"]').count()) === 2, "notify keeps its first attempt beside the one the rewind ran");

  // Linked runs: a Subflow's child run and the run a ContinueAsNew started, both ways.
  await launch("order", { rounds: 1 }, "ord-1", (s) => s === "continued");
  await page.goto(`${app}/runs/ord-1`);
  await waitStatus(page, "continued");
  const next = (await call<{ nextRunId: string }>("GET", "/v1/api/runs/ord-1?view=summary")).nextRunId;
  await page.locator(`a[href$="/runs/${encodeURIComponent(next)}"]`).waitFor();
  await page.locator(`a[href$="/runs/${encodeURIComponent("ord-1/pay@0")}"]`).first().click();
  await page.locator('[data-testid="run-status"]').waitFor();
  expectThat((await page.locator(".run-header-id").innerText()) === "ord-1/pay@0", "the child run's link opens the child run");
  await page.locator(`a[href$="/runs/ord-1"]`).last().click();
  await waitStatus(page, "continued");

  // Cancel a long run from its page (long enough to be still running however slow the steps
  // before the cancel are: it would take 150 s).
  // Its event log follows new events at the bottom, and stays put once scrolled up.
  await call("POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks: 1000, workMs: 150 }, runId: "pipe-long" });
  await page.goto(`${app}/runs/pipe-long?tab=events`);
  await waitStatus(page, "running");
  const log = page.locator('[data-testid="event-log"]');
  const seqs = () => log.locator('[data-testid="event"]').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.seq)));
  const atBottom = () => log.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 40);
  await until(seqs, (s) => Math.max(...s) >= 40, "40 events of pipe-long in the log");
  await page.waitForTimeout(150);
  expectThat(await atBottom(), "the event log follows new events at the bottom");
  await log.evaluate((el) => el.scrollTo({ top: 0 }));
  await page.getByRole("button", { name: /Jump to latest/ }).waitFor();
  const lastSeq = async () => (await call<{ lastSeq: number }>("GET", "/v1/api/runs/pipe-long/events?afterSeq=0&limit=10000")).lastSeq;
  const before = await lastSeq();
  await until(lastSeq, (n) => n >= before + 6, "more events of pipe-long");
  await page.waitForTimeout(300);
  expectThat((await log.evaluate((el) => el.scrollTop)) === 0, "a log scrolled up stays put as events arrive");
  await page.locator('[data-testid="run-cancel"]').click();
  await page.locator('[data-testid="run-action-dialog"] [data-testid="confirm"]').click();
  await waitStatus(page, "cancelled");
  expectThat((await status("pipe-long")) === "cancelled", "the Gateway has pipe-long cancelled");
} catch (error) {
  // Say where the page was when a step timed out.
  const file = join(tmpdir(), "run-detail-failure.png");
  await page.screenshot({ path: file }).catch(() => undefined);
  failures.push(`${(error as Error).message.split("\n")[0]} (page ${page.url()}, screenshot ${file})`);
} finally {
  await browser.close();
  await dev.close();
}
finishScreens(shots, failures);
