/**
 * @module node/testing/process-state
 * A Vitest setup file (vite.config.ts `setupFiles`): fails a test file that leaves the process's
 * working directory or environment other than it found them, and puts them back. The node
 * project runs its files several to a process (`isolate: false`), so a file that changes them
 * without restoring them changes the next file's world (a `process.chdir` made another file's
 * child process look for tsx in a temp directory, docs/performance.md). A file that needs either
 * changed restores it itself (`onTestFinished`, `afterAll`). Test-only: excluded from the
 * package exports.
 */
import { afterAll } from "vitest";

const cwd = process.cwd();
const env = { ...process.env };

afterAll(() => {
  const changed = [...new Set([...Object.keys(env), ...Object.keys(process.env)])].filter((k) => env[k] !== process.env[k]).sort();
  const movedFrom = process.cwd() !== cwd ? process.cwd() : undefined;
  for (const k of changed) {
    if (env[k] === undefined) delete process.env[k];
    else process.env[k] = env[k];
  }
  if (movedFrom) process.chdir(cwd);
  const left = [...(movedFrom ? [`the working directory (${movedFrom}, was ${cwd})`] : []), ...changed.map((k) => `process.env.${k}`)];
  if (left.length > 0) throw new Error(`this file left ${left.join(", ")} changed: restore it when the test ends (node/testing/process-state.ts)`);
});
