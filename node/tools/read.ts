/**
 * @module node/tools/read
 * The built-in `read` tool (SPEC.md "Tools"): a file's UTF-8 contents, sandboxed to `rootDir`;
 * a file larger than `maxOutputBytes` is refused (TOOL_FILE_TOO_LARGE) rather than cut, so a
 * model never edits a file it saw only half of.
 */
import { readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/define-tool.js";
import { resolveSandboxPath } from "./sandbox.js";

/**
 * Reads a UTF-8 file inside `rootDir`. Read-only: `sideEffect` false, `idempotent` true.
 * @example
 * const text = await read.execute({ path: "src/index.ts" }, { rootDir: "/work/repo" });
 */
export const read = defineTool({
  name: "read",
  description: "Read a UTF-8 text file. `path` is relative to the workspace root. Fails for files larger than the output limit.",
  schema: z.object({ path: z.string().min(1).describe("File path, relative to the workspace root") }),
  async execute({ path }, ctx) {
    const file = await resolveSandboxPath({ toolName: "read", rootDir: ctx.rootDir, path, mustExist: true });
    const info = await stat(file);
    if (info.isDirectory()) throw new FlowError("TOOL_INPUT_INVALID", `Tool "read": "${path}" is a directory; read takes a file (use grep or bash \`ls\` to list).`, { toolName: "read", path });
    if (info.size > ctx.maxOutputBytes) {
      throw new FlowError("TOOL_FILE_TOO_LARGE", `Tool "read": "${path}" has ${info.size} bytes, more than maxOutputBytes (${ctx.maxOutputBytes}). Use grep to find the part you need.`, {
        toolName: "read",
        path,
        bytes: info.size,
        maxOutputBytes: ctx.maxOutputBytes,
      });
    }
    return await readFile(file, "utf8");
  },
});
