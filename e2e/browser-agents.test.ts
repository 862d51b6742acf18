/**
 * Model keys in the browser app (issue #13: "SDK agents against OpenAI-compatible endpoints
 * (key kept locally)"): the Settings view of "This browser" sets, replaces and forgets keys
 * without showing them, the engine's worker reads them as environment variables, and they
 * survive a reload. Screenshots of Settings in both themes go to docs/app/. Then the
 * `assistant` workflow (examples/app-workflows.tsx), launched from the launch form, runs its SDK
 * agent in the worker against a loopback OpenAI-compatible server, reads a page with the HTTP
 * tool, and stores a note the memory view shows; without an endpoint it fails pointing at Settings.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProviderServer, startProviderServer } from "../node/agents/testing/provider-server.js";
import { launchPersistent } from "./support/chromium.js";
import { engineReady, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";
import { criticalA11y, shootThemes } from "./support/screens.js";

describe("model keys in the browser app", () => {
  const app = offlineApp("browser-agents");
  const PAGE_TEXT = "The release train leaves on Thursdays at 10:00.";
  const QUESTION = "When does the release train leave?";
  const ANSWER = "Thursdays at 10:00, per the page.";
  // The page the HTTP tool fetches from the worker (cross-origin, so it allows any origin).
  const pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "access-control-allow-origin": "*" });
    res.end(PAGE_TEXT);
  });
  let pageUrl = "";
  let model: ProviderServer;
  beforeAll(async () => {
    await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    pageUrl = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/train.txt`;
    model = await startProviderServer([{ toolCalls: [{ id: "call-1", name: "http", args: { url: pageUrl } }] }, { text: JSON.stringify({ answer: ANSWER }) }]);
  });
  afterAll(async () => {
    await model?.close();
    await new Promise((resolve) => pageServer.close(resolve));
  });

  /** An environment variable as the engine's worker sees it. */
  const workerEnv = (page: Page, name: string) => {
    const worker = page.workers().find((w) => w.url().includes("engine-worker"))!;
    return worker.evaluate((n) => (globalThis as unknown as { process?: { env: Record<string, string | undefined> } }).process?.env[n], name);
  };
  const row = (page: Page, name: string) => page.locator(`[data-testid="key-row"][data-key="${name}"]`);
  /** Launches `assistant` from the launch form; answers the run id from the run page's URL. */
  const launchAssistant = async (page: Page, url?: string): Promise<string> => {
    if (!page.url().endsWith("/launch/assistant")) await page.goto(`${app.server.url}launch/assistant`);
    const form = page.getByTestId("launch-form");
    await form.locator('[name="question"]').fill(QUESTION);
    if (url) await form.locator('[name="url"]').fill(url);
    await page.getByTestId("launch-submit").click();
    await page.waitForURL(/\/runs\/[^/?]+/);
    return decodeURIComponent(new URL(page.url()).pathname.split("/runs/")[1]!);
  };

  it("sets, replaces and forgets keys from Settings; the worker reads them; a reload keeps them", async () => {
    app.ctx = await launchPersistent(app.profile);
    const page = app.ctx.pages()[0] ?? (await app.ctx.newPage());
    await page.goto(`${app.server.url}settings`);
    await engineReady(page);
    const row = (name: string) => page.locator(`[data-testid="key-row"][data-key="${name}"]`);
    await row("OPENAI_API_KEY").waitFor();
    await expect(row("OPENAI_API_KEY").getAttribute("data-set")).resolves.toBe("false");
    await expect(page.getByTestId("keys-where").textContent()).resolves.toContain("IndexedDB");

    // Set by keyboard: the label focuses the field, Enter submits.
    const set = async (name: string, value: string) => {
      await row(name).locator(`input[name="${name}"]`).fill(value);
      await row(name).locator(`input[name="${name}"]`).press("Enter");
      await until(() => row(name).getByTestId("key-state").textContent(), (v) => v?.includes(`set · `) === true && v.endsWith(value.slice(-4)), `${name} set`);
    };
    await set("FLOW_LOCAL_BASE_URL", "http://127.0.0.1:9/v1");
    await set("FLOW_LOCAL_API_KEY", "sk-local-first-1111");
    await set("FLOW_LOCAL_API_KEY", "sk-local-second-2222");
    await set("OPENAI_API_KEY", "sk-openai-secret-abcd");
    // Never the secret itself: at most its last four characters.
    const state = await row("FLOW_LOCAL_API_KEY").getByTestId("key-state").textContent();
    expect(state).toContain("2222");
    expect(state).not.toContain("sk-local");
    expect(await page.locator(".settings-view").textContent()).not.toContain("sk-openai-secret");
    await row("OPENAI_API_KEY").getByTestId("key-forget").click();
    await page.getByTestId("key-forget-dialog").filter({ visible: true }).getByTestId("confirm").click();
    await until(() => row("OPENAI_API_KEY").getAttribute("data-set"), (v) => v === "false", "OPENAI_API_KEY forgotten");

    // The engine's worker sees the replaced key as an environment variable.
    const env = (name: string) => workerEnv(page, name);
    await until(() => env("FLOW_LOCAL_API_KEY"), (v) => v === "sk-local-second-2222", "the replaced key in the worker's env");
    await until(() => env("OPENAI_API_KEY"), (v) => v === undefined, "the forgotten key gone from the worker's env");

    expect(await criticalA11y(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shootThemes(page, "view-settings");

    await page.reload();
    await row("FLOW_LOCAL_API_KEY").waitFor();
    await expect(row("FLOW_LOCAL_API_KEY").getAttribute("data-set")).resolves.toBe("true");
    await expect(row("FLOW_LOCAL_BASE_URL").getByTestId("key-state").textContent()).resolves.toContain("127.0.0.1:9");
    await expect(row("OPENAI_API_KEY").getAttribute("data-set")).resolves.toBe("false");
  }, 90_000);

  it("runs the assistant's SDK agent in the worker with the HTTP tool and memory; without an endpoint it points at Settings", async () => {
    const page = app.ctx!.pages()[0]!;
    // No endpoint: the task fails and says where to set one.
    await page.goto(`${app.server.url}settings`);
    await row(page, "FLOW_LOCAL_BASE_URL").getByTestId("key-forget").click();
    await page.getByTestId("key-forget-dialog").filter({ visible: true }).getByTestId("confirm").click();
    await until(() => row(page, "FLOW_LOCAL_BASE_URL").getAttribute("data-set"), (v) => v === "false", "FLOW_LOCAL_BASE_URL forgotten");
    const failed = await launchAssistant(page);
    await page.locator('[data-testid="run-status"][data-status="failed"]').waitFor({ timeout: 30_000 });
    await page.goto(`${app.server.url}runs/${encodeURIComponent(failed)}?node=answer`);
    await page.getByTestId("node-panel").filter({ hasText: "Open Settings and set FLOW_LOCAL_BASE_URL" }).waitFor({ timeout: 15_000 });
    expect(model.requests).toHaveLength(0);

    // The endpoint set in Settings: the agent asks the model, calls the page, answers.
    await page.goto(`${app.server.url}settings`);
    await row(page, "FLOW_LOCAL_BASE_URL").locator('input[name="FLOW_LOCAL_BASE_URL"]').fill(model.url);
    await row(page, "FLOW_LOCAL_BASE_URL").locator('input[name="FLOW_LOCAL_BASE_URL"]').press("Enter");
    await until(() => row(page, "FLOW_LOCAL_BASE_URL").getAttribute("data-set"), (v) => v === "true", "FLOW_LOCAL_BASE_URL set");
    await page.goto(`${app.server.url}launch/assistant`);
    await until(() => workerEnv(page, "FLOW_LOCAL_BASE_URL"), (v) => v === model.url, "the endpoint in the worker's env");
    const runId = await launchAssistant(page, pageUrl);
    await page.locator('[data-testid="run-status"][data-status="finished"]').waitFor({ timeout: 30_000 });
    await page.goto(`${app.server.url}runs/${encodeURIComponent(runId)}?node=answer`);
        await page.getByTestId("node-panel").filter({ hasText: ANSWER }).waitFor({ timeout: 15_000 });

    // The model server got the question, then the tool's result (the page), with the key from Settings.
    expect(model.requests).toHaveLength(2);
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain(QUESTION);
    expect(JSON.stringify(model.requests[1]!.body.messages)).toContain(PAGE_TEXT);
    expect(model.requests[0]!.headers.authorization).toBe("Bearer sk-local-second-2222");

    // Memory: the note and fact the workflow stored.
    await page.goto(`${app.server.url}memory`);
    await page.getByTestId("memory-namespace").filter({ hasText: "workflow:assistant" }).click();
    await page.getByTestId("memory-note").filter({ hasText: ANSWER }).waitFor({ timeout: 15_000 });
    await page.getByTestId("memory-fact").filter({ hasText: "lastQuestion" }).waitFor();
  }, 60_000);
});
