/**
 * @module node/testing/pglite-shared
 * One PGlite instance per test process, lent to one test at a time and reset between tests.
 * A new PGlite costs about 0.7 s of wall time and 1.5 s of CPU (the template copy, then
 * PostgreSQL's start in wasm) and engine tests open one per test on the pglite backend; a test
 * file pays one start instead (files that share a worker process each start their own, below).
 *
 * A test borrows the shared data dir with {@link lendPgliteDir}; while it is lent, other fresh
 * stores (a second one in the same test, a concurrent test) get a new data dir of their own, as
 * before. Returning it resets the instance to what a new data dir holds: session state is
 * discarded, relations the test made are dropped, the template's tables are truncated and get
 * the template's rows back. Then the catalog is compared with the one taken when the instance
 * started; when anything differs (a type, function or extension the reset does not know), or
 * the reset fails, the instance is closed and its dir removed, and the next test starts a new
 * one. So every test still starts on exactly a new store's state.
 *
 * The instance is closed and its dir removed when the test file ends (node/testing/after-file.ts;
 * a dir left by a killed process, whose lock names a pid that is gone, by the next process that
 * makes one). Test-only: excluded from the package exports. See docs/store.md "Testing".
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { isOwnerAlive } from "../engine/index.js";
import { openPgliteStore, pgliteLockPath, type PgliteStore } from "../store/index.js";
import { freshPgliteDir } from "./pglite-dirs.js";

/** How the shared instance is opened: with Flow's tables (createFlowPostgres) or an empty cluster. */
export interface SharedPgliteKind {
  withFlowTables: boolean;
  relaxedDurability?: boolean;
}

/** A data dir lent to a test. */
export interface LentPgliteDir {
  dataDir: string;
  /** True for the shared instance, false for a new data dir of the caller's own. */
  shared: boolean;
  /**
   * Closes the shared instance and starts it again on the same files (a real restart, as a new
   * process would do); the caller closes its own stores first. A no-op for a dir of its own,
   * whose instance closes with its last store.
   */
  restart(): Promise<void>;
  /**
   * Resets and returns the shared instance, or removes a dir of its own. Close its stores first.
   * With `reuse: false` (a test that failed or timed out, whose work may still run) the shared
   * instance is closed and its dir removed instead, and the next test starts a new one.
   */
  release(opts?: { reuse: boolean }): Promise<void>;
}

interface Instance {
  dataDir: string;
  keeper: PgliteStore;
  busy: boolean;
  /** The template's catalog, tables and rows (of the tables that have any), taken at the start. */
  catalog: string;
  tables: Set<string>;
  rows: Map<string, unknown[]>;
}

const PREFIX = "flow-pglite-shared-";

/**
 * Runs `close` when the current test file ends: node/testing/after-file.ts (the Vitest setup
 * file) runs what is listed under this global key. Not imported from there, because its
 * top-level `afterAll` needs a running Vitest and the testing kit bundles this module's importer.
 */
function closeAfterFile(close: () => Promise<void>): void {
  const key = Symbol.for("durable-flow.testing.afterFile");
  ((globalThis as { [key]?: Array<() => Promise<void>> })[key] ??= []).push(close);
}
const instances = new Map<string, Promise<Instance | null>>();
/** Parent dirs of the shared instances, removed at exit. */
const made = new Set<string>();
let swept = false;

const keyOf = (kind: SharedPgliteKind) => `${kind.withFlowTables}:${kind.relaxedDurability ?? false}`;
const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Schemas of PostgreSQL itself, never reset. */
const SYSTEM_SCHEMAS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%'`;

/**
 * Everything a test can add to or change in the database, as one string: schemas, relations with
 * their columns, constraints, user types, functions, triggers, extensions and roles.
 */
async function catalogOf(pglite: PGlite): Promise<string> {
  const parts = await Promise.all(
    [
      `SELECT nspname AS x FROM pg_namespace n WHERE ${SYSTEM_SCHEMAS} ORDER BY 1`,
      `SELECT n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || coalesce((SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '') AS x FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${SYSTEM_SCHEMAS} ORDER BY 1`,
      `SELECT n.nspname || '.' || con.conname || ' ' || pg_get_constraintdef(con.oid) AS x FROM pg_constraint con JOIN pg_namespace n ON n.oid = con.connamespace WHERE ${SYSTEM_SCHEMAS} ORDER BY 1`,
      `SELECT n.nspname || '.' || t.typname || ':' || t.typtype::text AS x FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE ${SYSTEM_SCHEMAS} AND t.typtype IN ('e', 'd', 'r', 'm') ORDER BY 1`,
      `SELECT n.nspname || '.' || p.proname AS x FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE ${SYSTEM_SCHEMAS} ORDER BY 1`,
      `SELECT tgname AS x FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1`,
      `SELECT extname AS x FROM pg_extension ORDER BY 1`,
      `SELECT rolname AS x FROM pg_roles ORDER BY 1`,
    ].map(async (sql) => (await pglite.query<{ x: string }>(sql)).rows.map((r) => r.x).join("\n")),
  );
  return parts.join("\n--\n");
}

/** Tables of the database, schema-qualified and quoted. */
async function tablesOf(pglite: PGlite): Promise<Array<{ name: string; kind: string }>> {
  const { rows } = await pglite.query<{ nspname: string; relname: string; relkind: string }>(
    `SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE ${SYSTEM_SCHEMAS} AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') ORDER BY 1, 2`,
  );
  return rows.map((r) => ({ name: `${quote(r.nspname)}.${quote(r.relname)}`, kind: r.relkind }));
}

/** Removes dirs of shared instances whose process is gone (killed before its exit handler ran). */
function sweepLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const parent = join(tmpdir(), name);
    let owner: string | null = null;
    try {
      owner = readFileSync(pgliteLockPath(join(parent, "data")), "utf8").trim();
    } catch {
      continue; // no lock: being set up, or not a dir of ours
    }
    if (isOwnerAlive(owner) === false) rmSync(parent, { recursive: true, force: true });
  }
}

async function start(kind: SharedPgliteKind): Promise<Instance | null> {
  if (!swept) {
    swept = true;
    sweepLeftovers();
  }
  const parent = mkdtempSync(join(tmpdir(), PREFIX));
  made.add(parent);
  const dataDir = join(parent, "data");
  try {
    const keeper = await openPgliteStore({ dataDir, withFlowTables: kind.withFlowTables, ...(kind.relaxedDurability ? { relaxedDurability: true } : {}) });
    const tables = new Set<string>();
    const rows = new Map<string, unknown[]>();
    for (const { name, kind: relkind } of await tablesOf(keeper.pglite)) {
      tables.add(name);
      if (relkind !== "r") continue;
      const found = (await keeper.pglite.query<{ rows: unknown[] | null }>(`SELECT json_agg(t) AS rows FROM ${name} t`)).rows[0]?.rows;
      if (found) rows.set(name, found);
    }
    return { dataDir, keeper, busy: false, catalog: await catalogOf(keeper.pglite), tables, rows };
  } catch {
    remove(parent);
    return null;
  }
}

function remove(parent: string): void {
  made.delete(parent);
  rmSync(parent, { recursive: true, force: true });
}

/** Closes an instance that could not be reset, so the next test starts a new one. */
async function discard(kind: SharedPgliteKind, instance: Instance): Promise<void> {
  instances.delete(keyOf(kind));
  await instance.keeper.close().catch(() => undefined);
  remove(dirname(instance.dataDir));
}

/** The DROP statement of each relation kind a test can make. */
const DROP: Record<string, string> = { r: "TABLE", p: "TABLE", v: "VIEW", m: "MATERIALIZED VIEW", S: "SEQUENCE", f: "FOREIGN TABLE" };

/** Brings the instance back to the template's state; false when it could not. */
async function reset(instance: Instance): Promise<boolean> {
  const { pglite } = instance.keeper;
  try {
    await pglite.exec(`DISCARD ALL`);
    const now = await tablesOf(pglite);
    for (const t of now.filter((t) => !instance.tables.has(t.name))) await pglite.exec(`DROP ${DROP[t.kind]} IF EXISTS ${t.name} CASCADE`);
    // Only the tables that hold rows: TRUNCATE makes new files for a table and its indexes
    // (about 50 ms a table on a loaded machine), DELETE would leave dead rows behind.
    const kept = now.filter((t) => instance.tables.has(t.name) && (t.kind === "r" || t.kind === "p")).map((t) => t.name);
    const used = kept.length === 0 ? [] : (await pglite.query<{ name: string }>(kept.map((name, i) => `SELECT $${i + 1}::text AS name WHERE EXISTS (SELECT 1 FROM ${name})`).join(" UNION ALL "), kept)).rows.map((r) => r.name);
    if (used.length > 0) await pglite.exec(`TRUNCATE ${used.join(", ")} RESTART IDENTITY`);
    for (const [name, rows] of instance.rows) {
      await pglite.query(`INSERT INTO ${name} SELECT * FROM json_populate_recordset(NULL::${name}, $1)`, [JSON.stringify(rows)]);
    }
    return (await catalogOf(pglite)) === instance.catalog;
  } catch {
    return false;
  }
}

/**
 * Lends the shared data dir of `kind` to the current test when no one holds it, else makes a
 * new data dir for the caller alone.
 * @example
 * const lent = await lendPgliteDir({ withFlowTables: true });
 * const api = await createFlowPostgres(schemas, { provider: "pglite", dataDir: lent.dataDir });
 * // ... the test ...
 * await api.close();
 * await lent.release();
 */
export async function lendPgliteDir(kind: SharedPgliteKind): Promise<LentPgliteDir> {
  const key = keyOf(kind);
  if (instances.size === 0) closeAfterFile(closeShared);
  if (!instances.has(key)) instances.set(key, start(kind));
  const instance = await instances.get(key)!;
  if (!instance || instance.busy) {
    const dataDir = freshPgliteDir();
    return { dataDir, shared: false, restart: async () => {}, release: async () => rmSync(dirname(dataDir), { recursive: true, force: true }) };
  }
  instance.busy = true;
  return {
    dataDir: instance.dataDir,
    shared: true,
    async restart() {
      await instance.keeper.close();
      instance.keeper = await openPgliteStore({ dataDir: instance.dataDir, withFlowTables: kind.withFlowTables, ...(kind.relaxedDurability ? { relaxedDurability: true } : {}) });
    },
    async release({ reuse } = { reuse: true }) {
      if (reuse && (await reset(instance))) instance.busy = false;
      else await discard(kind, instance);
    },
  };
}

/** Closes the shared instances and removes their dirs; the next test starts new ones. */
async function closeShared(): Promise<void> {
  const open = [...instances.entries()];
  instances.clear();
  for (const [, pending] of open) {
    const instance = await pending;
    if (instance) await instance.keeper.close().catch(() => undefined);
  }
  for (const parent of [...made]) remove(parent);
}
