/**
 * @module node/testing/pglite-template
 * Fresh PGlite data dirs for tests, cheaply. A new PGlite runs initdb (3-8 s here); copying an
 * initialized data dir and opening it takes about 0.3 s. The initialized dir (the template) is
 * made once per machine and PGlite version, in the OS temp dir, by whichever test process needs
 * it first (built aside, then renamed into place, so processes racing for it never see half of
 * one). Test-only: excluded from the package exports.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

// The package does not export its package.json; read it next to its entry (dist/index.*).
const pgliteEntry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
const pgliteVersion = (JSON.parse(readFileSync(join(dirname(pgliteEntry), "..", "package.json"), "utf8")) as { version: string }).version;

/** Where the template of this PGlite version lives. */
export const PGLITE_TEMPLATE_DIR = join(tmpdir(), `durable-flow-pglite-template-${pgliteVersion}`);

let ready: Promise<string> | undefined;

async function buildTemplate(): Promise<string> {
  if (existsSync(join(PGLITE_TEMPLATE_DIR, "PG_VERSION"))) return PGLITE_TEMPLATE_DIR;
  const building = mkdtempSync(`${PGLITE_TEMPLATE_DIR}.building-`);
  const pglite = new PGlite({ dataDir: building });
  await pglite.waitReady;
  await pglite.close();
  try {
    renameSync(building, PGLITE_TEMPLATE_DIR);
  } catch (error) {
    // Another process put its template in place first; both are equivalent.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(PGLITE_TEMPLATE_DIR, "PG_VERSION"))) throw error;
  }
  return PGLITE_TEMPLATE_DIR;
}

/** The template dir, made on first use. */
export function pgliteTemplate(): Promise<string> {
  ready ??= buildTemplate().catch((error: unknown) => {
    ready = undefined;
    throw error;
  });
  return ready;
}

/** A new data dir holding a copy of the template (an empty, initialized database). */
export async function freshPgliteDir(parent = tmpdir()): Promise<string> {
  const template = await pgliteTemplate();
  const dir = mkdtempSync(join(parent, "flow-pglite-"));
  cpSync(template, dir, { recursive: true });
  return dir;
}
