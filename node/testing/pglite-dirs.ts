/**
 * @module node/testing/pglite-dirs
 * New PGlite data dir paths for tests. The dir does not exist yet: opening it copies the
 * initialized template (node/store/pglite-template.ts) instead of running initdb.
 * Test-only: excluded from the package exports.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A path for a new data dir, inside a new temp dir (or `parent`). */
export function freshPgliteDir(parent = tmpdir()): string {
  return join(mkdtempSync(join(parent, "flow-pglite-")), "data");
}
