/**
 * @module node/config/migration-marker
 * The marker `migrateFlowStore` writes next to the SQLite file it moved
 * (`.flow/flow.db.migrated.json` for `.flow/flow.db`). It records where the store went, so that
 * `openFlowBackend` in the same project opens the new store when nothing else chooses a backend,
 * and a second migration knows the first one happened. URLs are stored without their password.
 * See docs/backends.md.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { z } from "zod";
import { FlowError } from "../../core/errors.js";

/** The marker path of a SQLite store. */
export function markerPathOf(dbPath: string): string {
  return `${dbPath}.migrated.json`;
}

const markerSchema = z.object({
  version: z.literal(1),
  migratedAtMs: z.number(),
  from: z.object({ backend: z.literal("sqlite"), dbPath: z.string() }),
  target: z.object({ backend: z.enum(["pglite", "postgres"]), dataDir: z.string().optional(), url: z.string().optional() }),
  schemaVersion: z.string(),
  runCount: z.number(),
  sqliteRemoved: z.boolean(),
});

/** What the marker file says (paths resolved to absolute). */
export type MigrationMarker = z.infer<typeof markerSchema>;

/** The marker of a store migrated from `dbPath` to `target` now. */
export function newMarker(
  dbPath: string,
  target: MigrationMarker["target"],
  facts: Pick<MigrationMarker, "schemaVersion" | "runCount" | "sqliteRemoved">,
  now = Date.now(),
): MigrationMarker {
  return { version: 1, migratedAtMs: now, from: { backend: "sqlite", dbPath }, target, ...facts };
}

/** Writes the marker atomically. Paths under the marker's directory are stored relative to it. */
export function writeMarker(path: string, marker: MigrationMarker): void {
  const base = dirname(path);
  const rel = (p: string) => {
    const r = relative(base, p);
    return r.startsWith("..") || isAbsolute(r) ? p : r;
  };
  const stored: MigrationMarker = {
    ...marker,
    from: { ...marker.from, dbPath: rel(marker.from.dbPath) },
    target: { ...marker.target, ...(marker.target.dataDir ? { dataDir: rel(marker.target.dataDir) } : {}) },
  };
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(stored, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Reads the marker at `path`; undefined when there is none. */
export function readMarker(path: string): MigrationMarker | undefined {
  if (!existsSync(path)) return undefined;
  let parsed;
  try {
    parsed = markerSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  } catch (cause) {
    throw new FlowError("BACKEND_CONFIG_INVALID", `Migration marker ${path} is not valid JSON; fix or delete it.`, { markerPath: path }, { cause });
  }
  if (!parsed.success) {
    throw new FlowError("BACKEND_CONFIG_INVALID", `Migration marker ${path} is not a marker this version of Flow reads; fix or delete it.`, { markerPath: path });
  }
  const base = dirname(path);
  const m = parsed.data;
  return {
    ...m,
    from: { ...m.from, dbPath: resolve(base, m.from.dbPath) },
    target: { ...m.target, ...(m.target.dataDir ? { dataDir: resolve(base, m.target.dataDir) } : {}) },
  };
}
