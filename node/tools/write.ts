/**
 * @module node/tools/write
 * The built-in `write` tool (SPEC.md "Tools"): writes a UTF-8 file inside `rootDir`, creating
 * parent directories. Content over `maxOutputBytes` is refused with TOOL_CONTENT_TOO_LARGE, and
 * only its byte size and SHA-256 appear in the error (SPEC.md "Errors"), never the content.
 * The file is replaced (a temporary beside it, renamed over it; sandbox-file.ts), so a hard
 * link to a file outside `rootDir` is never written through.
 */
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { byteLength, defineTool } from "../../core/tools/index.js";
import { sha256Hex } from "../../core/util/index.js";
import { replaceSandboxedFile } from "./sandbox-file.js";

/**
 * Writes (creates or replaces) a file inside `rootDir`; returns `"ok"`. `sideEffect` true,
 * `idempotent` false.
 * @example
 * await write.execute({ path: "notes/todo.md", content: "# Todo\n" }, { rootDir: "/work/repo" });
 */
export const write = defineTool({
  name: "write",
  description: "Write a UTF-8 text file (created or replaced; parent directories are created). `path` is relative to the workspace root.",
  schema: z.object({
    path: z.string().min(1).describe("File path, relative to the workspace root"),
    content: z.string().describe("The whole new content of the file"),
  }),
  sideEffect: true,
  async execute({ path, content }, ctx) {
    const bytes = byteLength(content);
    if (bytes > ctx.maxOutputBytes) {
      throw new FlowError("TOOL_CONTENT_TOO_LARGE", `Tool "write": content for "${path}" has ${bytes} bytes, more than maxOutputBytes (${ctx.maxOutputBytes}). Write it in smaller files or raise maxOutputBytes.`, {
        toolName: "write",
        path,
        bytes,
        sha256: sha256Hex(content),
        maxOutputBytes: ctx.maxOutputBytes,
      });
    }
    await replaceSandboxedFile({ toolName: "write", rootDir: ctx.rootDir, path }, content);
    return "ok" as const;
  },
});
