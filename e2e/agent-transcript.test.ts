/**
 * Issue #26, "a browser watching a generation live": a Gateway (in this process, the app's
 * workflows over a temp SQLite file) runs the `assistant` workflow's SDK agent against a local
 * scripted OpenAI-compatible server that first asks for the HTTP tool, then streams its answer
 * word by word (`everyMs`). The run page's node panel shows the tool call with its arguments
 * and result, then the streamed text while the task is still running, and what its first call
 * spent in the run header; once it finishes, the tokens and cost show in the run header, the
 * attempt and the runs list; a reload shows the
 * same transcript; the workflow's launch view charts its cost per day. Screenshots of the run
 * page (mid-generation and after), the runs list and the cost chart, in both themes, go to
 * docs/app/.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderServer, startProviderServer } from "../node/agents/testing/provider-server.js";
import { launchChromium } from "./support/chromium.js";
import { type AppGateway, startAppGateway } from "./support/gateway.js";
import { scrollIntoSight, shootThemes } from "./support/screens.js";

const PAGE_TEXT = "The release train leaves on Thursdays at 10:00.";
const ANSWER = "The release train leaves every Thursday at ten in the morning, as the page says, from platform two.";

describe("a browser watches an agent's generation live (issue #26)", () => {
  let gw: AppGateway;
  let browser: Browser;
  let model: ProviderServer;
  let page: Page;
  let runId = "";
  const saved = { base: process.env.FLOW_LOCAL_BASE_URL, model: process.env.FLOW_LOCAL_MODEL };
  const pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end(PAGE_TEXT);
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    // One word every 200 ms: the answer streams for about four seconds.
    model = await startProviderServer([{ toolCalls: [{ id: "call-1", name: "http", args: { url: `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/train.txt` } }] }, { text: JSON.stringify({ answer: ANSWER }), everyMs: 200 }]);
    // The Gateway runs the agent in this process: it reads its endpoint from the environment.
    process.env.FLOW_LOCAL_BASE_URL = model.url;
    process.env.FLOW_LOCAL_MODEL = "gpt-4o";
    [gw, browser] = await Promise.all([startAppGateway(), launchChromium()]);
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.setDefaultTimeout(30_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.close();
    await model?.close();
    await new Promise((resolve) => pageServer.close(resolve));
    for (const [k, v] of [["FLOW_LOCAL_BASE_URL", saved.base], ["FLOW_LOCAL_MODEL", saved.model]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("shows the tool call, then the text as it streams, before the task finishes", async () => {
    await page.goto(`${gw.url}/launch/assistant`);
    const form = page.getByTestId("launch-form");
    await form.locator('[name="question"]').fill("When does the release train leave?");
    await form.locator('[name="url"]').fill(`http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/train.txt`);
    await page.getByTestId("launch-submit").click();
    await page.waitForURL(/\/runs\/[^/?#]+/);
    runId = decodeURIComponent(/\/runs\/([^/?#]+)/.exec(page.url())![1]!);
    await page.locator('[data-testid="tree-node"][data-node-id="answer"]').click();

    const panel = page.getByTestId("node-panel");
    // The tool call, with its arguments and the page it read.
    const call = panel.locator('[data-testid="tool-call"][data-tool="http"][data-state="ok"]');
    await call.waitFor();
    expect(await call.textContent()).toContain("train.txt");
    // Part of the answer has streamed in while the task (and its generation) still runs.
    const text = panel.getByTestId("transcript-text").last();
    await expect.poll(() => text.textContent(), { timeout: 30_000 }).toContain("Thursday");
    const partial = (await text.textContent()) ?? "";
    const nodeState = await page.locator('[data-testid="tree-node"][data-node-id="answer"]').getAttribute("data-state");
    expect(nodeState, `the text so far: ${partial}`).not.toBe("finished");
    expect(partial).not.toContain("platform two");
    // What the model step that asked for the tool spent (11 in + 7 out) is in the run header
    // while the generation still runs (AgentStepUsage): the store counts it when the attempt ends.
    await expect.poll(() => page.locator('section.run-header [data-testid="run-cost"]').textContent({ timeout: 500 }), { timeout: 2_000 }).toMatch(/^18 tokens · \$0\.\d+$/);
    expect(await page.locator('section.run-header [data-testid="run-cost-live"]').textContent()).toBe(" so far");
    // The attempt's row says the same of the attempt, which has no stored spend yet.
    const running = panel.locator('[data-testid="attempt"][data-state="in-progress"]');
    expect(await running.getByTestId("attempt-cost-live").textContent()).toMatch(/^18 tokens · \$0\.\d+ so far$/);
    expect(await running.getByTestId("attempt-cost").count()).toBe(0);
    expect(await panel.locator('[data-testid="generation"][data-status="running"]').count()).toBe(1);
    await shootThemes(page, "view-run-transcript-live");

    // Then the whole answer, and the run finishes.
    await expect.poll(() => text.textContent(), { timeout: 30_000 }).toContain("platform two");
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor();
  }, 90_000);

  it("shows the tokens and cost in the run header, the generation, the attempt and the runs list", async () => {
    const panel = page.getByTestId("node-panel");
    await expect.poll(() => page.locator('section.run-header [data-testid="run-cost"]').textContent(), { timeout: 30_000 }).toMatch(/tokens · \$0\.\d+/);
    // Ended: the stored total, no longer "so far".
    expect(await page.locator('section.run-header [data-testid="run-cost-live"]').count()).toBe(0);
    await expect.poll(() => panel.locator('[data-testid="generation"][data-status="finished"]').count()).toBe(1);
    const gen = await panel.getByTestId("generation-usage").first().textContent();
    expect(gen).toMatch(/tokens · \$0\.\d+/);
    expect(await panel.locator('[data-testid="generation"]').first().textContent()).toContain("gpt-4o");
    await expect.poll(() => panel.getByTestId("attempt-cost").textContent()).toMatch(/tokens · \$0\.\d+/);
    expect(await panel.getByTestId("attempt-cost-live").count()).toBe(0);
    await page.mouse.move(0, 0);
    await shootThemes(page, "view-run-transcript");

    await page.goto(`${gw.url}/runs`);
    await expect.poll(() => page.locator(`[data-testid="run-row"][data-run-id="${runId}"] [data-testid="run-cost"]`).textContent(), { timeout: 30_000 }).toMatch(/^\$0\.\d+$/);
    await shootThemes(page, "view-runs-cost");
  }, 60_000);

  it("shows the workflow's cost per day on its launch view", async () => {
    await page.goto(`${gw.url}/launch/assistant`);
    const chart = page.getByTestId("workflow-cost");
    await expect.poll(() => chart.getByTestId("workflow-cost-total").textContent(), { timeout: 30_000 }).toMatch(/^1 run · \d+ tokens · \$0\.\d+$/);
    const days = chart.getByTestId("workflow-cost-day");
    expect(await days.count()).toBe(14);
    expect(await days.last().getAttribute("data-runs")).toBe("1");
    expect(await days.last().getAttribute("aria-label")).toMatch(/1 run, \d+ tokens · \$0\.\d+/);
    await scrollIntoSight(chart); // found again each try: the launch view re-renders the chart as its data arrives
    await shootThemes(page, "view-workflow-cost");
  }, 60_000);

  it("shows the same transcript after a reload", async () => {
    await page.goto(`${gw.url}/runs/${encodeURIComponent(runId)}?node=answer`);
    const panel = page.getByTestId("node-panel");
    await expect.poll(() => panel.getByTestId("transcript-text").last().textContent()).toContain("platform two");
    await panel.locator('[data-testid="tool-call"][data-tool="http"][data-state="ok"]').waitFor();
    expect(await panel.getByTestId("transcript-attempt").count()).toBe(1);
  }, 60_000);
});
