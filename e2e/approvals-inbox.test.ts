/**
 * The approvals inbox against a real Gateway (in this process, over a temp SQLite file,
 * serving the built app) in Debian's Chromium: deciding several approvals at once with one
 * note, sending a signal from the inbox's form (its payload checked against the wait's
 * schema first), and, when someone else decided first, showing the winning decision. The
 * Gateway serves the app's workflows and the `deploy` workflow of e2e/screens/people-workflows.tsx
 * (a Signal with a payload schema). docs/app-views-people.md describes the view.
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { bindWorkflows, type Gateway } from "durable-flow";
import { createAppGateway } from "../scripts/app-gateway.js";
import { ensureAppBuilt } from "./support/app.js";
import { allowConsole, launchChromium } from "./support/chromium.js";
import { domainApi } from "./support/domain-api.js";
import { shootThemes } from "./support/screens.js";
import { peopleWorkflows } from "./screens/people-workflows.js";

describe("the approvals inbox against a Gateway", () => {
  let gateway: Gateway;
  let url = "";
  let browser: Browser;

  const { call, reach, launch } = domainApi(() => url);
  /** A `release` run waiting on its `ship` approval. */
  const release = (runId: string) => launch("release", { service: runId, shards: 1, workMs: 0 }, runId, "waiting-approval");
  const item = (page: Page, runId: string) => page.locator(`[data-testid="approval"][data-run-id="${runId}"]`);

  beforeAll(async () => {
    await ensureAppBuilt();
    const dbPath = join(mkdtempSync(join(tmpdir(), "flow-inbox-")), "flow.db");
    gateway = createAppGateway({ dbPath });
    gateway.register("deploy", bindWorkflows(peopleWorkflows, { dbPath }).deploy);
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it("approves two runs together with one note, and sends a signal whose payload the form checked against the wait's schema", async () => {
    await Promise.all([release("rel-a"), release("rel-b")]);
    await call("POST", "/v1/api/runs", { workflow: "deploy", input: {}, runId: "dep-1" });
    await reach("dep-1", "waiting-event");
    const page = await browser.newPage();
    await page.goto(`${url}/approvals`);
    for (const runId of ["rel-a", "rel-b"]) await item(page, runId).locator(".approval-select").check();
    await page.locator("#bulk-note").fill("both green");
    await page.locator('[data-testid="bulk-approve"]').click();
    await Promise.all([reach("rel-a", "finished"), reach("rel-b", "finished")]);
    for (const runId of ["rel-a", "rel-b"]) {
      const [ship] = await call<Array<{ resolution: Record<string, unknown> }>>("GET", `/v1/api/waits?runId=${runId}&nodeId=ship&status=any`);
      expect(ship!.resolution).toMatchObject({ approved: true, note: "both green" });
    }
    await expect.poll(() => page.locator('[data-testid="approval"]').count()).toBe(0);
    await page.getByText("Approved 2 of 2").waitFor();

    const payload = page.locator('[data-testid="signal-payload"]');
    await payload.fill('{"green": true}');
    expect(await page.locator(".json-field-error").textContent()).toContain("build");
    expect(await page.locator('[data-testid="signal-submit"]').isDisabled()).toBe(true);
    await payload.fill('{"green": true, "build": "812"}');
    await page.locator('[data-testid="signal-submit"]').click();
    await reach("dep-1", "finished");
    await page.close();
  });

  it("keeps the items where they are while the pointer is on the list: an approval arriving then is added at the end, marked new", async () => {
    await release("rel-d");
    await release("rel-e");
    const page = await browser.newPage();
    await page.goto(`${url}/approvals`);
    await item(page, "rel-d").waitFor();
    const order = () => page.locator('[data-testid="approval"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));
    expect(await order()).toEqual(["rel-e", "rel-d"]);
    // The pointer rests on rel-d's Approve button, under rel-e (newer, so above it).
    const approve = item(page, "rel-d").locator('[data-testid="approve"]');
    await approve.hover();
    const before = await approve.boundingBox();
    await release("rel-f");
    await item(page, "rel-f").waitFor();
    expect(await approve.boundingBox()).toEqual(before);
    expect(await order()).toEqual(["rel-e", "rel-d", "rel-f"]);
    expect(await item(page, "rel-f").getByTestId("approval-new").count()).toBe(1);
    // The focus in the list holds the order too (the screenshots move the pointer away).
    await item(page, "rel-d").getByTestId("approval-note").focus();
    await shootThemes(page, "view-approvals-arrived");
    expect(await order()).toEqual(["rel-e", "rel-d", "rel-f"]);
    await approve.click();
    await reach("rel-d", "finished");
    expect((await call<{ status: string }>("GET", "/v1/api/runs/rel-e?view=summary")).status).toBe("waiting-approval");
    // Left, the list is newest first again, nothing marked new.
    await page.mouse.move(0, 0);
    await expect.poll(order).toEqual(["rel-f", "rel-e"]);
    expect(await page.getByTestId("approval-new").count()).toBe(0);
    await page.close();
  });

  it("says what the winning decision was when someone else decided first", async () => {
    await release("rel-c");
    const page = await browser.newPage();
    // On purpose: the change stream is cut and the late decision is refused (409).
    allowConsole(browser, /v1\/api\/stream/, /HTTP 409 POST .*\/v1\/api\/approvals/, /status of 409 .*\/v1\/api\/approvals/);
    // This page hears of no change: no change stream, and the inbox's rows stay as first loaded.
    await page.route("**/v1/api/stream**", (route) => route.abort());
    let firstApprovals: string | undefined;
    await page.route("**/v1/api/approvals**", async (route) => {
      if (route.request().method() !== "GET") return route.continue();
      firstApprovals ??= await (await route.fetch()).text();
      await route.fulfill({ status: 200, contentType: "application/json", body: firstApprovals });
    });
    await page.goto(`${url}/approvals`);
    await item(page, "rel-c").waitFor();
    await call("POST", "/v1/api/approvals", { runId: "rel-c", nodeId: "ship", decision: "deny", note: "not today" });

    await item(page, "rel-c").locator('[data-testid="approve"]').click();
    await item(page, "rel-c").getByText("Someone decided first: denied: “not today”.").waitFor();
    await page.getByText("was already denied: “not today”; your decision was not recorded").waitFor();
    const [ship] = await call<Array<{ resolution: Record<string, unknown> }>>("GET", "/v1/api/waits?runId=rel-c&nodeId=ship&status=any");
    expect(ship!.resolution).toMatchObject({ approved: false, note: "not today" });
    await page.close();
  });
});
