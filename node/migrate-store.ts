/**
 * @module node/migrate-store
 * `migrateFlowStore`: a one-shot copy of a SQLite store into `pglite` or `postgres` (SPEC.md
 * "Factories", "Versioning"). All or nothing: the SQLite file is opened read-only and read as of
 * one moment; the whole target is written in one transaction (schema, rows, count checks), so
 * a failure leaves the target as it was and the SQLite store untouched. After the commit a
 * marker is written next to the SQLite file (so `openFlowBackend` follows the store) and the
 * SQLite files are removed unless `keepSqlite`. See docs/backends.md, "Migrating a store".
 */
import { existsSync, readdirSync, rmSync } from "node:fs";
import type { EnvMap } from "./config/index.js";
import { newMarker, resolveBackend, type ResolvedBackend, writeMarker } from "./config/index.js";
import { FlowError, isFlowError } from "../core/errors.js";
import { systemClock } from "../core/engine/index.js";
import { memoryStoreOf } from "../core/memory/index.js";
import type { MemoryNamespaceKind } from "../core/memory/index.js";
import { MIGRATIONS, migrationLedger, pendingMigrations } from "../core/store/index.js";
import type { SqlExecutor } from "../core/store/index.js";
import {
  assertTargetEmpty,
  countRows,
  type InferredColumns,
  insertRows,
  rowsPerInsert,
  type SourceTable,
  SqliteSource,
  storeInTransaction,
  targetColumns,
  userTableDdl,
  writeInferredColumns,
} from "./migrate/index.js";
import {
  openPgliteStore,
  openPostgresStore,
  type PgliteStore,
  type PostgresStore,
  redactUrl,
} from "./store/index.js";
import { TABLES } from "../core/protocol.js";

/**
 * SPEC.md `MigrateStoreOptions`.
 * @example
 * await migrateFlowStore({ to: "postgres", url: process.env.FLOW_DATABASE_URL, keepSqlite: true, batchSize: 1000 });
 */
export interface MigrateStoreOptions {
  /** Project directory: where `flow.config.json` and `.flow/` are (default `process.cwd()`). */
  cwd?: string;
  /** The SQLite store to copy (default: the resolved store path, `.flow/flow.db`). */
  dbPath?: string;
  /** Target backend (default: the one the environment or config names, else `pglite`). */
  to?: "pglite" | "postgres";
  /** PostgreSQL URL of the target (default: FLOW_DATABASE_URL, config file, DATABASE_URL). */
  url?: string;
  /** Environment to resolve from (default `process.env`). */
  env?: EnvMap;
  /** PGlite data dir of the target (default `pglite` next to the SQLite file). */
  pgliteDataDir?: string;
  /** Keep the SQLite files after a successful copy (default false: they are removed). */
  keepSqlite?: boolean;
  /** Rows read and inserted per statement (default 500). */
  batchSize?: number;
  /** Progress: `table-start`, `table-copied`, `done`. */
  onProgress?: (event: MigrationProgressEvent) => void;
}

/** One table of a migration. */
export interface MigratedTable {
  table: string;
  sourceRows: number;
  targetRows: number;
  durationMs: number;
}

/** Progress of a migration (SPEC.md "Events": `table-start`, `table-copied`, `done`). */
export type MigrationProgressEvent =
  | { type: "table-start"; table: string; sourceRows: number; index: number; tableCount: number }
  | ({ type: "table-copied"; index: number; tableCount: number } & MigratedTable)
  | { type: "done"; tableCount: number; rowCount: number; runCount: number; durationMs: number };

/**
 * SPEC.md `MigrationResult`. `backend` is where the store is now (the target's backend).
 * @example
 * const { runCount, tables } = await migrateFlowStore();
 * for (const t of tables) console.log(t.table, t.sourceRows, t.targetRows);
 */
export interface MigrationResult {
  backend: "pglite" | "postgres";
  /** The SQLite store that was copied. */
  dbPath: string;
  markerPath: string;
  target: { backend: "pglite" | "postgres"; dataDir?: string; url?: string };
  runCount: number;
  /** The target's schema version after the migration (`_flow_meta.schemaVersion`). */
  schemaVersion: string;
  durationMs: number;
  tables: MigratedTable[];
  /** Source tables not copied, and why (SQLite-only search indexes, rebuilt on the target). */
  skipped: Array<{ table: string; reason: string }>;
  /** True unless `keepSqlite`. */
  sqliteRemoved: boolean;
}

/**
 * Default rows per statement.
 * @example
 * await migrateFlowStore({ batchSize: DEFAULT_MIGRATION_BATCH_SIZE * 4 });
 */
export const DEFAULT_MIGRATION_BATCH_SIZE = 500;

/** Flow's ledger tables: the target keeps its own (migrations applied there, schemaVersion). */
const LEDGER_TABLES = new Set<string>([TABLES.migrations]);

interface Target {
  store: PostgresStore | PgliteStore;
  info: MigrationResult["target"];
  describe: string;
  /** Undo what opening made (a data dir that did not exist before). */
  discard(): void;
}

function resolveTarget(opts: MigrateStoreOptions): { resolved: ResolvedBackend; to: "pglite" | "postgres" } {
  const base = { ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}), ...(opts.dbPath ? { dbPath: opts.dbPath } : {}) };
  const locations = { ...(opts.url ? { connectionString: opts.url } : {}), ...(opts.pgliteDataDir ? { pgliteDataDir: opts.pgliteDataDir } : {}) };
  if (opts.to) return { resolved: resolveBackend({ ...base, ...locations, backend: opts.to }), to: opts.to };
  const named = resolveBackend({ ...base, ...locations });
  if (named.backend !== "sqlite") return { resolved: named, to: named.backend };
  return { resolved: resolveBackend({ ...base, ...locations, backend: "pglite" }), to: "pglite" };
}

async function openTarget(to: "pglite" | "postgres", r: ResolvedBackend): Promise<Target> {
  if (to === "pglite") {
    const dir = r.pgliteDataDir;
    const existed = existsSync(dir) && readdirSync(dir).length > 0;
    const store = await openPgliteStore({ dataDir: dir });
    return { store, info: { backend: "pglite", dataDir: dir }, describe: `PGlite data dir ${dir}`, discard: () => void (existed || rmSync(dir, { recursive: true, force: true })) };
  }
  const store = openPostgresStore({ ...(r.connectionString ? { connectionString: r.connectionString } : {}), ...(r.connection ? { connection: r.connection } : {}) });
  const url = r.connectionString ? redactUrl(r.connectionString) : store.target;
  return { store, info: { backend: "postgres", url }, describe: `PostgreSQL ${store.target}`, discard: () => {} };
}

/**
 * Copies a SQLite store into PGlite or PostgreSQL, writes the migration marker and (unless
 * `keepSqlite`) removes the SQLite files. Runs resume on the new store where they stopped.
 * @example
 * const result = await migrateFlowStore({ to: "pglite", onProgress: (e) => console.log(e.type, e) });
 * console.log(`${result.runCount} runs now in ${result.target.dataDir}`);
 */
export async function migrateFlowStore(opts: MigrateStoreOptions = {}): Promise<MigrationResult> {
  const started = performance.now();
  const { resolved, to } = resolveTarget(opts);
  const { dbPath, markerPath } = resolved;
  if (!existsSync(dbPath)) {
    const moved = resolved.marker ? ` It was migrated to ${resolved.marker.target.backend} already (marker ${markerPath}).` : " Pass dbPath, or run from the project directory.";
    throw new FlowError("STORE_NOT_FOUND", `There is no SQLite store at ${dbPath} to migrate.${moved}`, { dbPath, ...(resolved.marker ? { markerPath } : {}) });
  }
  const batchSize = Math.max(1, Math.trunc(opts.batchSize ?? DEFAULT_MIGRATION_BATCH_SIZE));
  const emit = opts.onProgress ?? (() => {});
  const source = new SqliteSource(dbPath);
  let target: Target | undefined;
  let phase = "check";
  let current: string | undefined;
  try {
    const applied = source.appliedMigrations();
    source.assertNoLiveRuns(Date.now());
    const all = source.tables();
    const [runs] = all.filter((t) => t.name === TABLES.runs);
    target = await openTarget(to, resolved);
    const t = target;
    const tables: MigratedTable[] = [];
    const skipped: MigrationResult["skipped"] = [];
    const schemaVersion = await t.store.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(7331000)`);
      phase = "schema";
      await tx.execute(migrationLedger.create("postgres"));
      const copyable = all.filter((s) => !LEDGER_TABLES.has(s.name));
      // _flow_meta holds the schema version of any opened store: it does not make a target "used".
      await assertTargetEmpty(tx, copyable.map((s) => s.name).filter((n) => n !== TABLES.meta), t.describe);
      // The target gets the migrations the source had, so the rows fit; the rest run after the copy.
      await applyMigrations(tx, applied);
      const inferred = await createUserTables(tx, copyable);
      for (const kind of source.noteSearchKinds()) await memoryStoreOf({ store: storeInTransaction(tx), clock: systemClock, newId: () => crypto.randomUUID() }).enableNoteSearch(kind as MemoryNamespaceKind);

      phase = "copy";
      const plan: Array<{ table: SourceTable; columns: Awaited<ReturnType<typeof targetColumns>> }> = [];
      for (const table of copyable) {
        const columns = (await targetColumns(tx, table.name)).filter((c) => !c.generated);
        if (columns.length === 0) {
          skipped.push({ table: table.name, reason: "SQLite-only table (a search index the target keeps in its own form)" });
          continue;
        }
        const names = new Set(columns.map((c) => c.name));
        const lost = table.columns.filter((c) => !names.has(c.name)).map((c) => c.name);
        if (lost.length > 0) throw new Error(`columns ${lost.join(", ")} of ${table.name} have no place in the target`);
        plan.push({ table, columns: table.columns.map((c) => columns.find((x) => x.name === c.name)!) });
      }
      for (const [index, { table, columns }] of plan.entries()) {
        current = table.name;
        const t0 = performance.now();
        emit({ type: "table-start", table: table.name, sourceRows: table.rows, index, tableCount: plan.length });
        const per = rowsPerInsert(batchSize, columns.length);
        for (const batch of source.batches(table.name, columns.map((c) => c.name), per)) await insertRows(tx, table.name, columns, batch);
        const targetRows = await countRows(tx, table.name);
        if (targetRows !== table.rows) throw new Error(`table ${table.name} has ${targetRows} rows in the target after the copy, but ${table.rows} in the source`);
        const done = { table: table.name, sourceRows: table.rows, targetRows, durationMs: Math.round(performance.now() - t0) };
        tables.push(done);
        emit({ type: "table-copied", ...done, index, tableCount: plan.length });
      }
      current = undefined;
      phase = "schema";
      await applyMigrations(tx);
      await writeInferredColumns(tx, inferred);
      const [v] = await tx.query<{ value: string }>(`SELECT value FROM ${TABLES.meta} WHERE key = 'schemaVersion'`);
      return v?.value ?? "";
    });

    phase = "finish";
    source.close();
    await t.store.close();
    const runCount = runs?.rows ?? 0;
    const sqliteRemoved = !opts.keepSqlite;
    writeMarker(markerPath, newMarker(dbPath, t.info, { schemaVersion, runCount, sqliteRemoved }));
    if (sqliteRemoved) for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${dbPath}${suffix}`, { force: true });
    const durationMs = Math.round(performance.now() - started);
    emit({ type: "done", tableCount: tables.length, rowCount: tables.reduce((s, x) => s + x.targetRows, 0), runCount, durationMs });
    return { backend: to, dbPath, markerPath, target: t.info, runCount, schemaVersion, durationMs, tables, skipped, sqliteRemoved };
  } catch (cause) {
    try {
      source.close();
    } catch {
      // Already closed after the commit.
    }
    if (target) {
      await target.store.close();
      if (phase !== "finish") target.discard();
    }
    if (isFlowError(cause)) throw cause;
    const where = current ? ` while copying table ${current}` : ` during the ${phase} step`;
    const untouched = phase === "finish" ? " The target holds the copy; the SQLite store is untouched." : " The target was rolled back and the SQLite store is untouched.";
    throw new FlowError("STORE_MIGRATION_FAILED", `Migrating ${dbPath} to ${target?.describe ?? to} failed${where}: ${(cause as Error).message}.${untouched}`, {
      dbPath,
      phase,
      ...(current ? { table: current } : {}),
      target: target?.info ?? { backend: to },
    }, { cause });
  }
}

/** Applies, in `tx`, the migrations the target lacks (only those in `only`, when given). */
async function applyMigrations(tx: SqlExecutor, only?: ReadonlySet<number>): Promise<void> {
  const skip = new Set((await tx.query<{ id: unknown }>(migrationLedger.applied)).map((r) => Number(r.id)));
  // pendingMigrations leaves out the ids in its set: mark the unwanted ones as if applied.
  if (only) for (const m of MIGRATIONS) if (!only.has(m.id)) skip.add(m.id);
  for (const m of pendingMigrations("postgres", skip, Date.now())) for (const s of m.statements) await tx.execute(s);
}

/** Creates the user tables the target lacks, returning the columns whose types were inferred. */
async function createUserTables(tx: SqlExecutor, tables: readonly SourceTable[]): Promise<InferredColumns> {
  const inferred: InferredColumns = {};
  for (const table of tables.filter((t) => !t.internal)) {
    if ((await targetColumns(tx, table.name)).length > 0) continue;
    const ddl = userTableDdl(table);
    await tx.execute(ddl.sql);
    if (Object.keys(ddl.inferred).length > 0) inferred[table.name] = ddl.inferred;
  }
  return inferred;
}
