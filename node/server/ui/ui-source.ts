/**
 * @module node/server/ui/ui-source
 * Where a UI mount's files come from: a built directory (the app in `dist/app/`, or a user's
 * prebuilt UI) or a browser entry module bundled on demand (entry-bundle.ts). A mount asks its
 * source for files by path and for the index.html template.
 */
import { readFile, stat } from "node:fs/promises";
import { join, normalize, sep } from "node:path";

/** A file to answer. */
export interface UiFile {
  body: Uint8Array;
  /** Hashed build output: cached for a year (`immutable`). */
  immutable: boolean;
}

/** The files of one UI. */
export interface UiSource {
  /** The file at `rel` (relative to the mount, `/`-separated), or undefined. */
  file(rel: string): Promise<UiFile | undefined>;
  /** The index.html template, or a response to answer instead (the UI is not built, or failed to build). */
  index(): Promise<string | Response>;
}

/**
 * A built UI in `dir`. Hidden files are never served, nor anything outside `dir`; files under
 * `assets/` (Vite's hashed output) are immutable. When `dir/index.html` is missing, `index()`
 * answers `whenMissing()`.
 * @example
 * const source = staticDirSource("/srv/flow/dist/app", () => new Response("build it first", { status: 503 }));
 */
export function staticDirSource(dir: string, whenMissing: () => Response): UiSource {
  return {
    async file(rel) {
      const path = safeJoin(dir, rel);
      if (!path) return undefined;
      try {
        if (!(await stat(path)).isFile()) return undefined;
        return { body: await readFile(path), immutable: rel.startsWith("assets/") };
      } catch {
        return undefined;
      }
    },
    async index() {
      try {
        return await readFile(join(dir, "index.html"), "utf8");
      } catch {
        return whenMissing();
      }
    },
  };
}

/**
 * `dir` joined with a request path, or undefined for a path that leaves `dir` or names a
 * hidden file.
 * @example
 * safeJoin("/app", "assets/x.js"); // "/app/assets/x.js"
 * safeJoin("/app", "../etc/passwd"); // undefined
 */
export function safeJoin(dir: string, rel: string): string | undefined {
  if (rel === "" || rel.includes("\0")) return undefined;
  const parts = rel.split("/");
  if (parts.some((p) => p === ".." || p.startsWith("."))) return undefined;
  const path = normalize(join(dir, ...parts));
  return path.startsWith(normalize(dir) + sep) ? path : undefined;
}
