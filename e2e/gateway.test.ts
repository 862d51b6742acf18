/**
 * Issue #13, test 1: the app against a real Gateway (in this process, over a temp SQLite file,
 * serving the built app) in Debian's Chromium. Three pages of one browser, none reloaded after
 * it opened: A launches a `release` run from the form and watches its task tree change state
 * live; B (the runs list) and C (the approvals inbox) were open before the launch. C approves
 * the run's `ship` approval; A and B see the run finish. Steps are separate tests (in order)
 * so a report names the part that fails. The app's conventions: docs/app.md, data-testid names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { allowConsole, launchChromium } from "./support/chromium.js";
import { type AppGateway, startAppGateway } from "./support/gateway.js";

/**
 * Records, from the first paint on, every state a tree node, the run status and a run row
 * show (`node:<id>:<state>`, `run:<status>`, `row:<runId>:<status>`), skipping repeats.
 * A reload would start the list again, so a list that still holds its first entries also
 * proves the page was never reloaded.
 */
const RECORDER = `
  window.__seen = [];
  window.__openedAt = performance.timeOrigin;
  const push = (s) => { if (window.__seen[window.__seen.length - 1] !== s && !window.__seen.includes(s)) window.__seen.push(s); };
  const rec = (el) => {
    if (!(el instanceof Element)) return;
    const d = el.dataset || {};
    if (d.testid === "tree-node") push("node:" + d.nodeId + ":" + d.state);
    else if (d.testid === "run-status") push("run:" + d.status);
    else if (d.testid === "run-row") push("row:" + d.runId + ":" + d.status);
  };
  const scan = (root) => { rec(root); if (root.querySelectorAll) root.querySelectorAll("[data-testid]").forEach(rec); };
  new MutationObserver((muts) => {
    for (const m of muts) {
      if (m.type === "attributes") rec(m.target);
      else m.addedNodes.forEach(scan);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state", "data-status", "data-testid"] });
`;

const seen = (page: Page) => page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.slice());
const openedAt = (page: Page) => page.evaluate(() => (window as unknown as { __openedAt: number }).__openedAt);

describe("the app against a Gateway (issue #13, test 1)", () => {
  let gw: AppGateway;
  let browser: Browser;
  let context: BrowserContext;
  let a: Page;
  let b: Page;
  let c: Page;
  let runId = "";
  const opened = new Map<Page, number>();

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
    context = await browser.newContext();
    await context.addInitScript(RECORDER);
    [a, b, c] = await Promise.all([context.newPage(), context.newPage(), context.newPage()]);
    for (const p of [a, b, c]) p.setDefaultTimeout(30_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("opens the runs list and the inbox from the Gateway, connected", async () => {
    await Promise.all([b.goto(`${gw.url}/runs`), c.goto(`${gw.url}/approvals`)]);
    for (const p of [b, c]) {
      await p.locator('[data-testid="connection-status"]').waitFor();
      opened.set(p, await openedAt(p));
    }
    await expect.poll(() => b.locator('[data-testid="connection-status"]').textContent(), { timeout: 30_000 }).toMatch(/online|connected/i);
  });

  it("launches a release run from the form and lands on its page", async () => {
    await a.goto(`${gw.url}/launch/release`);
    const form = a.locator('[data-testid="launch-form"]');
    await form.locator('[name="service"]').fill("api");
    await form.locator('[name="shards"]').fill("3");
    await form.locator('[name="workMs"]').fill("700");
    await a.locator('[data-testid="launch-submit"]').click();
    await a.waitForURL(/\/runs\/[^/?#]+/);
    runId = decodeURIComponent(/\/runs\/([^/?#]+)/.exec(a.url())![1]!);
    opened.set(a, await openedAt(a));
    const run = await (await fetch(`${gw.url}/v1/rpc/getRun`, { method: "POST", body: JSON.stringify({ runId }) })).json();
    expect(run).toMatchObject({ ok: true, result: { runId, workflowKey: "release", input: { service: "api", shards: 3, workMs: 700 }, startedBy: { harness: "console" } } });
    // Launched from the console with no sign-in: the header says so rather than "—".
    await expect.poll(() => a.locator('dt:text-is("Started by") + dd').textContent()).toBe("console");
  });

  it("shows the run's tasks change state live, up to its approval", async () => {
    expect(runId).not.toBe("");
    await a.locator('[data-testid="run-status"][data-status="waiting-approval"]').waitFor();
    await a.locator('[data-testid="tree-node"][data-node-id="build"][data-state="finished"]').waitFor();
    const states = await seen(a);
    // Some task was shown unfinished, then finished, in the same page.
    const live = ["build", "test-0", "test-1", "test-2"].filter((id) => states.some((s) => s.startsWith(`node:${id}:`) && !s.endsWith(":finished")) && states.includes(`node:${id}:finished`));
    expect(live.length, `states seen: ${states.join(", ")}`).toBeGreaterThan(0);
    expect(states.indexOf("run:waiting-approval")).toBeGreaterThan(-1);
    // The runs list opened before the launch got the row, and its status changes, live.
    await b.locator(`[data-testid="run-row"][data-run-id="${runId}"][data-status="waiting-approval"]`).waitFor();
  });

  it("approves the ship approval in the inbox (opened before the run asked), with a note", async () => {
    const item = c.locator(`[data-testid="approval"][data-run-id="${runId}"][data-node-id="ship"]`);
    await item.waitFor();
    await expect.poll(() => c.locator('[data-testid="approvals-badge"]').textContent(), { timeout: 30_000 }).toMatch(/[1-9]/);
    await item.locator('[data-testid="approval-note"]').fill("ship it");
    await item.locator('[data-testid="approve"]').click();
    await item.waitFor({ state: "detached" });
    const row = (await (await fetch(`${gw.url}/v1/api/runs/${encodeURIComponent(runId)}/nodes/ship/output`)).json()) as { result: { row: Record<string, unknown> | null } };
    expect(row.result.row).toMatchObject({ approved: true, note: "ship it" });
  });

  it("the run page and the runs list see it finish, live, never reloaded", async () => {
    await a.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
    await a.locator('[data-testid="tree-node"][data-node-id="deploy"][data-state="finished"]').waitFor();
    await b.locator(`[data-testid="run-row"][data-run-id="${runId}"][data-status="finished"]`).waitFor();
    const [sa, sb] = [await seen(a), await seen(b)];
    expect(sa.indexOf("run:waiting-approval")).toBeLessThan(sa.indexOf("run:finished"));
    expect(sb.indexOf(`row:${runId}:waiting-approval`)).toBeLessThan(sb.indexOf(`row:${runId}:finished`));
    for (const [p, at] of opened) expect(await openedAt(p)).toBe(at);
  });
});

describe("the console of a Gateway with auth", () => {
  let gw: AppGateway;
  let browser: Browser;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startAppGateway({ options: { auth: { mode: "token", tokens: { s3cret: { role: "operator", scopes: ["*"] } } } } }), launchChromium()]);
    // The test sends no token, then a wrong one, on purpose: the 401s are the point.
    allowConsole(browser, /HTTP 401 /, /status of 401/);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("serves the page without a token, asks for one when the API answers 401, refuses a wrong one, and remembers the right one", async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${gw.url}/console/runs`);
    const prompt = page.locator('[data-testid="token-prompt"]');
    await expect.poll(() => prompt.textContent()).toMatch(/needs a token/);
    await page.locator('[data-testid="token-input"]').fill("wrong");
    await page.locator('[data-testid="token-submit"]').click();
    await expect.poll(() => prompt.textContent()).toMatch(/refused the saved token/);
    await page.locator('[data-testid="token-input"]').fill("s3cret");
    await page.locator('[data-testid="token-submit"]').click();
    await prompt.waitFor({ state: "detached" });
    await expect.poll(() => page.locator('[data-testid="connection-status"]').textContent()).toMatch(/online/i);
    await page.reload();
    await expect.poll(() => page.locator('[data-testid="connection-status"]').textContent()).toMatch(/online/i);
    expect(await prompt.count()).toBe(0);
    await page.close();
  });
});
