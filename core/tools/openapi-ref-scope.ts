/**
 * @module core/tools/openapi-ref-scope
 * Where an OpenAPI description's `$ref`s to other files may point (docs/tools.md "OpenAPI
 * input"): a local reference resolves only inside the directory of the description file (and
 * inside `rootDir` when one is given), so `$ref: /etc/passwd` or `../outside/x` never copies a
 * file into the loaded spec and the JSON Schema a model sees. A description given as an object
 * or as text has no directory: its local references are refused. A description fetched from a
 * URL may reference other URLs, never local files. Paths are compared after `.`/`..` are
 * resolved (POSIX separators; core has no file system to resolve symlinks with).
 */
import { FlowError } from "../errors.js";

/** Throws OPENAPI_INVALID unless reading `location` for a `$ref` of the description at `base` is allowed. */
export function assertRefInScope(location: string, base: string | undefined, rootDir: string | undefined): void {
  if (/^https?:\/\//i.test(location)) return;
  const file = normalize(location);
  const refused = (why: string) =>
    new FlowError("OPENAPI_INVALID", `The OpenAPI description${base ? ` ${base}` : ""} references the local file ${location}, which is refused: ${why}. Copy what it needs next to the description.`, {
      ref: location,
      ...(base ? { source: base } : {}),
    });
  if (base === undefined) throw refused("a description given as an object or text has no directory for local references");
  if (/^https?:\/\//i.test(base)) throw refused("a description fetched from a URL may only reference URLs");
  const dir = normalize(base).replace(/\/[^/]*$/, "") || "/";
  if (!isWithin(dir, file)) throw refused(`it is outside the description's directory ${dir}`);
  if (rootDir !== undefined && !isWithin(normalize(rootDir), file)) throw refused(`it is outside rootDir ${rootDir}`);
}

/** True when `path` is `dir` or below it (both normalized, absolute). */
export function isWithin(dir: string, path: string): boolean {
  const d = dir.endsWith("/") ? dir : `${dir}/`;
  return path === dir || path.startsWith(d);
}

/** An absolute POSIX path with `.`, `..` and repeated separators resolved (`file://` URLs too). */
function normalize(path: string): string {
  const plain = path.startsWith("file://") ? decodeURIComponent(new URL(path).pathname) : path;
  const out: string[] = [];
  for (const part of plain.replace(/\\/g, "/").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return `/${out.join("/")}`;
}
