/**
 * @module node/testing/suite-tmp
 * A Vitest global setup file (vite.config.ts `globalSetup`): every temporary file of a test run
 * goes under one directory of its own, removed when the run ends. Tests, the helpers they call,
 * Chromium and the processes tests start all make their temporary directories under
 * `os.tmpdir()` and most leave them there (a directory a test's child process still writes to
 * cannot be removed when the test ends): a whole suite left about 3,000 directories and several
 * hundred MB in /tmp per run. `TMPDIR` is set before the test processes start, so they and their
 * children inherit it. A run that was killed before its teardown leaves its directory behind; the
 * next run removes it (its owner's pid is gone). Test-only: excluded from the package exports.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pidAlive } from "../pid-alive.js";

const PREFIX = "flow-suite-";
const OWNER = ".owner-pid";

export default function setup(): (() => void) | undefined {
  // Each project inherits this file: the first to start makes the directory, for all of them.
  if (process.env.FLOW_SUITE_TMPDIR) return undefined;
  const parent = tmpdir();
  sweepLeftovers(parent);
  const dir = mkdtempSync(join(parent, PREFIX));
  writeFileSync(join(dir, OWNER), String(process.pid));
  const before = process.env.TMPDIR;
  process.env.FLOW_SUITE_TMPDIR = dir;
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env.FLOW_SUITE_TMPDIR;
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
}

/** Removes the directories of earlier runs whose process is gone (killed before its teardown). */
function sweepLeftovers(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(parent, name);
    let pid: number;
    try {
      pid = Number(readFileSync(join(dir, OWNER), "utf8"));
    } catch {
      continue; // not one of ours, or being made
    }
    if (!pidAlive(pid)) rmSync(dir, { recursive: true, force: true });
  }
}
