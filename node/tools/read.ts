/**
 * @module node/tools/read
 * The built-in `read` tool (SPEC.md "Tools"): a file's UTF-8 contents, sandboxed to `rootDir`;
 * a file larger than `maxOutputBytes` is refused (TOOL_FILE_TOO_LARGE) rather than cut, so a
 * model never edits a file it saw only half of. The file is opened without following links
 * and must be a regular file (sandbox-file.ts); reading stops at the limit even if it grows.
 */
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { defineTool } from "../../core/tools/index.js";
import { openSandboxedFile } from "./sandbox-file.js";

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
    const { handle, size } = await openSandboxedFile({ toolName: "read", rootDir: ctx.rootDir, path });
    try {
      // Read to the end, but never more than one byte past the limit (the file may grow).
      const chunks: Buffer[] = [];
      let length = 0;
      for (;;) {
        const chunk = Buffer.alloc(Math.min(Math.max(size - length, 0) + 1, ctx.maxOutputBytes + 1 - length, 1 << 20));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        length += bytesRead;
        if (length > ctx.maxOutputBytes) break;
      }
      if (length > ctx.maxOutputBytes) {
        const bytes = Math.max(size, length);
        throw new FlowError("TOOL_FILE_TOO_LARGE", `Tool "read": "${path}" has ${bytes} bytes, more than maxOutputBytes (${ctx.maxOutputBytes}). Use grep to find the part you need.`, {
          toolName: "read",
          path,
          bytes,
          maxOutputBytes: ctx.maxOutputBytes,
        });
      }
      return Buffer.concat(chunks).toString("utf8");
    } finally {
      await handle.close();
    }
  },
});
