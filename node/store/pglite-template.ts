/**
 * @module node/store/pglite-template
 * New PGlite data dirs without initdb. initdb costs 3-8 s on these machines; copying an
 * initialized data dir costs about 0.15 s, and opening the copy about 0.3 s. So the first new
 * data dir of a PGlite version on a machine is initialized once into a template in the user's
 * cache dir (built aside, then renamed into place, so processes racing for it never see half
 * of one); every later new data dir starts as a copy of it. The template is an empty cluster
 * exactly as initdb leaves it. Stores that createFlowPostgres opens start from a second template
 * that also holds Flow's tables (pgliteFlowTemplate), so a new store skips its migrations' DDL.
 * Where no cache dir can be written, PGlite runs initdb as usual. See docs/store.md.
 *
 * PGlite itself is an optional peer dependency (docs/package.md): {@link loadPglite} loads it
 * when a pglite store first opens, or says how to install it.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { FlowError } from "../../core/errors.js";
import { MIGRATIONS, migrateStore, PGLITE_PARSERS, pgliteStatements } from "../../core/store/index.js";

/** The PGlite version Flow is tested with (package.json `peerDependencies`), named by the install hint. */
export const PGLITE_VERSION = "0.5.16";

let pglitePackage: Promise<typeof import("@electric-sql/pglite")> | undefined;

/**
 * The `@electric-sql/pglite` package, loaded on first use; a PACKAGE_MISSING FlowError naming
 * the install command when it is not installed.
 * @example
 * const { PGlite } = await loadPglite();
 */
export function loadPglite(): Promise<typeof import("@electric-sql/pglite")> {
  pglitePackage ??= import("@electric-sql/pglite").catch((cause: unknown) => {
    pglitePackage = undefined;
    if ((cause as { code?: string }).code !== "ERR_MODULE_NOT_FOUND" || !String((cause as Error).message).includes("@electric-sql/pglite")) throw cause;
    throw new FlowError(
      "PACKAGE_MISSING",
      `The pglite backend needs the @electric-sql/pglite package, which durable-flow leaves optional (it is 25 MB of wasm and data that SQLite and PostgreSQL users do not need): run npm install @electric-sql/pglite@${PGLITE_VERSION}.`,
      { package: "@electric-sql/pglite", version: PGLITE_VERSION },
      { cause },
    );
  });
  return pglitePackage;
}

let pgliteVersion: string | undefined;

/** Where the template of this PGlite version lives: `$XDG_CACHE_HOME` or `~/.cache`, then `durable-flow/`. */
export function pgliteTemplateDir(env: Record<string, string | undefined> = process.env): string {
  // The package does not export its package.json; read it next to its entry (dist/index.*).
  pgliteVersion ??= (JSON.parse(readFileSync(join(dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "..", "package.json"), "utf8")) as { version: string }).version;
  const cache = env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "durable-flow", `pglite-template-${pgliteVersion}`);
}

/** A data dir is initialized when it has PG_VERSION. */
export const isInitializedDataDir = (dir: string) => existsSync(join(dir, "PG_VERSION"));

let ready: Promise<string | null> | undefined;

/** Builds a template at `dir` once: `fill` makes it in a dir beside, which is then renamed into place. */
async function buildTemplate(dir: string, fill: (building: string) => Promise<void>): Promise<string> {
  if (isInitializedDataDir(dir)) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  const building = mkdtempSync(`${dir}.building-`);
  try {
    await fill(building);
    renameSync(building, dir);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    // Another process put its template in place first; both are equivalent.
    if (!isInitializedDataDir(dir)) throw error;
  }
  return dir;
}

async function initdb(dir: string): Promise<void> {
  const { PGlite } = await loadPglite();
  const pglite = new PGlite({ dataDir: dir });
  await pglite.waitReady;
  await pglite.close();
}

/** The template dir, made on first use; null when it cannot be made here. */
export function pgliteTemplate(): Promise<string | null> {
  ready ??= buildTemplate(pgliteTemplateDir(), initdb).catch(() => null);
  return ready;
}

/**
 * Flow's migrations in the PostgreSQL dialect, hashed: a template with Flow's tables is made
 * per PGlite version and per set of migrations, so a Flow that adds one never copies an old one.
 */
function migrationsHash(): string {
  return createHash("sha256").update(JSON.stringify(MIGRATIONS.map((m) => [m.id, m.up("postgres")]))).digest("hex").slice(0, 12);
}

let readyWithTables: Promise<string | null> | undefined;

/**
 * A second template: the empty cluster with Flow's `_flow_*` tables already migrated, for the
 * stores createFlowPostgres opens (their migrations are then a no-op: the DDL costs about half
 * a second of a new store's open). Its migration ledger records when the template was made.
 * Null when it cannot be made here.
 */
export function pgliteFlowTemplate(): Promise<string | null> {
  readyWithTables ??= pgliteTemplate()
    .then((empty) =>
      empty === null
        ? null
        : buildTemplate(`${pgliteTemplateDir()}-flow-${migrationsHash()}`, async (building) => {
            cpSync(empty, building, { recursive: true });
            const { PGlite } = await loadPglite();
            const pglite = new PGlite({ dataDir: building, parsers: PGLITE_PARSERS });
            await pglite.waitReady;
            try {
              await migrateStore({ dialect: "postgres", ...pgliteStatements(pglite, () => {}), close: async () => {} }, Date.now());
            } finally {
              await pglite.close();
            }
          }),
    )
    .catch(() => null);
  return readyWithTables;
}

/**
 * Sets up a new data dir (missing or empty) atomically: the template is copied (or, without
 * one, PGlite runs initdb) into `<dir>.seeding-*` beside it, which is then renamed to `dir`.
 * A process killed meanwhile leaves only that temporary dir (removed by the next seeding), never
 * a half-made `dir` that looks set up. The caller holds the dir's lock.
 */
export async function seedDataDir(dir: string, withFlowTables = false): Promise<void> {
  for (const name of readdirSync(dirname(dir))) {
    if (name.startsWith(`${basename(dir)}.seeding-`)) rmSync(join(dirname(dir), name), { recursive: true, force: true });
  }
  const template = withFlowTables ? ((await pgliteFlowTemplate()) ?? (await pgliteTemplate())) : await pgliteTemplate();
  const seeding = mkdtempSync(`${dir}.seeding-`);
  try {
    if (template) cpSync(template, seeding, { recursive: true });
    else await initdb(seeding);
    if (existsSync(dir)) rmdirSync(dir); // only an empty one (ENOTEMPTY otherwise)
    renameSync(seeding, dir);
  } catch (error) {
    rmSync(seeding, { recursive: true, force: true });
    throw error;
  }
}
