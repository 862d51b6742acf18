/**
 * @module node/tools/bash
 * The built-in `bash` tool (SPEC.md "Tools" and "Limits"): runs one executable with an argument
 * list, no shell parsing (pipes and redirects need an explicit `sh -c`), in `opts.cwd` inside
 * `rootDir`, killed with SIGKILL (every descendant) at `timeoutMs` (hard cap one hour).
 * With `allowNetwork` false the network denylist applies, then the OS isolation of
 * isolation.ts (a network namespace on Linux, `sandbox-exec` on macOS); where there is none a
 * TOOL_NETWORK_ISOLATION_UNENFORCED warning is logged once per process (docs/tools.md "Network").
 */
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/index.js";
import { toolIsolation } from "./isolation.js";
import { assertNetworkAllowed } from "./network-denylist.js";
import { runProcess } from "./process.js";
import { resolveSandboxDir } from "./sandbox.js";

/**
 * SPEC.md "Limits": `bash` inputs.
 * @example
 * if (args.length > BASH_LIMITS.maxArgs) args = args.slice(0, BASH_LIMITS.maxArgs);
 */
export const BASH_LIMITS = { maxCmdChars: 8192, maxArgs: 128, maxArgChars: 8192 } as const;

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
    if (!ctx.allowNetwork) assertNetworkAllowed(cmd, args);
    const isolation = toolIsolation();
    if (!ctx.allowNetwork && isolation.mode === "none") warnUnenforced();
    // Inside a wrapper a missing executable is the wrapper's exit 127; say it as Flow does.
    if (isolation.mode !== "none" && !onPath(cmd, cwd)) {
      throw new FlowError("TOOL_COMMAND_NOT_FOUND", `Tool "bash": executable \`${cmd}\` was not found on PATH.`, { toolName: "bash", cmd });
    }
    const result = await runProcess({
      toolName: "bash",
      cmd,
      args,
      spawnAs: isolation.wrap(cmd, args, ctx.allowNetwork),
      sweepDescendants: isolation.mode === "none" && process.platform === "linux",
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

function warnUnenforced(): void {
  if (isolationWarned) return;
  isolationWarned = true;
  console.warn(
    `[flow] TOOL_NETWORK_ISOLATION_UNENFORCED: this machine (${process.platform}) gives the bash tool no network isolation (no usable network namespace or sandbox-exec); with allowNetwork false only the command denylist applies, which is best-effort and not a security boundary.`,
  );
}

/** True when `cmd` names an executable file: a path (relative to `cwd`), or found on PATH. */
function onPath(cmd: string, cwd: string): boolean {
  const candidates = cmd.includes("/") ? [isAbsolute(cmd) ? cmd : resolve(cwd, cmd)] : (process.env.PATH ?? "").split(delimiter).filter(Boolean).map((dir) => join(dir, cmd));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
}
