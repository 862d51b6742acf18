/**
 * @module node/server/ui/content-type
 * The content type of a file the UI serves, by its extension.
 */

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  map: "application/json; charset=utf-8",
  webmanifest: "application/manifest+json; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/x-icon",
  wasm: "application/wasm",
  woff: "font/woff",
  woff2: "font/woff2",
  data: "application/octet-stream",
  gz: "application/gzip",
  tar: "application/x-tar",
};

/**
 * The content type for `path` (`application/octet-stream` when the extension is unknown).
 * @example
 * contentTypeOf("assets/pglite-x1.wasm"); // "application/wasm"
 */
export function contentTypeOf(path: string): string {
  return TYPES[extensionOf(path)] ?? "application/octet-stream";
}

/**
 * Whether `path` names a static file (a known extension other than `.html`): a request for
 * one that does not exist answers 404 instead of the app's page.
 * @example
 * isStaticAssetPath("assets/index-abc.js"); // true
 * isStaticAssetPath("runs/r1");              // false: a deep link into the app
 */
export function isStaticAssetPath(path: string): boolean {
  const ext = extensionOf(path);
  return ext !== "html" && ext in TYPES;
}

function extensionOf(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
}
