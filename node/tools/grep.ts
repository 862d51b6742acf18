/**
 * @module node/tools/grep
 * The built-in `grep` tool (SPEC.md "Tools"): searches with ripgrep (`rg`, installed by
 * scripts/setup.d/ripgrep.sh) and prints `file:line:text` lines, paths relative to `rootDir`.
 * No match is an empty string; `rg` exiting with code 2 is TOOL_GREP_FAILED. ripgrep's own
 * defaults apply: `.gitignore`d and hidden files are skipped and symlinks are not followed
 * (docs/tools.md "grep"). rg starts in the sandbox directory held open (sandbox-file.ts), so a
 * swap between the check and the search cannot move its start outside.
 */
import { realpath, stat } from "node:fs/promises";
import { basename, dirname, relative } from "node:path";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/index.js";
import { runProcess } from "./process.js";
import { resolveSandboxPath } from "./sandbox.js";
import { fileError } from "./file-errors.js";
import { openSandboxDir } from "./sandbox-file.js";

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
    const req = { toolName: "grep", rootDir: ctx.rootDir, path };
    const target = await resolveSandboxPath({ ...req, mustExist: true });
    const root = await realpath(ctx.rootDir);
    const isDir = (
      await stat(target).catch((error: unknown) => {
        throw fileError(req, error);
      })
    ).isDirectory();
    // rg starts in the directory held open (walked without following links), not at a name
    // a concurrent swap could redirect; its paths are made relative to rootDir again below.
    const dir = await openSandboxDir(req, isDir ? target : dirname(target), false);
    const start = isDir ? "." : basename(target);
    const prefix = relative(root, dir.path);
    const args = ["--line-number", "--with-filename", "--no-heading", "--color", "never", "-e", pattern, "--", start];
    const result = await runProcess({
      toolName: "grep",
      cmd: "rg",
      args,
      cwd: dir.self,
      timeoutMs: ctx.timeoutMs,
      maxOutputBytes: ctx.maxOutputBytes,
      separateStderr: true,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    }).finally(() => dir.handle.close());
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
    // rg prints paths as given ("./x" under ".", "name" for a file): make them rootDir-relative.
    const own = isDir ? /^\.\//gm : new RegExp(`^(?=${escapeRegExp(start)}:)`, "gm");
    return result.output.replace(own, prefix === "" ? "" : `${prefix}/`);
  },
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
