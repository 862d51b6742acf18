/**
 * @module e2e/support/chromium
 * Launches Debian's Chromium through playwright-core with the flags this environment needs
 * (DESIGN.md "What is tested"): headless, no sandbox (CI runs as root), no background
 * networking (the machine's network is closed). `scripts/setup.d/chromium.sh` installs it.
 * Every browser is watched by e2e/support/console-guard.ts: closing it throws when a page logged
 * a console error or a request failed, so each e2e checks that the console stays clean.
 */
import { type Browser, type BrowserContext, chromium, type LaunchOptions } from "playwright-core";
import { guardConsole } from "./console-guard.js";

export { allowConsole, takeConsoleProblems } from "./console-guard.js";

/** Where Debian installs Chromium (override with FLOW_CHROMIUM). */
export const CHROMIUM_PATH = process.env.FLOW_CHROMIUM ?? "/usr/bin/chromium";

/** The flags every launch uses. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Chromium.
 * @example
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 */
export async function launchChromium(opts: LaunchOptions = {}): Promise<Browser> {
  return guardConsole(await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, ...opts }));
}

/**
 * Launches Chromium with a profile directory that outlives the browser (for "after a browser
 * restart with the same profile").
 * @example
 * const ctx = await launchPersistent(profileDir);
 * await ctx.close(); // then launch again with the same dir
 */
export async function launchPersistent(userDataDir: string, opts: Parameters<typeof chromium.launchPersistentContext>[1] = {}): Promise<BrowserContext> {
  return guardConsole(await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, ...opts }));
}
