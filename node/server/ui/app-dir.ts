/**
 * @module node/server/ui/app-dir
 * Where the built app (`dist/app/`, `npm run build:app`) is: beside this package's
 * package.json, from the sources (`node/server/ui/`) and from the published build (a bundle
 * under `dist/`, scripts/build.ts) alike.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory the built-in app is served from. `FLOW_APP_DIR` overrides it.
 * @example
 * builtAppDir(); // "/work/main/dist/app"
 */
export function builtAppDir(): string {
  if (process.env.FLOW_APP_DIR) return process.env.FLOW_APP_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && isFlowPackage(pkg)) return join(dir, "dist", "app");
    const parent = dirname(dir);
    if (parent === dir) return join(dirname(fileURLToPath(import.meta.url)), "app");
    dir = parent;
  }
}

function isFlowPackage(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { name?: string }).name === "durable-flow";
  } catch {
    return false;
  }
}
