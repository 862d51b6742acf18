/**
 * @module node/tools/isolation
 * The OS confinement of tool processes (docs/tools.md "bash" and "Network"), detected once per
 * process at run time:
 *
 * - `namespaces` (Linux, where `unshare` may create namespaces: as root, or through an
 *   unprivileged user namespace): every process runs in a new PID namespace under a small
 *   `sh` init, so killing it kills every descendant, a new session (`setsid`) included; with
 *   the network disabled it also gets a new network namespace with no interfaces at all
 *   (`python3 urllib`, `node fetch`, `/dev/tcp`, a git alias: nothing leaves).
 * - `sandbox-exec` (macOS): a network-deny profile; descendants are killed by process group.
 * - `none`: process group only, and the network denylist alone (a
 *   TOOL_NETWORK_ISOLATION_UNENFORCED warning is logged once).
 *
 * `FLOW_TOOL_ISOLATION=none` turns the namespaces off (for machines where `unshare` misbehaves).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Which confinement this machine gives tool processes.
 * @example
 * if (toolIsolation().mode === "none") console.warn("denylist only");
 */
export interface ToolIsolation {
  mode: "namespaces" | "sandbox-exec" | "none";
  /** The argv prefix that confines a command: `[...prefix, cmd, ...args]`. */
  wrap(cmd: string, args: readonly string[], allowNetwork: boolean): { cmd: string; args: string[] };
}

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
const DENY_NETWORK_PROFILE = "(version 1)(allow default)(deny network*)";
/** The namespace's init: runs the command as its child (PID 1 ignores signals it has no handler for) and passes its exit code on. */
const INIT = ['/bin/sh', "-c", '"$@"; exit $?', "flow-tool"];

let detected: ToolIsolation | undefined;

/** Detects (once) and returns the confinement of this machine. */
export function toolIsolation(): ToolIsolation {
  return (detected ??= detect());
}

function detect(): ToolIsolation {
  const none: ToolIsolation = { mode: "none", wrap: (cmd, args) => ({ cmd, args: [...args] }) };
  if (process.env.FLOW_TOOL_ISOLATION === "none") return none;
  if (process.platform === "darwin") {
    if (!existsSync(SANDBOX_EXEC)) return none;
    return { mode: "sandbox-exec", wrap: (cmd, args, allowNetwork) => (allowNetwork ? { cmd, args: [...args] } : { cmd: SANDBOX_EXEC, args: ["-p", DENY_NETWORK_PROFILE, cmd, ...args] }) };
  }
  if (process.platform !== "linux") return none;
  const base = ["--pid", "--fork", "--kill-child"];
  for (const user of [[], ["--user", "--map-current-user"]]) {
    const probe = spawnSync("unshare", [...user, "--net", ...base, "--", ...INIT, "true"], { stdio: "ignore", timeout: 5000 });
    if (probe.status === 0) {
      return {
        mode: "namespaces",
        wrap: (cmd, args, allowNetwork) => ({ cmd: "unshare", args: [...user, ...(allowNetwork ? [] : ["--net"]), ...base, "--", ...INIT, cmd, ...args] }),
      };
    }
  }
  return none;
}
