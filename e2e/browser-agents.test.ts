/**
 * Model keys in the browser app (issue #13: "SDK agents against OpenAI-compatible endpoints
 * (key kept locally)"): the Settings view of "This browser" sets, replaces and forgets keys
 * without showing them, the engine's worker reads them as environment variables, and they
 * survive a reload. Screenshots of Settings in both themes go to docs/app/.
 */
import { describe, expect, it } from "vitest";
import { launchPersistent } from "./support/chromium.js";
import { engineReady, until } from "./support/engine-page.js";
import { offlineApp } from "./support/offline-app.js";
import { criticalA11y, shootThemes } from "./support/screens.js";

describe("model keys in the browser app", () => {
  const app = offlineApp("browser-agents");

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
    await until(() => row("OPENAI_API_KEY").getAttribute("data-set"), (v) => v === "false", "OPENAI_API_KEY forgotten");

    // The engine's worker sees the replaced key as an environment variable.
    const env = (name: string) => {
      const worker = page.workers().find((w) => w.url().includes("engine-worker"))!;
      return worker.evaluate((n) => (globalThis as unknown as { process?: { env: Record<string, string | undefined> } }).process?.env[n], name);
    };
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
});
