/**
 * Screenshots of the people views (approvals inbox, memory, scores, crons) in light and dark,
 * saved to `docs/app/`, and a check that they work: the script fails when a view does not show
 * what the Gateway holds, when approving, ranking or filling in a human task in the inbox,
 * sending a signal from its form or creating a cron from the form does not take effect, or
 * when axe-core finds a critical accessibility violation (serious ones are printed).
 *
 *   npx tsx e2e/screens/people.ts            # writes docs/app/{approvals,approvals-empty,memory,scores,crons}-{light,dark}.png
 *
 * A Gateway over a fresh SQLite file serves the app's workflows and the people views' dev
 * workflows (e2e/screens/people-workflows.tsx); the Vite dev server serves the app and proxies
 * the domain API to it (vite.app.config.ts).
 */
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { appWorkflows } from "../../examples/app-workflows.js";
import { allowConsole, launchChromium } from "../support/chromium.js";
import { shootThemes, startDevApp, until } from "../support/screens.js";
import { peopleWorkflowSets } from "./people-workflows.js";

const dev = await startDevApp("people", [...appWorkflows, ...peopleWorkflowSets]);
const { app, call, status } = dev;
const launch = async (workflow: string, input: Record<string, unknown>, runId: string, parks = "waiting") => {
  await call("POST", "/v1/api/runs", { workflow, input, runId });
  return until(() => status(runId), (s) => s.startsWith(parks) || s === "finished" || s === "failed", `${runId} to reach ${parks}`);
};

const browser = await launchChromium();
// The ranking below is refused on purpose (APPROVAL_FORBIDDEN): the browser logs that 403.
allowConsole(browser, /HTTP 403 POST \S+\/v1\/api\/approvals /, /status of 403 \(Forbidden\) \(at \S+\/v1\/api\/approvals\)/);
const shots: string[] = [];
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
/** Critical accessibility violations of the page (axe-core); serious ones are printed. */
async function axeProblems(page: Page, name: string): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  const line = (v: (typeof violations)[number]) => `${name}: ${v.impact} ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`;
  for (const v of violations.filter((v) => v.impact === "serious")) console.warn(line(v));
  return violations.filter((v) => v.impact === "critical").map(line);
}
/** Light and dark screenshots of the view, each checked with axe-core. */
async function shoot(page: Page, name: string) {
  shots.push(...(await shootThemes(page, name)));
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => void (document.documentElement.dataset.theme = t), theme);
    failures.push(...(await axeProblems(page, `${name}-${theme}`)));
  }
}
const failures: string[] = [];
const expectThat = (ok: boolean, what: string) => void (ok || failures.push(what));

const page = await browser.newPage({ viewport: { width: 1200, height: 860 } });
try {
  page.on("pageerror", (e) => failures.push(`page error: ${e.message}`));

  // Empty first: nothing waits yet.
  await page.goto(`${app}/approvals`);
  await page.getByText("Nothing waits for you").waitFor();
  await shoot(page, "approvals-empty");

  // Every kind of wait; the inbox shows them live (no reload).
  await launch("release", { service: "api", shards: 3, workMs: 20 }, "rel-api");
  await launch("release", { service: "billing", shards: 2, workMs: 20 }, "rel-billing");
  await launch("expense", { employee: "dan" }, "exp-dan");
  await launch("expense", { employee: "eve" }, "exp-eve");
  await call("POST", "/v1/api/human-tasks", { runId: "exp-eve", nodeId: "claim", value: { amount: 180, category: "equipment", description: "Second monitor" } });
  await until(() => call<unknown[]>("GET", "/v1/api/waits?runId=exp-eve&nodeId=refund"), (w) => w.length === 1, "the refund gate");
  await launch("roadmap", {}, "roadmap-q3");
  await launch("deploy", {}, "deploy-42");
  await page.locator('[data-testid="approval"]').nth(4).waitFor();
  expectThat((await page.locator('[data-testid="approval"]').count()) === 5, "the inbox lists the 5 pending items");
  expectThat((await page.locator('[data-testid="approval"][data-run-id="roadmap-q3"]').getAttribute("data-mode")) === "rank", "the roadmap item is in rank mode");

  // The human task's form, generated from the row's schema: the run goes on to its refund gate.
  const claim = page.locator('[data-testid="approval"][data-run-id="exp-dan"][data-node-id="claim"]');
  await claim.locator('input[name="amount"]').fill("42.5");
  await claim.locator('select[name="category"]').selectOption({ label: "meals" });
  await claim.locator('input[name="description"]').fill("Team lunch");
  await claim.locator('[data-testid="human-submit"]').click();
  await page.locator('[data-testid="approval"][data-run-id="exp-dan"][data-node-id="refund"]').waitFor();
  // Ranking as someone who may not: the refusal stays on the item, with its reason.
  const rank = page.locator('[data-testid="approval"][data-run-id="roadmap-q3"]');
  await rank.getByRole("button", { name: "Move Eval dashboards up" }).click();
  await rank.getByRole("button", { name: "Move Eval dashboards up" }).click();
  expectThat((await rank.locator(".rank-label").allTextContents())[0] === "Eval dashboards", "moving an option up reorders the ranking");
  await rank.locator('[data-testid="rank-submit"]').click();
  await rank.locator(".inline-error").waitFor();
  expectThat((await rank.locator(".inline-error").textContent())!.includes("APPROVAL_FORBIDDEN"), "a refused ranking says why");
  // Approve one from its item, with a note: it leaves the inbox and the run goes on.
  const item = page.locator('[data-testid="approval"][data-run-id="rel-billing"]');
  await item.locator('[data-testid="approval-note"]').fill("tests are green");
  await item.locator('[data-testid="approve"]').click();
  await item.waitFor({ state: "detached" });
  await until(() => status("rel-billing"), (s) => s === "finished", "rel-billing to finish after the approval");
  await page.locator('[data-testid="signal-form"]').waitFor();
  await shoot(page, "approvals");
  // A signal from the form: the deploy run finishes.
  await page.locator('[data-testid="signal-payload"]').fill('{"green": true, "build": "812"}');
  await page.locator('[data-testid="signal-submit"]').click();
  await until(() => status("deploy-42"), (s) => s === "finished", "deploy-42 to finish after the signal");

  // Memory and scores come from review runs; crons from the API and the form.
  for (const [i, words, sentences] of [[1, 40, 3], [2, 75, 4], [3, 20, 1], [4, 90, 6], [5, 55, 2], [6, 66, 5]] as const) {
    await launch("review", { topic: ["release notes", "onboarding", "pricing"][i % 3], words, sentences, employee: i % 2 ? "ana" : "bob" }, `review-${i}`, "finished");
  }
  await page.goto(`${app}/memory?ns=workflow%3Areview`);
  await page.locator('[data-testid="memory-fact"]').first().waitFor();
  await shoot(page, "memory");
  // Note search (full text): only the pricing notes.
  await page.locator('[data-testid="notes-search"]').fill("pricing");
  await until(() => page.locator('[data-testid="memory-note"]').count(), (n) => n === 2, "the search to keep the 2 pricing notes");
  expectThat((await page.locator('[data-testid="memory-note"]').allTextContents()).every((t) => t.includes("pricing")), "note search finds the pricing notes");
  await page.goto(`${app}/scores`);
  await page.locator('[data-testid="scorer"]').first().waitFor();
  expectThat((await page.locator('[data-testid="scorer"]').count()) === 2, "the scores view shows both scorers");
  await shoot(page, "scores");

  await call("POST", "/v1/api/crons", { cronId: "nightly-release", workflow: "release", schedule: "0 2 * * *", input: { service: "api", workMs: 0, shards: 1 } });
  await call("POST", "/v1/api/crons", { cronId: "weekly-roadmap", workflow: "roadmap", schedule: "0 9 * * 1", input: {}, enabled: false });
  await call("POST", "/v1/api/crons/nightly-release/run");
  await page.goto(`${app}/crons`);
  await page.locator('[data-testid="cron-row"]').nth(1).waitFor();
  await page.locator('[data-testid="cron-form"] select[name="workflow"]').selectOption("hello");
  await page.locator('[data-testid="cron-form"] input[name="schedule"]').fill("*/15 * * * *");
  await page.locator('[data-testid="cron-form"] textarea[name="input"]').fill('{"name": "Ada"}');
  await page.locator('[data-testid="cron-form"] button[type="submit"]').click();
  await page.locator('[data-testid="cron-row"]').nth(2).waitFor();
  expectThat((await call<unknown[]>("GET", "/v1/api/crons")).length === 3, "the cron form created a cron");
  await page.locator('[data-testid="cron-row"][data-cron-id="weekly-roadmap"] [data-testid="cron-toggle"]').click();
  await page.locator('[data-testid="cron-row"][data-cron-id="weekly-roadmap"][data-enabled="true"]').waitFor();
  await shoot(page, "crons");
} catch (error) {
  await page.screenshot({ path: "/tmp/flow-people-failed.png" });
  console.error("failed (page at /tmp/flow-people-failed.png):", error);
  failures.push(String(error));
} finally {
  await browser.close();
  await dev.close();
}
for (const f of shots) console.log(JSON.stringify({ screenshot: f }));
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
process.exit(0);
