/**
 * Issue #27, "what people reach for next in a run console" (shared/CONSOLE.md): a real app
 * Gateway on loopback in Debian's Chromium, with screenshots in both themes:
 * - compare two runs side by side (inputs, outputs per task, durations, tokens), from the runs
 *   list (select two, Compare) and from a run page, with a URL that deep-links the comparison;
 * - fork from a task with an edited input, checked against the workflow's schema first (the
 *   problem shown beside its field, nothing started), the original run untouched;
 * - export a run's events as JSON lines (a download from the run page);
 * - navigate between a parent run and its child run (Subflow): the child's breadcrumbs and
 *   header link the parent, the parent's Subflow node links the child;
 * - a graph of the run's task tree (the Graph tab), the live task marked and moving as the run
 *   goes (the same boxes, so the keyboard focus stays), a click selecting the task for the node
 *   panel, `?tab=graph` reopening it.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { z } from "zod";
import { createFlow, HostedChatAgent } from "durable-flow";
import { startProviderServer } from "../node/agents/testing/provider-server.js";
import { launchChromium } from "./support/chromium.js";
import { type AppGateway, startAppGateway } from "./support/gateway.js";
import { shootThemes } from "./support/screens.js";
import { rpc, waitForStatus } from "./support/seed.js";

interface RunRow {
  runId: string;
  status: string;
  input: Record<string, unknown>;
  annotations: Record<string, unknown>;
  nodes: Array<{ nodeId: string; iteration: number; state: string; attempts: unknown[] }>;
}

describe("the run console: compare, fork, export, parent and child (issue #27)", () => {
  let gw: AppGateway;
  let browser: Browser;
  let page: Page;
  const launch = async (workflow: string, input: Record<string, unknown>) => (await rpc<{ runId: string }>(gw.url, "launchRun", { workflow, input })).runId;
  const getRun = (runId: string) => rpc<RunRow>(gw.url, "getRun", { runId });

  beforeAll(async () => {
    [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page.setDefaultTimeout(20_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it("compares two runs from the runs list and from a run page, and the URL opens the same comparison", async () => {
    const [ada, grace, other] = [await launch("hello", { name: "Ada" }), await launch("hello", { name: "Grace" }), await launch("hello", { name: "Ada" })];
    await Promise.all([ada, grace, other].map((id) => waitForStatus(gw.url, id, ["finished"])));

    await page.goto(`${gw.url}/runs`);
    for (const id of [ada, grace]) await page.locator(`[data-testid="run-row"][data-run-id="${id}"] input[type="checkbox"]`).check();
    await page.getByTestId("bulk-compare").click();
    await page.getByTestId("compare-summary").waitFor();
    const url = new URL(page.url());
    expect(url.pathname).toBe("/compare");
    expect(new Set([url.searchParams.get("a"), url.searchParams.get("b")])).toEqual(new Set([ada, grace]));

    const check = async () => {
      await page.getByTestId("compare-input-a").waitFor();
      expect(await page.getByTestId("input-differs").isVisible()).toBe(true);
      const greet = page.locator('[data-testid="compare-task"][data-node-id="greet"]');
      await expect.poll(() => greet.getAttribute("data-differs")).toBe("true");
      expect(await greet.locator('[data-side="a"] [data-testid="task-output"]').textContent()).toContain(`Hello, ${url.searchParams.get("a") === ada ? "Ada" : "Grace"}!`);
      expect(await greet.locator('[data-side="b"] [data-testid="task-output"]').textContent()).toContain(`Hello, ${url.searchParams.get("b") === ada ? "Ada" : "Grace"}!`);
      expect(await greet.locator('[data-testid="task-duration"]').count()).toBe(2);
      for (const text of await page.locator('[data-testid="compare-duration"] td').allTextContents()) expect(text).toMatch(/\d+(\.\d+)?\s*(ms|s)/);
      expect(await page.locator('[data-testid="compare-usage"] td').allTextContents()).toEqual(["none", "none"]);
    };
    await check();
    // Each picker shows the run of its side.
    expect(await page.getByTestId("compare-pick-a").inputValue()).toBe(url.searchParams.get("a"));
    expect(await page.getByTestId("compare-pick-b").inputValue()).toBe(url.searchParams.get("b"));
    await shootThemes(page, "view-compare");

    // The URL is the comparison: a reload (or a shared link) opens it again.
    await page.goto(url.toString());
    await page.getByTestId("compare-summary").waitFor();
    await check();

    // From a run page: Compare opens with this run as A; picking B fills the URL.
    await page.goto(`${gw.url}/runs/${encodeURIComponent(ada)}`);
    await page.getByTestId("run-compare").click();
    await page.getByTestId("compare-pick-b").waitFor();
    expect(new URL(page.url()).searchParams.get("a")).toBe(ada);
    await page.locator(`[data-testid="compare-pick-b"] option[value="${other}"]`).waitFor({ state: "attached" });
    // The view stays while B loads: never the shell's "Loading…" in its place (the picker taken down with its focus).
    await page.evaluate(() => {
      const gone = { count: 0 };
      (globalThis as unknown as { viewGone: typeof gone }).viewGone = gone;
      new MutationObserver(() => void (document.querySelector('[data-testid="compare-pick-a"]') || gone.count++)).observe(document.body, { subtree: true, childList: true });
    });
    await page.getByTestId("compare-pick-b").selectOption(other);
    await page.getByTestId("compare-summary").waitFor();
    expect(new URL(page.url()).searchParams.get("b")).toBe(other);
    expect(await page.evaluate(() => (globalThis as unknown as { viewGone: { count: number } }).viewGone.count)).toBe(0);
    // Same input, same output: nothing marked.
    await expect.poll(() => page.locator('[data-testid="compare-task"][data-node-id="greet"]').getAttribute("data-differs")).toBe("false");
    expect(await page.getByTestId("input-differs").count()).toBe(0);
  }, 120_000);

  it("compares the tokens and cost of two runs' agents, per run and per task", async () => {
    // The assistant's SDK agent against a local scripted OpenAI-compatible server (11 + 7 tokens a reply).
    const model = await startProviderServer([{ text: JSON.stringify({ answer: "Thursdays." }) }, { text: JSON.stringify({ answer: "On Thursday, at ten." }) }]);
    const saved = { base: process.env.FLOW_LOCAL_BASE_URL, model: process.env.FLOW_LOCAL_MODEL };
    process.env.FLOW_LOCAL_BASE_URL = model.url;
    process.env.FLOW_LOCAL_MODEL = "gpt-4o";
    try {
      const first = await launch("assistant", { question: "When does the train leave?" });
      await waitForStatus(gw.url, first, ["finished"]);
      const second = await launch("assistant", { question: "When does the train leave, exactly?" });
      await waitForStatus(gw.url, second, ["finished"]);
      await page.goto(`${gw.url}/compare?a=${encodeURIComponent(first)}&b=${encodeURIComponent(second)}`);
      await page.getByTestId("compare-summary").waitFor();
      const usage = page.locator('[data-testid="compare-usage"] td');
      await expect.poll(() => usage.allTextContents()).toEqual([expect.stringMatching(/^18 tokens · \$/), expect.stringMatching(/^18 tokens · \$/)]);
      const answer = page.locator('[data-testid="compare-task"][data-node-id="answer"]');
      await expect.poll(() => answer.getAttribute("data-differs")).toBe("true");
      for (const side of ["a", "b"]) expect(await answer.locator(`[data-side="${side}"]`).textContent()).toMatch(/18 tokens/);
      expect(await answer.locator('[data-side="b"] [data-testid="task-output"]').textContent()).toContain("On Thursday, at ten.");
      await shootThemes(page, "view-compare-agents");
    } finally {
      for (const [k, v] of [["FLOW_LOCAL_BASE_URL", saved.base], ["FLOW_LOCAL_MODEL", saved.model]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await model.close();
    }
  }, 120_000);

  it("says the tasks a cancelled run never reached were not run, not that they are pending", async () => {
    const runId = await launch("release", { service: "api", shards: 1, workMs: 60_000 });
    await waitForStatus(gw.url, runId, ["running"]);
    await rpc(gw.url, "cancelRun", { runId });
    await waitForStatus(gw.url, runId, ["cancelled"]);
    await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}?node=deploy`);
    const deploy = page.locator('[data-testid="tree-node"][data-node-id="deploy"]').first();
    await deploy.waitFor();
    // The stored state stays what it is; the words say what it means for a run that ended.
    expect(await deploy.getAttribute("data-state")).toBe("pending");
    expect(await deploy.locator(".run-tree-state").textContent()).toBe("not run");
    const panel = page.locator('[data-testid="node-panel"][data-node-id="deploy"]');
    expect(await panel.locator(".badge[data-status]").first().textContent()).toBe("not run");
    expect(await panel.getByTestId("no-output").textContent()).toBe("No output: the run ended before it reached this task.");
    // The graph says the same.
    await page.getByRole("tab", { name: "Graph" }).click();
    expect(await page.locator('[data-testid="graph-node"][data-node-id="deploy"]').getAttribute("aria-label")).toMatch(/: not run$/);
  });

  it("forks from a task with an edited input, refusing an input the schema refuses beside its field", async () => {
    const original = await launch("pipeline", { tasks: 3 });
    await waitForStatus(gw.url, original, ["finished"]);
    const before = await rpc<{ runs: unknown[] }>(gw.url, "listRuns", { limit: 500 });

    await page.goto(`${gw.url}/runs/${encodeURIComponent(original)}?node=step-1`);
    await page.locator('[data-testid="node-panel"][data-node-id="step-1"]').waitFor();
    // Retry is off on a finished task; hovering it says why, in a tooltip that stays inside the
    // window although the button sits at the panel's right (it used to run past the edge).
    const retry = page.getByTestId("retry");
    expect(await retry.getAttribute("aria-disabled")).toBe("true");
    await retry.hover();
    const why = retry.locator("xpath=..").locator(".action-button-reason");
    await expect.poll(() => why.evaluate((el) => getComputedStyle(el).visibility)).toBe("visible");
    const tip = (await why.boundingBox())!;
    expect(tip.x).toBeGreaterThanOrEqual(0);
    expect(tip.x + tip.width).toBeLessThanOrEqual(await page.evaluate(() => document.documentElement.clientWidth));
    await page.getByTestId("fork").click();
    const dialog = page.getByTestId("fork-dialog");
    await dialog.waitFor();
    const tasks = dialog.locator('[name="tasks"]');
    expect(await tasks.inputValue()).toBe("3");

    // Refused before anything is written: the problem sits under the field.
    await tasks.fill("0");
    await dialog.getByTestId("confirm").click();
    const problem = dialog.locator('[data-testid="field-problem"]');
    await problem.first().waitFor();
    expect(await problem.first().textContent()).toMatch(/1/);
    expect(await tasks.getAttribute("aria-invalid")).toBe("true");
    expect(await dialog.getByRole("alert").last().textContent()).toMatch(/Fix the marked field/);
    await shootThemes(page, "view-run-fork");
    expect((await rpc<{ runs: unknown[] }>(gw.url, "listRuns", { limit: 500 })).runs.length).toBe(before.runs.length);

    await tasks.fill("5");
    await dialog.getByTestId("confirm").click();
    await page.waitForURL((u) => u.pathname.startsWith("/runs/") && !u.pathname.endsWith(encodeURIComponent(original)));
    const forkId = decodeURIComponent(new URL(page.url()).pathname.slice("/runs/".length));
    await waitForStatus(gw.url, forkId, ["finished"]);
    const fork = await getRun(forkId);
    expect(fork.input).toEqual({ tasks: 5 });
    expect(fork.annotations["flow.forkedFrom"]).toBe(`${original}:step-1@0#1`);
    // step-0 was reused (never attempted in the fork); step-1 on ran again, and two more.
    const attempted = fork.nodes.filter((n) => n.attempts.length > 0).map((n) => n.nodeId).sort();
    expect(attempted).toEqual(["step-1", "step-2", "step-3", "step-4"]);
    const orig = await getRun(original);
    expect(orig.input).toEqual({ tasks: 3 });
    expect(orig.nodes.map((n) => n.nodeId).sort()).toEqual(["step-0", "step-1", "step-2"]);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
  }, 120_000);

  it("exports a run's events as JSON lines from the run page", async () => {
    const runId = await launch("pipeline", { tasks: 4 });
    await waitForStatus(gw.url, runId, ["finished"]);
    const stored = await (await fetch(`${gw.url}/v1/api/runs/${encodeURIComponent(runId)}/events?limit=1000`)).json() as { result: { events: Array<{ seq: number; type: string }> } };
    await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}`);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("run-export").click()]);
    expect(download.suggestedFilename()).toBe(`${runId}.events.jsonl`);
    const lines = readFileSync((await download.path())!, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l) as { seq: number; type: string; runId: string });
    expect(lines.map((e) => [e.seq, e.type])).toEqual(stored.result.events.map((e) => [e.seq, e.type]));
    expect(lines[0]).toMatchObject({ seq: 1, type: "RunStarted", runId });
    expect(lines.at(-1)!.type).toBe("RunFinished");
  }, 60_000);

  it("links a child run to its parent (breadcrumbs, header) and the parent's Subflow node to the child", async () => {
    const parent = await launch("newsletter", { topic: "Flow 1.0", words: 12 });
    const child = `${parent}/draft@0`;
    await waitForStatus(gw.url, child, ["finished"]);

    await page.goto(`${gw.url}/runs/${encodeURIComponent(child)}`);
    const crumb = page.getByTestId("crumb-parent");
    await crumb.waitFor();
    expect(await crumb.textContent()).toBe(parent);
    expect(await page.locator(".breadcrumbs [aria-current=page]").textContent()).toBe(child);
    await shootThemes(page, "view-run-child");
    await crumb.click();
    await page.waitForURL((u) => decodeURIComponent(u.pathname) === `/runs/${parent}`);

    await page.goto(`${gw.url}/runs/${encodeURIComponent(parent)}?node=draft`);
    const link = page.getByTestId("node-child-run");
    await link.waitFor();
    expect(await link.textContent()).toBe(child);
    await shootThemes(page, "view-run-parent");
    await link.click();
    await page.waitForURL((u) => decodeURIComponent(u.pathname) === `/runs/${child}`);
    await page.getByTestId("crumb-parent").waitFor();
  }, 60_000);

  it("draws the task tree as a graph, marks the live task as the run moves, selects on click, and reopens from ?tab=graph", async () => {
    const runId = await launch("release", { service: "graph", shards: 3, workMs: 400 });
    const url = `${gw.url}/runs/${encodeURIComponent(runId)}?tab=graph`;
    await page.goto(url);
    const node = (id: string) => page.locator(`[data-testid="graph-node"][data-node-id="${id}"]`);
    // The approval holds the run: its task is the live one, and the only one.
    await node("ship").and(page.locator('[data-live="true"]')).waitFor({ timeout: 30_000 });
    expect(await page.locator('#tab-graph[aria-selected="true"]').count()).toBe(1);
    expect(await page.locator('[data-testid="graph-node"][data-live="true"]').count()).toBe(1);
    // Laid out as the tree runs: build, then the three shards side by side, then ship, then deploy.
    const place = async (id: string) => [Number(await node(id).getAttribute("data-layer")), Number(await node(id).getAttribute("data-lane"))];
    expect(await Promise.all(["build", "test-0", "test-1", "test-2", "ship", "deploy"].map(place))).toEqual([[0, 0], [1, 0], [1, 1], [1, 2], [2, 0], [3, 0]]);
    expect(await node("test-2").getAttribute("data-state")).toBe("finished");
    expect(await page.locator(".run-graph-edge").count()).toBe(3 + 3 + 1);
    await shootThemes(page, "view-run-graph");

    // A click selects the task: the node panel follows and the URL keeps it with the tab.
    await node("test-1").click();
    await page.locator('[data-testid="node-panel"][data-node-id="test-1"]').waitFor();
    expect(new URL(page.url()).searchParams.get("node")).toBe("test-1");
    expect(new URL(page.url()).searchParams.get("tab")).toBe("graph");
    await page.reload();
    await node("test-1").and(page.locator('[aria-pressed="true"]')).waitFor();
    await page.locator('[data-testid="node-panel"][data-node-id="test-1"]').waitFor();
    expect(await page.locator('#tab-graph[aria-selected="true"]').count()).toBe(1);

    // Approved, the run moves on without a reload: the mark leaves ship, and deploy ends it.
    // The boxes stay the same elements as the run moves (only their state changes), so the
    // keyboard focus on a box stays where it was.
    await node("test-1").focus();
    await page.evaluate(() => ((globalThis as unknown as { shipBox: Element | null }).shipBox = document.querySelector('[data-testid="graph-node"][data-node-id="ship"]')));
    await rpc(gw.url, "submitApproval", { runId, nodeId: "ship", decision: "approve", note: "Ship it" });
    await node("ship").and(page.locator('[data-state="finished"]')).waitFor();
    await node("deploy").and(page.locator('[data-state="finished"]')).waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { shipBox: Element }).shipBox.isConnected)).toBe(true);
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.nodeId)).toBe("test-1");
    expect(await node("ship").getAttribute("data-live")).toBeNull();
    expect(await page.locator('[data-testid="graph-node"][data-live="true"]').count()).toBe(0);
    expect(await page.locator(".run-graph-legend").textContent()).toContain("No task is running or waiting now");

    // The timeline of the finished run: every time on its axis is inside the axis, side by side, the
    // last one too (a tick in the last tenth puts its label left of its line; how near the end the
    // last tick falls depends on how long the run took).
    await page.locator("#tab-timeline").click();
    const axis = (await page.locator(".tl-axis").boundingBox())!;
    const ticks = await page.locator(".tl-tick").evaluateAll((els) => els.map((el) => ({ text: el.textContent, left: el.getBoundingClientRect().left, right: el.getBoundingClientRect().right })));
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.filter((t) => t.left < axis.x || t.right > axis.x + axis.width)).toEqual([]);
    expect(ticks.filter((t, i) => i > 0 && t.left < ticks[i - 1]!.right)).toEqual([]);
  }, 90_000);
  it("folds a task's attempts that failed alike and shows only the latest transcripts, each on request", async () => {
    // A model endpoint that answers every request with HTTP 500: each attempt fails the same way.
    const down = await startProviderServer([]);
    try {
      const api = createFlow({ answer: z.object({ answer: z.string() }) }, { dbPath: gw.dbPath });
      const agent = new HostedChatAgent({ id: "writer", model: "gpt-4o", baseURL: down.url, apiKey: "test" });
      gw.gateway.register(
        "down",
        api.flow(() => (
          <api.Workflow name="down">
            <api.Task id="ask" output={api.outputs.answer} agent={agent} retries={24} retryPolicy={{ initialDelayMs: 1 }}>
              Answer.
            </api.Task>
          </api.Workflow>
        )),
      );
      const runId = await launch("down", {});
      await waitForStatus(gw.url, runId, ["failed"]);
      await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}?node=ask`);
      const panel = page.locator('[data-testid="node-panel"][data-node-id="ask"]');
      const folded = panel.getByTestId("attempts-folded");
      await folded.waitFor();
      // The first and the last of 25 attempts, and the 23 between as one row.
      expect(await panel.getByTestId("attempt").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-attempt")))).toEqual(["1", "25"]);
      expect(await folded.textContent()).toContain("Attempts 2–24 (23) ended as attempt 1 did, with the same error.");
      // The transcripts of the latest 20 attempts, the 5 before them on request.
      const transcripts = panel.getByTestId("transcript-attempt");
      expect(await transcripts.count()).toBe(20);
      expect(await panel.getByTestId("transcripts-hidden").textContent()).toContain("The transcripts of 5 earlier attempts are not shown.");
      await shootThemes(page, "view-run-attempts-folded");
      await folded.getByRole("button", { name: "Show them" }).click();
      await expect.poll(() => panel.getByTestId("attempt").count()).toBe(25);
      expect(await folded.count()).toBe(0);
      await panel.getByTestId("transcripts-hidden").getByRole("button", { name: "Show them" }).click();
      await expect.poll(() => transcripts.count()).toBe(25);
    } finally {
      await down.close();
    }
    // An attempt whose every generation finished but whose answer was never a valid row: its
    // transcript says it failed (and its attempt row says what it spent).
    const chatty = await startProviderServer(Array.from({ length: 4 }, () => ({ text: "No idea." })));
    try {
      const api = createFlow({ answer: z.object({ answer: z.string() }) }, { dbPath: gw.dbPath });
      const agent = new HostedChatAgent({ id: "chatty", model: "gpt-4o", baseURL: chatty.url, apiKey: "test", api: "chat" });
      gw.gateway.register("chatty", api.flow(() => <api.Workflow name="chatty"><api.Task id="ask" output={api.outputs.answer} agent={agent} retries={0}>Answer.</api.Task></api.Workflow>));
      const runId = await launch("chatty", {});
      await waitForStatus(gw.url, runId, ["failed"]);
      await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}?node=ask`);
      const panel = page.locator('[data-testid="node-panel"][data-node-id="ask"]');
      const attempt = panel.getByTestId("transcript-attempt").first();
      await attempt.waitFor();
      expect(await attempt.locator('[data-testid="generation"][data-status="finished"]').count()).toBe(4);
      expect(await attempt.locator("summary .badge").textContent()).toBe("failed");
      expect(await panel.getByTestId("attempt-cost").textContent()).toMatch(/^72 tokens · \$/);
    } finally {
      await chatty.close();
    }
  }, 90_000);
  it("keeps the live task's row in view in the tree as the run moves, unless the person scrolled away", async () => {
    const api = createFlow({ tick: z.object({ n: z.number() }) }, { dbPath: gw.dbPath });
    gw.gateway.register(
      "ticker",
      api.flow(() => (
        <api.Workflow name="ticker">
          <api.Sequence>
            {Array.from({ length: 80 }, (_, i) => (
              <api.Task key={i} id={`t${i}`} output={api.outputs.tick}>
                {() => new Promise<{ n: number }>((resolve) => setTimeout(() => resolve({ n: i }), 120))}
              </api.Task>
            ))}
          </api.Sequence>
        </api.Workflow>
      )),
    );
    const runId = await launch("ticker", {});
    await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}`);
    const scroller = page.locator(".run-tree-scroll");
    const live = () => page.locator('[data-testid="node-panel"]').getAttribute("data-node-id");
    /** Whether the live task's row is wholly inside the tree's view. */
    const liveRowInView = async () => {
      const id = await live();
      const row = page.locator(`[data-testid="tree-node"][data-node-id="${id}"]`);
      if ((await row.count()) === 0) return false;
      const [r, v] = await Promise.all([row.first().boundingBox(), scroller.boundingBox()]);
      return r !== null && v !== null && r.y >= v.y - 1 && r.y + r.height <= v.y + v.height + 1;
    };
    // Well past the first screen of rows: the tree followed.
    await expect.poll(async () => Number((await live())?.slice(1) ?? 0), { timeout: 30_000 }).toBeGreaterThan(30);
    expect(await liveRowInView()).toBe(true);
    // Scrolled back to the top by the person: it stays there while the run goes on.
    await scroller.evaluate((el) => (el.scrollTop = 0));
    const at = Number((await live())!.slice(1));
    await expect.poll(async () => Number((await live())?.slice(1) ?? 0), { timeout: 30_000 }).toBeGreaterThan(at + 5);
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(0);
    expect(await liveRowInView()).toBe(false);
    await rpc(gw.url, "cancelRun", { runId });
  }, 90_000);
});
