/**
 * @module node/tools/process-sweep
 * Finding a tool call's descendants without a PID namespace (Linux, isolation mode `none`;
 * docs/tools.md "bash"): the call's process gets `FLOW_TOOL_CALL=<random id>` in its
 * environment, which every descendant inherits, a new session (`setsid`) included. Killing
 * the call then kills every process on the machine whose environment carries that id. A
 * process that clears its environment (`env -i`) is not found; the PID namespace is the
 * guarantee, this is the fallback.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/** The environment variable that marks a call's processes. */
export const TOOL_CALL_ENV = "FLOW_TOOL_CALL";

/** A fresh marker value for one call. */
export function newToolCallId(): string {
  return randomBytes(12).toString("hex");
}

/** SIGKILLs every process whose environment holds `FLOW_TOOL_CALL=<id>`; returns how many. */
export function killMarkedProcesses(id: string): number {
  const marker = Buffer.from(`${TOOL_CALL_ENV}=${id}\0`);
  let killed = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`).includes(marker)) continue;
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return killed;
}
