/**
 * Multiplayer benchmark in browsers (docs/performance.md "Multiplayer in browsers"): the time
 * from a write in one member's browser to the run's row rendered in other members' runs lists.
 * A team Gateway on the test PostgreSQL (the team fixture: Electric stand-in behind the shape
 * proxy) serves the built app; Debian's Chromium opens one page for the writer (ana) and one
 * per watcher (bea), each in its own browser context, signed in through the token prompt as
 * in e2e/team.test.ts. One JSON line per case on stdout.
 *
 *   npx tsx bench/multiplayer-browser.ts                   # 1 and 20 watchers, 200 writes each
 *   npx tsx bench/multiplayer-browser.ts --members 5 --writes 50
 *
 * The writer page sends each launch itself (`fetch` of `POST /v1/api/runs`, the request
 * `cols.launch` makes) and notes when; each watcher page notes when a `run-row` with that run
 * id enters its DOM (a MutationObserver), both on the machine's clock
 * (`performance.timeOrigin + performance.now()`). Writes are sequential: the next starts once
 * every watcher rendered the previous one. Fields: members, writes, p50Ms/p99Ms/maxMs (write
 * start to a watcher's render, over every write × watcher), allP50Ms/allP99Ms (to the last
 * watcher's render), load (1-minute load average at the end; the machine is shared).
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "../e2e/support/chromium.js";
import { signIn, startTeamApp } from "../e2e/support/team-app.js";
import type { TeamFixture } from "../e2e/electric/team-fixture.js";

const { values } = parseArgs({ options: { members: { type: "string" }, writes: { type: "string", default: "200" } } });
const writes = Number(values.writes);
const cases = values.members ? [Number(values.members)] : [1, 20];

/** Notes, per run id, when its row first entered the page's DOM. */
const RENDER_OBSERVER = `
  window.__rendered = {};
  const note = (el) => {
    if (!(el instanceof Element)) return;
    const rows = el.matches('[data-testid="run-row"]') ? [el] : el.querySelectorAll('[data-testid="run-row"]');
    for (const r of rows) if (r.dataset.runId && !(r.dataset.runId in window.__rendered)) window.__rendered[r.dataset.runId] = performance.timeOrigin + performance.now();
  };
  new MutationObserver((muts) => { for (const m of muts) m.type === "attributes" ? note(m.target) : m.addedNodes.forEach(note); })
    .observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-run-id"] });
`;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

async function runCase(browser: Browser, t: TeamFixture, watchers: number): Promise<Record<string, unknown>> {
  const writer = await signIn(browser, t.url, "ana", "/runs");
  const others = [];
  for (let i = 0; i < watchers; i++) {
    const member = await signIn(browser, t.url, "bea", "/runs");
    await member.page.evaluate(RENDER_OBSERVER);
    others.push(member);
  }
  const renderedAt = (page: Page, runId: string) => page.waitForFunction((id) => (window as unknown as { __rendered: Record<string, number> }).__rendered[id], runId, { timeout: 30_000, polling: 20 }).then((h) => h.jsonValue() as Promise<number>);
  const perWatcher: number[] = [];
  const toAll: number[] = [];
  for (let w = 0; w < writes; w++) {
    const runId = `bench-${watchers}-${w}-${Date.now()}`;
    const start = await writer.page.evaluate(async (id) => {
      const at = performance.timeOrigin + performance.now();
      const token = (JSON.parse(localStorage.getItem("flow:workspaces") ?? "[]") as Array<{ token?: string }>).find((x) => x.token)?.token;
      const res = await fetch("/v1/api/runs", { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ workflow: "release", runId: id, input: { service: "bench", shards: 1, workMs: 0 } }) });
      if (!res.ok) throw new Error(`launch answered ${res.status}: ${await res.text()}`);
      return at;
    }, runId);
    const times = (await Promise.all(others.map((o) => renderedAt(o.page, runId)))).map((at) => at - start);
    perWatcher.push(...times);
    toAll.push(Math.max(...times));
  }
  for (const c of [writer, ...others]) await c.context.close();
  return { bench: "multiplayer-browser", members: watchers + 1, watchers, writes, p50Ms: pct(perWatcher, 50), p99Ms: pct(perWatcher, 99), maxMs: pct(perWatcher, 100), allP50Ms: pct(toAll, 50), allP99Ms: pct(toAll, 99), load: Math.round(loadavg()[0]! * 10) / 10 };
}

const [t, browser] = await Promise.all([startTeamApp(), launchChromium()]);
try {
  for (const watchers of cases) console.log(JSON.stringify(await runCase(browser, t, watchers)));
} finally {
  await browser.close();
  await t.close();
}
