/**
 * Decisions in the app against a real Gateway (in this process, over a temp SQLite file,
 * serving the built app) in Debian's Chromium (issue 23): "Rewind here" on a task before an
 * approved `ship` lists `ship` as asked again, and after the rewind the inbox asks for it and
 * `deploy` waits; "Keep earlier decisions" keeps it; cancelling a waiting run drops its
 * approval from the open inbox at once. And what a rewind leaves (repositories inside the
 * workspace), and what an attempt changed there (its Diff). Screenshots: docs/app/rewind-decisions-*.png,
 * rewind-kept-*.png, attempt-diff-*.png.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Browser, Page } from "playwright-core";
import type { Gateway } from "durable-flow";
import { gitIn, tempRepo } from "../node/vcs/testing.js";
import { createAppGateway } from "../scripts/app-gateway.js";
import { ensureAppBuilt } from "./support/app.js";
import { launchChromium } from "./support/chromium.js";
import { domainApi } from "./support/domain-api.js";
import { shootThemes } from "./support/screens.js";

describe("decisions when a run is rewound or cancelled, in the app", () => {
  let gateway: Gateway;
  let url = "";
  let browser: Browser;

  const { call, reach, launch } = domainApi(() => url);
  /** A `release` run waiting on its `ship` approval. */
  const release = (runId: string) => launch("release", { service: runId, shards: 1, workMs: 0 }, runId, "waiting-approval");
  const approved = async (runId: string) => {
    await release(runId);
    await call("POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve", note: "green" });
    await reach(runId, "finished");
  };
  const openRewind = async (page: Page, runId: string) => {
    await page.goto(`${url}/runs/${runId}?node=build`);
    await page.locator('[data-testid="rewind"]').first().click();
    await page.locator('[data-testid="reset-decision"][data-node-id="ship"]').waitFor();
  };

  /** A Gateway whose runs snapshot a real repository, into which an agent cloned a library (`deps/lib`); the caller closes it. */
  const gatewayInRepository = async () => {
    const repo = tempRepo();
    const lib = tempRepo();
    writeFileSync(join(lib, "lib.txt"), "lib v1\n");
    gitIn(lib, "add", "lib.txt");
    gitIn(lib, "commit", "-q", "-m", "lib");
    gitIn(repo, "clone", "-q", lib, "deps/lib");
    vi.stubEnv("FLOW_SNAPSHOTS", "on");
    const inRepo = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-in-repo-")), "flow.db"), options: { workspaceRoot: repo } });
    vi.unstubAllEnvs();
    const server = await inRepo.listen({ port: 0, host: "127.0.0.1" });
    return { repo, inRepo, at: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };

  beforeAll(async () => {
    await ensureAppBuilt();
    gateway = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-decisions-")), "flow.db") });
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it("rewinding before an approved approval lists it as asked again, and the inbox asks for it", { timeout: 120_000 }, async () => {
    await approved("rw-1");
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await openRewind(page, "rw-1");
    const dialog = page.locator('[data-testid="rewind-dialog"]');
    expect(await dialog.locator('[data-testid="reset-decisions"]').textContent()).toContain("Asked again");
    expect(await dialog.locator('[data-testid="reset-decision"][data-node-id="ship"]').textContent()).toContain("approval, approved");
    await shootThemes(page, "rewind-decisions");
    await dialog.getByRole("button", { name: "Rewind and resume" }).click();
    await reach("rw-1", "waiting-approval");
    await page.goto(`${url}/approvals`);
    await page.locator('[data-testid="approval"][data-run-id="rw-1"]').waitFor();
    const tree = await call<{ nodes: Array<{ nodeId: string; state: string }> }>("GET", "/v1/api/runs/rw-1");
    expect(tree.nodes.find((n) => n.nodeId === "deploy")?.state).toBe("pending");
    await page.close();
  });

  it("keeps the earlier decision when the box is checked: the run finishes again without asking", { timeout: 90_000 }, async () => {
    await approved("rw-2");
    const page = await browser.newPage();
    await openRewind(page, "rw-2");
    const dialog = page.locator('[data-testid="rewind-dialog"]');
    await dialog.locator('[data-testid="keep-decisions"]').check();
    expect(await dialog.locator('[data-testid="reset-decisions"]').textContent()).toContain("Decisions kept");
    await dialog.getByRole("button", { name: "Rewind and resume" }).click();
    await reach("rw-2", "finished");
    expect(await call<unknown[]>("GET", "/v1/api/approvals?runId=rw-2")).toEqual([]);
    await page.close();
  });

  it("names, before the rewind, the repositories inside the workspace the restore leaves as they are", { timeout: 120_000 }, async () => {
    const { inRepo, at } = await gatewayInRepository();
    try {
      const launched = await fetch(`${at}/v1/api/runs`, { method: "POST", body: JSON.stringify({ workflow: "release", input: { service: "kept", shards: 1, workMs: 0 }, runId: "kp-1" }) });
      expect(launched.status).toBe(200);
      await inRepo.host.activeRun("kp-1")?.done;
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${at}/runs/kp-1?node=build`);
      await page.locator('[data-testid="rewind"]').first().click();
      const kept = page.locator('[data-testid="rewind-dialog"] [data-testid="rewind-kept"]');
      await kept.waitFor();
      expect(await kept.textContent()).toMatch(/Left as it is:\s*deps\/lib\s*\(a git repository of its own inside the workspace/);
      expect(await page.locator('[data-testid="rewind-dialog"]').textContent()).toContain("The workspace files go back to the snapshot");
      await shootThemes(page, "rewind-kept");
      await page.close();
    } finally {
      await inRepo.close();
    }
  });

  it("shows what an attempt changed in its workspace, a repository inside it as one whose HEAD moved", { timeout: 120_000 }, async () => {
    const { repo, inRepo, at } = await gatewayInRepository();
    try {
      const launched = await fetch(`${at}/v1/api/runs`, { method: "POST", body: JSON.stringify({ workflow: "release", input: { service: "diff", shards: 1, workMs: 1500 }, runId: "df-1" }) });
      expect(launched.status).toBe(200);
      // While `build` works, something edits the workspace and commits in the clone (as an agent would).
      for (let i = 0; i < 200 && !gitIn(repo, "for-each-ref", "refs/flow/runs/df-1/").includes("build"); i++) await new Promise((r) => setTimeout(r, 25));
      writeFileSync(join(repo, "CHANGELOG.md"), "# 1.1\n");
      gitIn(join(repo, "deps/lib"), "commit", "-q", "--allow-empty", "-m", "fix");
      await inRepo.host.activeRun("df-1")?.done;

      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${at}/runs/df-1?node=build`);
      await page.getByRole("button", { name: "Diff" }).click();
      const files = page.locator(".node-diff li");
      await files.first().waitFor();
      expect(await page.locator(".node-diff").textContent()).toContain("Attempt 1 changed 2 files:");
      expect(await files.allTextContents()).toEqual(["▸ added CHANGELOG.md", "▸ modified deps/lib (a git repository of its own: its HEAD moved)"]);
      // A file opens to how it changed: its unified diff, the added line marked as added.
      await page.locator('[data-testid="diff-file"][data-path="CHANGELOG.md"] button').click();
      const patch = page.locator('[data-testid="file-patch"][data-path="CHANGELOG.md"]');
      await patch.locator("pre").waitFor();
      expect(await patch.locator(".patch-add").allTextContents()).toEqual(["+# 1.1"]);
      expect(await patch.locator(".patch-meta").allTextContents()).toContain("+++ b/CHANGELOG.md");
      expect(await page.locator('[data-testid="diff-file"][data-path="CHANGELOG.md"] button').getAttribute("aria-expanded")).toBe("true");
      await shootThemes(page, "attempt-diff");
      await page.close();
    } finally {
      await inRepo.close();
    }
  });

  it("drops a cancelled run's approval from the open inbox at once", { timeout: 60_000 }, async () => {
    await release("cx-1");
    const page = await browser.newPage();
    await page.goto(`${url}/approvals`);
    const item = page.locator('[data-testid="approval"][data-run-id="cx-1"]');
    await item.waitFor();
    await call("POST", "/v1/api/runs/cx-1/cancel", {});
    await item.waitFor({ state: "detached", timeout: 5000 });
    await page.close();
  });
});
