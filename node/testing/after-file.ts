/**
 * @module node/testing/after-file
 * A Vitest setup file (vite.config.ts `setupFiles`): when a test file ends, it runs the closers
 * that helpers living for the whole file registered under the global key below, such as the
 * shared PGlite instance (node/testing/pglite-shared.ts). Vitest ends a file's process without
 * an `exit` event, so such a helper cannot clean up there. Only the setup file imports this
 * module (its top-level `afterAll` needs a running Vitest; the helpers reach the list through
 * the key, so the testing kit never loads it). Light on purpose: every test file loads it.
 * Test-only: excluded from the package exports.
 */
import { afterAll } from "vitest";

const KEY = Symbol.for("durable-flow.testing.afterFile");

afterAll(async () => {
  const closers = (globalThis as { [KEY]?: Array<() => Promise<void>> })[KEY] ?? [];
  for (const close of closers.splice(0)) await close();
});
