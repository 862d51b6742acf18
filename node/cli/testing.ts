/**
 * @module node/cli/testing
 * The `flow` CLI run in the test's own process (`main`, no child process) with what it printed
 * captured, for the tests of its commands (node/testing/flow-process.ts runs it as a process).
 * Test-only: excluded from the package exports.
 */
import type { CliIO } from "./command.js";
import { main } from "./main.js";

/** What one `flow` command answered. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `flow <argv>` in `cwd` with `env` as its environment (not this process's).
 * @example
 * const { code, stdout } = await runCli(["runs", "--json"], { cwd: dir });
 */
export async function runCli(argv: string[], where: { cwd: string; env?: Record<string, string> }): Promise<CliRun> {
  const out = { stdout: "", stderr: "" };
  const io: CliIO = {
    stdout: (t) => void (out.stdout += t),
    stderr: (t) => void (out.stderr += t),
    cwd: where.cwd,
    env: where.env ?? {},
    isTTY: false,
  };
  const code = await main(argv, io);
  return { code, ...out };
}
