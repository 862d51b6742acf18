/**
 * @module e2e/support/screens
 * What the screenshot scripts (`e2e/screens/*.ts`) share: a Gateway over a fresh SQLite file
 * with the given workflow sets, the app served by Vite's dev server with the domain API
 * proxied to that Gateway (vite.app.config.ts), typed calls of the API, polling until a
 * condition holds, scrolling an element into sight across re-renders, light + dark screenshots of the whole main area into `docs/app/`, and
 * axe-core's critical accessibility violations of a page.
 */
import { mkdirSync, mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { bindWorkflows, Gateway, type WorkflowSet } from "durable-flow";
import { domainApi } from "./domain-api.js";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Where the screenshots go.
 * @example
 * console.log(`screenshots in ${SCREENS_DIR}`);
 */
export const SCREENS_DIR = join(root, "docs/app");

/** A Gateway and the dev-served app in front of it. */
export interface DevApp {
  /** The Gateway's origin (the domain API). */
  api: string;
  /** The app's origin (Vite's dev server). */
  app: string;
  /** A domain API call; throws with the code and message when the envelope is an error. */
  call<T = any>(method: "GET" | "POST", path: string, body?: unknown): Promise<T>;
  /** A run's status (`?view=summary`). */
  status(runId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a Gateway with `sets` on a fresh SQLite file and the app's dev server in front of it.
 * @example
 * const dev = await startDevApp("run-detail", [...appWorkflows, myWorkflows]);
 * await page.goto(`${dev.app}/runs`);
 * await dev.close();
 */
export async function startDevApp(name: string, sets: WorkflowSet[]): Promise<DevApp> {
  const dir = mkdtempSync(join(tmpdir(), `flow-${name}-`));
  const dbPath = join(dir, "flow.db");
  const gateway = new Gateway({ workspaceRoot: dir });
  for (const set of sets) for (const [key, workflow] of Object.entries(bindWorkflows(set, { dbPath }))) gateway.register(key, workflow);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.FLOW_DEV_GATEWAY = api;
  const { createServer } = await import("vite");
  // No file watching and no HMR: others edit ui/ while a script runs, and a hot update midway
  // re-instantiates modules (a view then finds a context of another instance).
  const vite = await createServer({ configFile: join(root, "vite.app.config.ts"), server: { port: 0, host: "127.0.0.1", hmr: false, watch: null }, logLevel: "warn" });
  await vite.listen();
  const app = `http://127.0.0.1:${(vite.httpServer!.address() as AddressInfo).port}`;
  const { call, status } = domainApi(() => api);
  return {
    api,
    app,
    call,
    status,
    async close() {
      await vite.close();
      await gateway.close();
    },
  };
}

/**
 * Polls `read` until `ok` holds (every 100 ms, `ms` at most).
 * @example
 * await until(() => dev.status("r1"), (s) => s === "finished", "r1 to finish");
 */
export async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Scrolls what `target` finds into sight, finding it again each try: a view that re-renders
 * replaces its elements, and an element handle held across that is detached (Playwright's
 * `scrollIntoViewIfNeeded` holds one). Done once the element is connected and in the viewport
 * (whole when it fits).
 * @example
 * await scrollIntoSight(page.locator('[data-testid="graph-node"][data-live="true"]'));
 */
export async function scrollIntoSight(target: Locator, ms = 20_000): Promise<void> {
  const inSight = () =>
    target.evaluate((el) => {
      if (!el.isConnected) return false;
      el.scrollIntoView({ block: "nearest", inline: "nearest" });
      const r = el.getBoundingClientRect();
      // Whole when it fits the viewport, else some of it.
      return r.height > 0 && (r.height <= innerHeight ? r.top >= 0 && r.bottom <= innerHeight : r.top < innerHeight && r.bottom > 0);
    });
  await until(inSight, (ok) => ok, "the element scrolled into sight", ms);
}

/**
 * Saves `<name>-light.png` and `<name>-dark.png` of the page into `docs/app/`, tall enough to
 * hold the whole main area (the shell scrolls it, not the page); answers the files written.
 * @example
 * shots.push(...(await shootThemes(page, "run-detail")));
 */
export async function shootThemes(page: Page, name: string): Promise<string[]> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  const viewport = page.viewportSize() ?? { width: 1280, height: 900 };
  const files: string[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => {
      localStorage.setItem("flow:theme", t);
      document.documentElement.dataset.theme = t;
    }, theme);
    await page.mouse.move(0, 0);
    const full = await page.evaluate(() => {
      const main = document.querySelector(".shell-main");
      return main ? Math.ceil(main.scrollHeight + main.getBoundingClientRect().top) : document.documentElement.scrollHeight;
    });
    await page.setViewportSize({ width: viewport.width, height: Math.min(2400, Math.max(viewport.height, full)) });
    await page.waitForTimeout(120);
    const file = join(SCREENS_DIR, `${name}-${theme}.png`);
    await page.screenshot({ path: file });
    files.push(file.slice(root.length));
    await page.setViewportSize(viewport);
  }
  return files;
}

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * axe-core's critical violations on the page, as `<rule> (<help>) at <targets>` lines.
 * @example
 * failures.push(...(await criticalA11y(page)).map((v) => `run-detail: ${v}`));
 */
export async function criticalA11y(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return violations.filter((v) => v.impact === "critical").map((v) => `${v.id} (${v.help}) at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * Ends a screenshot script: prints each screenshot as a JSON line, then the failures (exit 1) or nothing (exit 0).
 * @example
 * finishScreens(shots, failures);
 */
export function finishScreens(shots: string[], failures: string[]): never {
  for (const f of shots) console.log(JSON.stringify({ screenshot: f }));
  if (failures.length) console.error(failures.join("\n"));
  process.exit(failures.length ? 1 : 0);
}
