/**
 * @module e2e/support/team-app
 * A team workspace for browser tests: the team fixture (e2e/electric/team-fixture.ts: a team
 * Gateway over a fresh PostgreSQL schema, the Electric stand-in behind its shape proxy, users
 * `ana` (owner), `bea` (approve), `dan` (read), `cy` (no member), each signing in with their
 * name as a bearer token) serving the built app, and `signIn()`: a browser context of its own
 * whose page signs in through the app's token prompt, as a person would. `teamBrowsers()`
 * registers both for a test file (the team app and one Chromium, closed after its tests).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { startTeamFixture, type TeamFixture, type TeamUser } from "../electric/team-fixture.js";
import { ensureAppBuilt } from "./app.js";
import { allowConsole, launchChromium } from "./chromium.js";

/**
 * Builds the app if needed and starts the team fixture serving it at `/`.
 * @example
 * const team = await startTeamApp();
 * await team.close();
 */
export async function startTeamApp(): Promise<TeamFixture> {
  await ensureAppBuilt();
  return startTeamFixture({ ui: true });
}

/** A signed-in member's browser context and page. */
export interface SignedIn {
  context: BrowserContext;
  page: Page;
}

/**
 * Opens `path` in a fresh context as `who`: the Gateway asks for a token, the page types it in
 * the token prompt, and the team workspace opens (or the "not a member" state shows).
 * @example
 * const { page } = await signIn(browser, team.url, "bea", "/runs");
 */
export async function signIn(browser: Browser, url: string, who: TeamUser, path = "/runs"): Promise<SignedIn> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${url}${path}`);
  await page.locator('[data-testid="token-input"]').fill(who);
  await page.locator('[data-testid="token-submit"]').click();
  await page.locator('[data-testid="team-info"], [data-testid="not-a-member"]').first().waitFor();
  return { context, page };
}

/** What a test file's tests share; read the fields inside tests. */
export interface TeamBrowsers {
  team: TeamFixture;
  browser: Browser;
}

/**
 * Starts the team app and Chromium before the file's tests and closes both after them. What
 * every team test provokes on purpose is allowed on the console: the sign-in probe before a
 * token is set (401), refused reads and writes (403), crafted shape requests (400, 404).
 * @example
 * const t = teamBrowsers();
 * it("...", async () => { const bea = await signIn(t.browser, t.team.url, "bea"); });
 */
export function teamBrowsers(): TeamBrowsers {
  const shared = {} as TeamBrowsers;
  beforeAll(async () => {
    [shared.team, shared.browser] = await Promise.all([startTeamApp(), launchChromium()]);
    allowConsole(shared.browser, /(status of|HTTP) 401 .*\/v1\/api\/runs\?limit=1/, /(status of|HTTP) 403 /, /(status of|HTTP) 40[04] .*\/sync\//, /HTTP 40[04] GET .*\/sync\//);
  }, 180_000);
  afterAll(async () => {
    await shared.browser?.close();
    await shared.team?.close();
  });
  return shared;
}
