/**
 * @module node/testing/flow-process
 * The `flow` CLI as a child process, for tests that run it as a user does (`flow up`,
 * `flow serve`, `flow pause` ...): what it printed so far on stdout and stderr together, and
 * when it exited. The process is SIGKILLed when the test finishes. Test code only.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";

const BIN = fileURLToPath(new URL("../cli/bin.mjs", import.meta.url));

/** A running `flow` process. */
export interface FlowProcess {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Runs `flow <args>` in `cwd` (a temp dir, so runs do not snapshot the repository).
 * @example
 * const p = flowProcess(["up", file, "--wait"], { FLOW_TEST_LOG: log }, dir);
 * expect(await p.exited).toBe(0);
 */
export function flowProcess(args: string[], env: Record<string, string>, cwd: string): FlowProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  onTestFinished(() => void child.kill("SIGKILL"));
  return { child, output: () => out, exited };
}
