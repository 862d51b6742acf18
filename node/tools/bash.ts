/**
 * @module node/tools/bash
 * The built-in `bash` tool (SPEC.md "Tools" and "Limits"): runs one executable with an argument
 * list, no shell parsing (pipes and redirects need an explicit `sh -c`), in `opts.cwd` inside
 * `rootDir`, killed with SIGKILL (whole process group) at `timeoutMs` (hard cap one hour).
 * With `allowNetwork` false the network denylist applies, and on macOS the command also runs
 * under `sandbox-exec` with network denied; elsewhere a TOOL_NETWORK_ISOLATION_UNENFORCED
 * warning is logged once per process (docs/tools.md "Network").
 */
import { existsSync } from "node:fs";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/define-tool.js";
import { assertNetworkAllowed } from "./network-denylist.js";
import { runProcess } from "./process.js";
import { resolveSandboxDir } from "./sandbox.js";

/**
 * SPEC.md "Limits": `bash` inputs.
 * @example
 * if (args.length > BASH_LIMITS.maxArgs) args = args.slice(0, BASH_LIMITS.maxArgs);
 */
export const BASH_LIMITS = { maxCmdChars: 8192, maxArgs: 128, maxArgChars: 8192 } as const;

const SANDBOX_EXEC = "/usr/bin/sandbox-exec";
const DENY_NETWORK_PROFILE = "(version 1)(allow default)(deny network*)";
let isolationWarned = false;

/**
 * Runs `cmd` with `args` (no shell); resolves to combined stdout+stderr, truncated to
 * `maxOutputBytes`; a non-zero exit is TOOL_COMMAND_FAILED with the output in `details`.
 * `sideEffect` true, `idempotent` false.
 * @example
 * await bash.execute({ cmd: "git", args: ["status", "--short"] }, { rootDir: "/work/repo" });
 * await bash.execute({ cmd: "sh", args: ["-c", "ls | wc -l"] }, { rootDir: "/work/repo" });
 */
export const bash = defineTool({
  name: "bash",
  description:
    "Run one executable with an argument list in the workspace (no shell: `cmd` is the program, `args` its arguments; for pipes or redirects run `sh` with args [\"-c\", \"...\"]). Returns stdout and stderr combined; a non-zero exit is an error.",
  schema: z.object({
    cmd: z.string().min(1).max(BASH_LIMITS.maxCmdChars).describe("The executable, e.g. git or ls"),
    args: z.array(z.string().max(BASH_LIMITS.maxArgChars)).max(BASH_LIMITS.maxArgs).default([]).describe("Arguments, one per entry"),
    opts: z.object({ cwd: z.string().min(1).optional().describe("Working directory, relative to the workspace root") }).optional(),
  }),
  sideEffect: true,
  async execute({ cmd, args, opts }, ctx) {
    const cwd = await resolveSandboxDir({ toolName: "bash", rootDir: ctx.rootDir, path: opts?.cwd ?? "." });
    const command = ctx.allowNetwork ? { cmd, args } : withoutNetwork(cmd, args);
    const result = await runProcess({
      toolName: "bash",
      ...command,
      cwd,
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (result.exitCode !== 0) {
      const how = result.exitCode === null ? `was killed by ${result.signal}` : `exited with code ${result.exitCode}`;
      throw new FlowError("TOOL_COMMAND_FAILED", `Tool "bash": \`${cmd}\` ${how}.\n${result.output}`, {
        toolName: "bash",
        cmd,
        exitCode: result.exitCode,
        signal: result.signal,
        output: result.output,
      });
    }
    return result.output;
  },
});

/** Applies the denylist, then the OS network sandbox where there is one. */
function withoutNetwork(cmd: string, args: string[]): { cmd: string; args: string[] } {
  assertNetworkAllowed(cmd, args);
  if (process.platform === "darwin" && existsSync(SANDBOX_EXEC)) return { cmd: SANDBOX_EXEC, args: ["-p", DENY_NETWORK_PROFILE, cmd, ...args] };
  if (!isolationWarned) {
    isolationWarned = true;
    console.warn(
      `[flow] TOOL_NETWORK_ISOLATION_UNENFORCED: this platform (${process.platform}) gives the bash tool no network isolation; with allowNetwork false only the command denylist applies, which is best-effort and not a security boundary.`,
    );
  }
  return { cmd, args };
}
