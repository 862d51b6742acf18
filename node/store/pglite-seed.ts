/**
 * @module node/store/pglite-seed
 * An initialized, empty PGlite cluster as a gzipped tarball (`PGlite.dumpDataDir("gzip")`),
 * made once per PGlite version on a machine and kept beside the data dir template in the user's
 * cache dir. The app bundles it (vite.app.config.ts) so a browser's first visit loads it
 * (`loadDataDir`, about a second) instead of running initdb in wasm (about ten seconds).
 * See docs/app-browser.md "Storage".
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { loadPglite, pgliteTemplateDir } from "./pglite-template.js";

/**
 * The seed tarball's path, made when missing (atomically: written aside, then renamed).
 * @example
 * const file = await ensurePgliteSeed(); // ~/.cache/durable-flow/pglite-template-0.5.16.seed.tar.gz
 */
export async function ensurePgliteSeed(env: Record<string, string | undefined> = process.env): Promise<string> {
  const file = `${pgliteTemplateDir(env)}.seed.tar.gz`;
  if (existsSync(file)) return file;
  const { PGlite } = await loadPglite();
  const pglite = new PGlite();
  try {
    await pglite.waitReady;
    const dump = await pglite.dumpDataDir("gzip");
    const aside = `${file}.${process.pid}.tmp`;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(aside, new Uint8Array(await dump.arrayBuffer()));
    renameSync(aside, file);
  } finally {
    await pglite.close();
  }
  return file;
}
