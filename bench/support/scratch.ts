/**
 * A benchmark's scratch directory under the system's temp directory, removed when the process
 * exits: a store per run adds up (1,000 runs of bench/engine.tsx left 1.2 GB in /tmp).
 * @example
 * const dir = scratchDir("flow-bench-"); // gone once the benchmark's process ends
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
