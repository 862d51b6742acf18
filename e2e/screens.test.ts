/**
 * Every view of the app with data, in the light and the dark theme: saved as PNGs to
 * `docs/app/view-<view>-<theme>.png` (docs/app.md shows them) and checked with axe-core for
 * critical accessibility violations. The data comes from a real app Gateway (e2e/support/seed.ts):
 * finished, waiting and cancelled runs, an approval, memory, scores and crons.
 */
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./support/chromium.js";
import { type AppGateway, startAppGateway } from "./support/gateway.js";
import { type SeededRuns, seedAppData } from "./support/seed.js";

const OUT = fileURLToPath(new URL("../docs/app/", import.meta.url));
const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

interface View {
  name: string;
  path: (runs: SeededRuns) => string;
  /** What shows once the view has its data. */
  ready: (page: Page, runs: SeededRuns) => ReturnType<Page["locator"]>;
  /** Scrolls what `ready` found into view first (a part below the fold). */
  scroll?: boolean;
}

const VIEWS: View[] = [
  { name: "runs", path: () => "/runs", ready: (p, r) => p.locator(`[data-testid="run-row"][data-run-id="${r.waiting}"]`) },
  { name: "run-waiting", path: (r) => `/runs/${r.waiting}`, ready: (p) => p.locator('[data-testid="run-status"][data-status="waiting-approval"]') },
  { name: "run-finished", path: (r) => `/runs/${r.released}`, ready: (p) => p.locator('[data-testid="tree-node"][data-node-id="deploy"][data-state="finished"]') },
  { name: "run-graph-waiting", path: (r) => `/runs/${r.waiting}?tab=graph`, ready: (p) => p.locator('[data-testid="graph-node"][data-node-id="ship"][data-live="true"]'), scroll: true },
  { name: "launch", path: () => "/launch/release", ready: (p) => p.locator('[data-testid="launch-form"] [name="service"]') },
  { name: "approvals", path: () => "/approvals", ready: (p, r) => p.locator(`[data-testid="approval"][data-run-id="${r.waiting}"]`) },
  { name: "memory", path: () => "/memory", ready: (p) => p.getByText("timezone").filter({ visible: true }).first() },
  { name: "scores", path: () => "/scores", ready: (p) => p.getByText("Greeting length").filter({ visible: true }).first() },
  { name: "crons", path: () => "/crons", ready: (p) => p.getByText("nightly-release").filter({ visible: true }).first() },
];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
}

describe("screens of every view, light and dark, with no critical accessibility violations", () => {
  let gw: AppGateway;
  let browser: Browser;
  let runs: SeededRuns;

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
    runs = await seedAppData(gw);
    mkdirSync(OUT, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  for (const theme of ["light", "dark"] as const) {
    it(`${theme}: each view`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme });
      await context.addInitScript((t) => localStorage.setItem("flow:theme", t), theme);
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      const problems: string[] = [];
      try {
        for (const view of VIEWS) {
          await page.goto(`${gw.url}${view.path(runs)}`);
          await view.ready(page, runs).waitFor();
          if (view.scroll) await view.ready(page, runs).scrollIntoViewIfNeeded();
          expect(await page.evaluate(() => document.documentElement.dataset.theme), view.name).toBe(theme);
          await page.screenshot({ path: join(OUT, `view-${view.name}-${theme}.png`), animations: "disabled" });
          for (const v of await axeViolations(page)) if (v.impact === "critical") problems.push(`${view.name}: ${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
        }
      } finally {
        await context.close();
      }
      expect(problems).toEqual([]);
    }, 120_000);
  }
});
