/**
 * @module e2e/support/offline-app
 * The setup the browser-engine tests share: the built app served as static files (no Gateway,
 * so the app opens "This browser") and a fresh Chromium profile directory, both removed after
 * the file's tests, with the browser the test launched on it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { APP_DIR, ensureAppBuilt } from "./app.js";
import { serveStatic, type StaticServer } from "./static-server.js";

/** What the tests of a file use; `ctx` is the browser they launched (closed after them). */
export interface OfflineApp {
  server: StaticServer;
  profile: string;
  ctx: BrowserContext | undefined;
}

/**
 * Registers the setup and teardown of a test file; read the fields inside tests.
 * @example
 * const app = offlineApp("two-tabs");
 * it("...", async () => { app.ctx = await launchPersistent(app.profile); await page.goto(app.server.url); });
 */
export function offlineApp(name: string): OfflineApp {
  const app = { ctx: undefined } as OfflineApp;
  beforeAll(async () => {
    await ensureAppBuilt();
    app.server = await serveStatic(APP_DIR);
    app.profile = mkdtempSync(join(tmpdir(), `flow-${name}-`));
  }, 180_000);
  afterAll(async () => {
    await app.ctx?.close();
    await app.server?.close();
    if (app.profile) rmSync(app.profile, { recursive: true, force: true });
  });
  return app;
}
