/**
 * @module node/testing/after-file
 * A Vitest setup file (vite.config.ts `setupFiles`): when a test file ends, it closes what
 * helpers keep open for the whole file, such as the shared PGlite instance
 * (node/testing/pglite-shared.ts). Vitest ends a file's process without an `exit` event, so a
 * process-wide helper cannot clean up there. Light on purpose: every test file loads it.
 * Test-only: excluded from the package exports.
 */
import { afterAll } from "vitest";

const KEY = Symbol.for("durable-flow.testing.afterFile");
const closers = ((globalThis as { [KEY]?: Array<() => Promise<void>> })[KEY] ??= []);

/** Runs `close` when the current test file ends (after its own `afterAll` hooks). */
export function closeAfterFile(close: () => Promise<void>): void {
  closers.push(close);
}

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});
