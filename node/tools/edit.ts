/**
 * @module node/tools/edit
 * The built-in `edit` tool (SPEC.md "Tools"): applies a unified diff (as `diff -u` or
 * `git diff` print it) to one existing file, with jsdiff and no fuzz: every context line must
 * match (TOOL_PATCH_FAILED otherwise). File names in the patch headers are ignored; `path`
 * says which file. A patch over `maxOutputBytes` is refused (TOOL_PATCH_TOO_LARGE). The result
 * replaces the file as `write` does (never written through a hard link).
 */
import type { StructuredPatch } from "diff";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";
import { byteLength, defineTool } from "../../core/tools/index.js";
import { openSandboxedFile, replaceSandboxedFile } from "./sandbox-file.js";

/**
 * Patches an existing file inside `rootDir` with a unified diff; returns `"ok"`. `sideEffect`
 * true, `idempotent` false.
 * @example
 * await edit.execute({ path: "f.txt", patch: "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-old\n+new\n" }, { rootDir: "/work/repo" });
 */
export const edit = defineTool({
  name: "edit",
  description: "Apply a unified diff patch (as printed by `diff -u` or `git diff`) to one existing file. Context lines must match the file exactly.",
  schema: z.object({
    path: z.string().min(1).describe("The existing file to patch, relative to the workspace root"),
    patch: z.string().min(1).describe("Unified diff of this one file"),
  }),
  sideEffect: true,
  async execute({ path, patch }, ctx) {
    const bytes = byteLength(patch);
    if (bytes > ctx.maxOutputBytes) {
      throw new FlowError("TOOL_PATCH_TOO_LARGE", `Tool "edit": the patch for "${path}" has ${bytes} bytes, more than maxOutputBytes (${ctx.maxOutputBytes}). Split it, or use write.`, {
        toolName: "edit",
        path,
        bytes,
        maxOutputBytes: ctx.maxOutputBytes,
      });
    }
    const target = { toolName: "edit", rootDir: ctx.rootDir, path };
    const { handle } = await openSandboxedFile(target);
    const source = await handle.readFile("utf8").finally(() => handle.close());
    // diff loads at the first edit, not with the package (docs/package.md "What loads when").
    const { applyPatch, parsePatch } = await import("diff");
    const result = applyPatch(source, singleFilePatch(path, patch, parsePatch));
    if (result === false) {
      throw new FlowError("TOOL_PATCH_FAILED", `Tool "edit": the patch does not match "${path}" (its context lines differ from the file). Read the file again and make a patch against its current content.`, {
        toolName: "edit",
        path,
      });
    }
    await replaceSandboxedFile(target, result);
    return "ok" as const;
  },
});

function singleFilePatch(path: string, patch: string, parsePatch: typeof import("diff").parsePatch): StructuredPatch {
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(patch);
  } catch (cause) {
    throw new FlowError("TOOL_PATCH_FAILED", `Tool "edit": the patch for "${path}" is not a valid unified diff: ${(cause as Error).message}`, { toolName: "edit", path }, { cause });
  }
  const withHunks = parsed.filter((p) => p.hunks.length > 0);
  if (withHunks.length !== 1) {
    throw new FlowError(
      "TOOL_PATCH_FAILED",
      withHunks.length === 0
        ? `Tool "edit": the patch for "${path}" has no hunks (no "@@ -a,b +c,d @@" lines).`
        : `Tool "edit": the patch changes ${withHunks.length} files; edit applies the patch of one file (call it once per file).`,
      { toolName: "edit", path, files: withHunks.length },
    );
  }
  return withHunks[0]!;
}
