/**
 * @module e2e/support/app
 * The built app for browser tests: `ensureAppBuilt()` builds `dist/app/` once when its sources
 * changed (scripts/app-build.ts), and is safe when several test files call it at the same time
 * (one builds under a lock file, the others wait and reuse its build).
 */
import { type AppBuildResult, APP_DIR, ensureAppBuilt as ensureBuilt } from "../../scripts/app-build.js";

export { APP_DIR };

let once: Promise<AppBuildResult> | undefined;

/**
 * Builds `dist/app/` unless it is up to date (once per test process).
 * @example
 * beforeAll(async () => { await ensureAppBuilt(); }, 120_000);
 */
export function ensureAppBuilt(): Promise<AppBuildResult> {
  once ??= ensureBuilt();
  return once;
}
