/**
 * @module node/server/ui/pglite-assets
 * The app's PGlite files, served from the installed `@electric-sql/pglite` instead of shipped
 * twice (docs/package.md "What the package ships"). The published package leaves out of
 * `dist/app/assets/` the files Vite copied from PGlite (`pglite-*.wasm`, `pglite-*.data`,
 * `initdb-*.wasm`, 15 MB) and the seed cluster (`pglite-template-*.seed.tar-*.gz`, 4.5 MB):
 * only the app's offline mode (the engine in the browser) asks for them, and when it does the
 * built-in app's mount answers them from PGlite's own package (an optional dependency) and the
 * seed made in the user's cache dir (node/store/pglite-seed.ts). Without PGlite installed they
 * are missing (404), and the app works against the Gateway.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ensurePgliteSeed } from "../../store/index.js";
import type { UiSource } from "./ui-source.js";

/** Vite's hashed names of PGlite's files, and the file of the PGlite package each one copies. */
const PGLITE_FILES: Array<[RegExp, string]> = [
  [/^assets\/pglite-[\w-]+\.wasm$/, "pglite.wasm"],
  [/^assets\/pglite-[\w-]+\.data$/, "pglite.data"],
  [/^assets\/initdb-[\w-]+\.wasm$/, "initdb.wasm"],
];
const SEED = /^assets\/pglite-template-[\w.-]+\.seed\.tar-[\w-]+\.gz$/;

/**
 * `source`, with PGlite's files answered from the installed package when the build has none.
 * @example
 * const source = withPgliteAssets(staticDirSource(builtAppDir(), () => missingAppPage(dir)));
 */
export function withPgliteAssets(source: UiSource): UiSource {
  return {
    index: () => source.index(),
    async file(rel) {
      const found = await source.file(rel);
      if (found) return found;
      try {
        if (SEED.test(rel)) return { body: await readFile(await ensurePgliteSeed()), immutable: true };
        const name = PGLITE_FILES.find(([pattern]) => pattern.test(rel))?.[1];
        if (!name) return undefined;
        const dist = dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite"));
        return { body: await readFile(join(dist, name)), immutable: true };
      } catch {
        return undefined; // PGlite is not installed: the offline mode cannot start, the rest works
      }
    },
  };
}
