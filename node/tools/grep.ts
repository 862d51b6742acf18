/**
 * @module node/tools/grep
 * The built-in `grep` tool (SPEC.md "Tools"): searches with ripgrep (`rg`, installed by
 * scripts/setup.d/ripgrep.sh) and prints `file:line:text` lines, paths relative to `rootDir`.
 * No match is an empty string; `rg` exiting with code 2 is TOOL_GREP_FAILED. ripgrep's own
 * defaults apply: `.gitignore`d and hidden files are skipped and symlinks are not followed
 * (docs/tools.md "grep").
 */
import { realpath } from "node:fs/promises";
import { relative } from "node:path";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/define-tool.js";
import { runProcess } from "./process.js";
import { resolveSandboxPath } from "./sandbox.js";

/**
 * Searches files under `path` (default `.`) for a regular expression. Read-only: `sideEffect`
 * false, `idempotent` true.
 * @example
 * const hits = await grep.execute({ pattern: "TODO\\(", path: "src" }, { rootDir: "/work/repo" });
 * // "src/app.ts:12:// TODO(ana): split this"
 */
export const grep = defineTool({
  name: "grep",
  description: "Search files for a regular expression (ripgrep syntax). Prints matching lines as file:line:text; empty when nothing matches. Skips git-ignored and hidden files.",
  schema: z.object({
    pattern: z.string().min(1).describe("Regular expression (Rust regex syntax, as ripgrep)"),
    path: z.string().min(1).default(".").describe("File or directory to search, relative to the workspace root"),
  }),
  async execute({ pattern, path }, ctx) {
    const target = await resolveSandboxPath({ toolName: "grep", rootDir: ctx.rootDir, path, mustExist: true });
    const root = await realpath(ctx.rootDir);
    const rel = relative(root, target) || ".";
    const args = ["--line-number", "--with-filename", "--no-heading", "--color", "never", "-e", pattern, "--", rel];
    const result = await runProcess({
      toolName: "grep",
      cmd: "rg",
      args,
      cwd: root,
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
      separateStderr: true,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (result.exitCode === 1) return "";
    if (result.exitCode !== 0) {
      throw new FlowError("TOOL_GREP_FAILED", `Tool "grep": rg failed (exit ${result.exitCode ?? result.signal}) searching "${path}" for ${JSON.stringify(pattern)}: ${result.stderr?.trim() ?? ""}`, {
        toolName: "grep",
        pattern,
        path,
        exitCode: result.exitCode,
        stderr: result.stderr,
      });
    }
    // rg prefixes paths with the directory it was given; "./" says nothing here.
    return rel === "." ? result.output.replace(/^\.\//gm, "") : result.output;
  },
});
