/**
 * @module node/testing/temp-dir
 * A fresh temporary directory for a test or a test fixture. Its own module so that what imports
 * it (the Gateway's test fixture, `durable-flow/testing` users) does not load vitest.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A new empty directory under the system's temporary directory.
 * @example
 * const dir = tempDir("flow-gw-"); // "/tmp/flow-gw-Ab12Cd"
 */
export function tempDir(prefix = "flow-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
