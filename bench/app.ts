/**
 * The app in Chromium (issue #13): one JSON line per measure, for each storage (OPFS, IndexedDB).
 *
 *   npx tsx bench/app.ts            # builds dist/app when its sources changed
 *   npx tsx bench/app.ts --case run-page-100   # one case (and what it needs first)
 *
 * - `cold-start`: a new profile's first visit, navigation to an interactive runs list (a
 *   `run-row` or the empty state's launch link, as the page noted it), and the engine's ready
 *   time and startup split;
 * - `warm-start`: a reload of that page (service worker, database on disk), median of 3;
 * - `workflow-100`: a 100-task compute workflow (`pipeline`, no work per task) from launch to
 *   `finished`, through the page's engine fetch, median of 3;
 * - `runs-10k` (OPFS): 10,000 runs seeded in the worker's database, a reload to the first row,
 *   then the list scrolled 200 px per animation frame for 180 frames: frame intervals and
 *   dropped frames (an interval over 25 ms).
 * - `run-page-100` (OPFS): a 100-task `pipeline` run watched on its page while it runs (run
 *   once, rewound to its first task and held, its page opened, then resumed): how long it ran
 *   (its RunResumed to its RunFinished),
 *   the page's main-thread time meanwhile (Chrome's `Performance.getMetrics`: `TaskDuration`,
 *   `ScriptDuration`), its long tasks, and how many distinct progress counts the page showed
 *   (the tree's finished/total of the sequence); median of 3.
 * Serves dist/app statically on loopback (e2e/support/static-server.ts), headless Chromium.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { APP_DIR, ensureAppBuilt } from "../e2e/support/app.js";
import { launchPersistent } from "../e2e/support/chromium.js";
import { engineCall, engineReady, runEvents, runStatus, until } from "../e2e/support/engine-page.js";
import { serveStatic } from "../e2e/support/static-server.js";

const LIST_READY = '[data-testid="run-row"], [data-testid="empty-launch"]';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const print = (line: Record<string, unknown>) => console.log(JSON.stringify(line));

type EngineGlobal = { __FLOW_ENGINE__: { ready(): Promise<void>; startup(): Promise<unknown>; query(sql: string, params?: unknown[]): Promise<unknown[]> } };

/**
 * Notes, in the page, when the runs list first became interactive (`__flowListAt`, ms since
 * navigation start): read afterwards, so the figure is the page's own and not the page's plus
 * the time Playwright takes to notice it and answer an evaluate (seconds under load).
 */
function noteListReady(selector: string): void {
  // No named inner functions: the bundler would wrap them in a __name the page lacks.
  const observer = new MutationObserver(() => {
    if (!document.querySelector(selector)) return;
    (globalThis as { __flowListAt?: number }).__flowListAt = performance.now();
    observer.disconnect();
  });
  observer.observe(document, { subtree: true, childList: true });
}

/**
 * Milliseconds from navigation start to an interactive runs list, and to the engine answering,
 * each timed on its own: the list no longer waits for the engine (it shows the rows seen last).
 */
async function openTimes(page: Page): Promise<{ listMs: number | null; readyMs: number }> {
  const listMs = await page
    .waitForSelector(LIST_READY, { timeout: 60_000 })
    .then(() => page.evaluate(() => (globalThis as { __flowListAt?: number }).__flowListAt ?? performance.now()))
    .catch(() => null);
  await engineReady(page, 60_000);
  const readyMs = await page.evaluate(async () => {
    await (globalThis as unknown as EngineGlobal).__FLOW_ENGINE__.ready();
    return performance.now();
  });
  return { listMs: listMs === null ? null : Math.round(Math.max(listMs, 0)), readyMs: Math.round(readyMs) };
}

async function pipelineMs(page: Page, tasks: number): Promise<number> {
  const started = Date.now();
  const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks } });
  await until(() => runStatus(page, runId), (s) => s === "finished" || s === "failed", "the pipeline", 120_000);
  return Date.now() - started;
}

async function seedRuns(page: Page, count: number): Promise<void> {
  await page.evaluate(
    ({ count, now }) =>
      (globalThis as unknown as EngineGlobal).__FLOW_ENGINE__.query(
        `INSERT INTO _flow_runs (run_id, workflow_name, workflow_hash, status, input_json, iterations_json, annotations_json, created_at_ms, updated_at_ms, finished_at_ms)
         SELECT 'seed-' || g, 'hello', 'seed', 'finished', '{"name":"n' || g || '"}', '{}', '{"flow:workflow":"hello"}', ?::bigint - g * 1000, ?::bigint - g * 1000, ?::bigint - g * 1000 + 50
         FROM generate_series(1, ${count}) AS g`,
        [now, now, now],
      ),
    { count, now: Date.now() },
  );
}

/** A `pipeline` run of `tasks` tasks, finished, then rewound to its first task and held (paused): its id. */
async function heldPipeline(page: Page, tasks: number): Promise<string> {
  const { runId } = await engineCall<{ runId: string }>(page, "POST", "/v1/api/runs", { workflow: "pipeline", input: { tasks } });
  await until(() => runStatus(page, runId), (s) => s === "finished", "the pipeline", 120_000);
  // The engine lets go of a finished run just after its row says so: asked sooner, the rewind says it still runs here.
  const rewind = () => engineCall<{ success: boolean; error?: string }>(page, "POST", `/v1/api/runs/${encodeURIComponent(runId)}/rewind`, { nodeId: "step-0", iteration: 0, restoreVcs: false, resume: false });
  const rewound = await until(rewind, (r) => r.success || !/is running in this process/.test(r.error ?? ""), "the rewind");
  if (!rewound.success) throw new Error(`rewind failed: ${rewound.error}`);
  return runId;
}

/** Watches a held run's page while the run goes on from its Resume to its end. */
async function watchRunPage(page: Page, base: string, runId: string): Promise<{ runMs: number; pageTaskMs: number; pageScriptMs: number; longTasks: number; longestTaskMs: number; progressShown: number }> {
  await page.goto(`${base}runs/${encodeURIComponent(runId)}`);
  await page.locator('[data-testid="run-status"][data-status="paused"]').waitFor({ timeout: 60_000 });
  await page.evaluate(() => {
    const seen = new Set<number>();
    const longs: number[] = [];
    (globalThis as unknown as { watched: { seen: Set<number>; longs: number[] } }).watched = { seen, longs };
    new PerformanceObserver((list) => void list.getEntries().forEach((e) => longs.push(e.duration))).observe({ type: "longtask" });
    new MutationObserver(() => {
      const status = document.querySelector('[data-testid="run-status"]')?.getAttribute("data-status");
      const done = Number(document.querySelector('[data-testid="tree-group-progress"]')?.textContent?.split("/")[0] ?? -1);
      if (status === "running" && done > 0 && done < 100) seen.add(done);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const metric = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const before = await metric();
  const started = Date.now();
  await page.getByTestId("run-resume").click();
  await page.locator('[data-testid="run-action-dialog"] [data-testid="confirm"]').click();
  await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 60_000 });
  const after = await metric();
  // The run's own time, from its events: the page's clicks and waits are not the run's.
  const events = await runEvents(page, runId);
  const resumed = events.findLast((e) => e.type === "RunResumed")?.timestampMs;
  const finished = events.findLast((e) => e.type === "RunFinished")?.timestampMs;
  const runMs = resumed !== undefined && finished !== undefined ? finished - resumed : Date.now() - started;
  await cdp.detach();
  const watched = await page.evaluate(() => {
    const w = (globalThis as unknown as { watched: { seen: Set<number>; longs: number[] } }).watched;
    return { progressShown: w.seen.size, longTasks: w.longs.length, longestTaskMs: Math.round(Math.max(0, ...w.longs)) };
  });
  const ms = (name: string) => Math.round(((after[name] ?? 0) - (before[name] ?? 0)) * 1000);
  return { runMs, pageTaskMs: ms("TaskDuration"), pageScriptMs: ms("ScriptDuration"), ...watched };
}

/** Scrolls the runs list one step per animation frame; frame intervals in ms. */
async function scrollFrames(page: Page): Promise<{ frames: number; p50: number; p95: number; maxMs: number; dropped: number; scrolledTo: number } | null> {
  return page.evaluate(async () => {
    const list = document.querySelector<HTMLElement>('[data-testid="runs-scroll"]');
    if (!list) return null;
    const gaps: number[] = [];
    let last = await new Promise<number>((r) => requestAnimationFrame(r));
    for (let i = 0; i < 180; i++) {
      list.scrollTop += 200;
      const now = await new Promise<number>((r) => requestAnimationFrame(r));
      gaps.push(now - last);
      last = now;
    }
    // No helper functions in here: the bundler would wrap them in a __name the page lacks.
    const sorted = [...gaps].sort((a, b) => a - b);
    const p50 = Math.round(sorted[Math.floor(0.5 * (sorted.length - 1))]! * 10) / 10;
    const p95 = Math.round(sorted[Math.floor(0.95 * (sorted.length - 1))]! * 10) / 10;
    return { frames: gaps.length, p50, p95, maxMs: Math.round(sorted.at(-1)!), dropped: gaps.filter((g) => g > 25).length, scrolledTo: list.scrollTop };
  });
}

const { values } = parseArgs({ options: { case: { type: "string" } } });
const want = (name: string) => values.case === undefined || values.case === name;
const OPFS_ONLY = ["runs-10k", "run-page-100"];

await ensureAppBuilt();
const server = await serveStatic(APP_DIR);
try {
  for (const storage of ["opfs", "idb"] as const) {
    if (storage === "idb" && values.case !== undefined && OPFS_ONLY.includes(values.case)) continue;
    const profile = mkdtempSync(join(tmpdir(), `flow-bench-app-${storage}-`));
    const ctx = await launchPersistent(profile);
    try {
      await ctx.addInitScript((s) => localStorage.setItem("flow:storage", s), storage);
      await ctx.addInitScript(noteListReady, LIST_READY);
      const page = ctx.pages()[0] ?? (await ctx.newPage());
      await page.goto(server.url);
      const cold = await openTimes(page);
      const startup = await page.evaluate(() => (globalThis as unknown as EngineGlobal).__FLOW_ENGINE__.startup());
      const reported = await page.evaluate(() => (globalThis as unknown as { __FLOW_ENGINE__: { storage: string } }).__FLOW_ENGINE__.storage);
      if (want("cold-start")) print({ bench: "app", case: "cold-start", storage: reported, listMs: cold.listMs, workerReadyMs: cold.readyMs, startup });
      await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
      await engineCall(page, "POST", "/v1/api/runs", { workflow: "hello", input: { name: "bench" } });

      const warm: { listMs: number | null; readyMs: number }[] = [];
      for (let i = 0; i < (want("warm-start") ? 3 : 0); i++) {
        await page.reload();
        warm.push(await openTimes(page));
      }
      const warmStartup = await page.evaluate(() => (globalThis as unknown as EngineGlobal).__FLOW_ENGINE__.startup());
      const lists = warm.map((w) => w.listMs).filter((x): x is number => x !== null);
      if (want("warm-start")) print({ bench: "app", case: "warm-start", storage: reported, listMs: lists.length ? median(lists) : null, workerReadyMs: median(warm.map((w) => w.readyMs)), startup: warmStartup });

      await pipelineMs(page, 10); // warm the engine's code paths
      if (want("workflow-100")) {
        const runs = [await pipelineMs(page, 100), await pipelineMs(page, 100), await pipelineMs(page, 100)];
        print({ bench: "app", case: "workflow-100", storage: reported, ms: median(runs), runsMs: runs });
      }

      if (storage === "opfs" && want("run-page-100")) {
        const watched: Awaited<ReturnType<typeof watchRunPage>>[] = [];
        for (let i = 0; i < 3; i++) watched.push(await watchRunPage(page, server.url, await heldPipeline(page, 100)));
        const mid = (key: keyof (typeof watched)[number]) => median(watched.map((w) => w[key]));
        print({ bench: "app", case: "run-page-100", storage: reported, runMs: mid("runMs"), pageTaskMs: mid("pageTaskMs"), pageScriptMs: mid("pageScriptMs"), longTasks: mid("longTasks"), longestTaskMs: mid("longestTaskMs"), progressShown: mid("progressShown"), runs: watched });
        await page.goto(server.url);
      }
      if (storage === "opfs" && want("runs-10k")) {
        await seedRuns(page, 10_000);
        const started = Date.now();
        await page.reload();
        const open = await openTimes(page);
        await page.waitForSelector('[data-testid="run-row"]', { timeout: 60_000 }).catch(() => null);
        const frames = await scrollFrames(page);
        const [counted] = (await page.evaluate(() => (globalThis as unknown as EngineGlobal).__FLOW_ENGINE__.query("SELECT COUNT(*) AS n FROM _flow_runs"))) as { n: number }[];
        print({ bench: "app", case: "runs-10k", storage: reported, runs: counted?.n, firstRowMs: open.listMs, reloadMs: Date.now() - started, scroll: frames });
      }
    } finally {
      await ctx.close();
      rmSync(profile, { recursive: true, force: true });
    }
  }
} finally {
  await server.close();
}
