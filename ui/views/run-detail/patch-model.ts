/**
 * @module ui/views/run-detail/patch-model
 * The lines of a unified diff as the file patch view colours them (ui/views/run-detail/file-patch.tsx).
 */

/** What a line of git's unified diff is. */
export type PatchLineKind = "add" | "del" | "hunk" | "meta" | "context";

/**
 * The lines of git's unified diff, each with what it is: the file's header (`diff --git`,
 * `index`, `---`, `+++`, modes, "Binary files ... differ") up to the first hunk, a hunk's header
 * (`@@`), and in a hunk an added, removed or context line ("\ No newline" is a note). Read line
 * by line with where it stands, since a removed line `-- x` reads `--- x` like a header.
 * @example
 * patchLines("--- a/doc.md\n+++ b/doc.md\n@@ -1 +1 @@\n-old\n+new\n").map((l) => l.kind); // ["meta", "meta", "hunk", "del", "add"]
 */
export function patchLines(patch: string): Array<{ text: string; kind: PatchLineKind }> {
  let inHunk = false;
  return patch
    .replace(/\n$/, "")
    .split("\n")
    .map((text) => {
      if (text.startsWith("diff --git ")) inHunk = false;
      else if (text.startsWith("@@")) inHunk = true;
      const kind: PatchLineKind = text.startsWith("@@") ? "hunk" : !inHunk || text.startsWith("\\") ? "meta" : text.startsWith("+") ? "add" : text.startsWith("-") ? "del" : "context";
      return { text, kind };
    });
}
