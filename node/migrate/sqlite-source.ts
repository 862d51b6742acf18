/**
 * @module node/migrate/sqlite-source
 * The read side of a store migration: a SQLite store opened read-only (so a migration cannot
 * change it, whatever happens), read inside one read transaction (so every table is copied from
 * the same moment), integers read exactly (as BigInt). See docs/backends.md, "Migrating a store".
 */
import type Database from "better-sqlite3";
import { FlowError } from "../../core/errors.js";
import { MIGRATIONS, quoteIdent } from "../../core/store/index.js";
import { isOwnerAlive } from "../engine/index.js";
import { lazyPackage } from "../../core/util/index.js";
import { TABLES } from "../../core/protocol.js";
import { MEMORY_TABLES } from "../../core/memory/index.js";

/** better-sqlite3 (a native addon), loaded by the first SQLite store (docs/package.md "What loads when"). */
const sqlite = lazyPackage<typeof Database>(import.meta, "better-sqlite3", () => import("better-sqlite3").then((m) => m.default));

/** One column of a source table, as `PRAGMA table_info` gives it. */
export interface SourceColumn {
  name: string;
  /** The declared type (`TEXT`, `INTEGER`, ...). */
  type: string;
  notNull: boolean;
  /** The default as SQL text, or null. */
  defaultSql: string | null;
  /** 1-based position in the primary key, 0 when not part of it. */
  pk: number;
}

export interface SourceTable {
  name: string;
  /** A Flow table (`_flow_*`), as opposed to a user table. */
  internal: boolean;
  columns: SourceColumn[];
  rows: number;
}

/** A run that a live process is executing: migrating now would lose what it writes next. */
const LIVE_HEARTBEAT_MS = 30_000;

export class SqliteSource {
  private readonly db: Database.Database;

  constructor(readonly path: string) {
    try {
      this.db = new (sqlite())(path, { readonly: true, fileMustExist: true });
    } catch (cause) {
      throw new FlowError("STORE_OPEN_FAILED", `Could not open the SQLite store ${path} to migrate it: ${(cause as Error).message}`, { dbPath: path }, { cause });
    }
    // One read transaction for the whole copy: every table is read as of the same commit.
    this.db.exec("BEGIN");
  }

  close(): void {
    if (this.db.inTransaction) this.db.exec("COMMIT");
    this.db.close();
  }

  /** Ids in the store's migration ledger; fails for a file that is no Flow store or is newer than this Flow. */
  appliedMigrations(): Set<number> {
    const hasLedger = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${TABLES.migrations}'`).get();
    if (!hasLedger) {
      throw new FlowError("STORE_MIGRATION_FAILED", `${this.path} is not a Flow store (it has no ${TABLES.migrations} table); nothing was migrated.`, { dbPath: this.path, phase: "check" });
    }
    const ids = new Set((this.db.prepare(`SELECT id FROM ${TABLES.migrations}`).all() as Array<{ id: number }>).map((r) => Number(r.id)));
    const known = new Set(MIGRATIONS.map((m) => m.id));
    const unknown = [...ids].filter((id) => !known.has(id));
    if (unknown.length > 0) {
      throw new FlowError(
        "STORE_MIGRATION_FAILED",
        `${this.path} was written by a newer Flow (migrations ${unknown.join(", ")} are unknown here); upgrade durable-flow before migrating it.`,
        { dbPath: this.path, phase: "check", unknownMigrations: unknown },
      );
    }
    return ids;
  }

  /** Fails with RUN_ALREADY_RUNNING when a live process is executing a run of this store. */
  assertNoLiveRuns(now: number): void {
    const rows = this.db.prepare(`SELECT run_id, owner_id, heartbeat_at_ms FROM ${TABLES.runs} WHERE status = 'running'`).all() as Array<{ run_id: string; owner_id: string | null; heartbeat_at_ms: number | null }>;
    const live = rows.filter((r) => r.owner_id && isOwnerAlive(r.owner_id) !== false && r.heartbeat_at_ms !== null && now - Number(r.heartbeat_at_ms) < LIVE_HEARTBEAT_MS);
    if (live.length > 0) {
      throw new FlowError(
        "RUN_ALREADY_RUNNING",
        `Runs ${live.map((r) => r.run_id).join(", ")} of ${this.path} are running in live processes (${[...new Set(live.map((r) => r.owner_id))].join(", ")}). Stop them (or let them pause) before migrating; nothing was migrated.`,
        { dbPath: this.path, runIds: live.map((r) => r.run_id) },
      );
    }
  }

  /** Ordinary tables of the store (no `sqlite_*`, no virtual tables), Flow's first. */
  tables(): SourceTable[] {
    const rows = this.db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' ORDER BY name`).all() as Array<{ name: string; sql: string | null }>;
    const tables = rows
      .filter((r) => !/^\s*CREATE\s+VIRTUAL/i.test(r.sql ?? ""))
      .map((r) => {
        const columns = (this.db.prepare(`SELECT name, type, "notnull" AS nn, dflt_value, pk FROM pragma_table_info(?)`).all(r.name) as Array<{ name: string; type: string; nn: number; dflt_value: string | null; pk: number }>).map(
          (c) => ({ name: c.name, type: c.type, notNull: c.nn === 1, defaultSql: c.dflt_value, pk: c.pk }),
        );
        const count = this.db.prepare(`SELECT COUNT(*) AS n FROM ${quoteIdent(r.name)}`).get() as { n: number };
        return { name: r.name, internal: r.name.startsWith("_flow_"), columns, rows: Number(count.n) };
      });
    return [...tables.filter((t) => t.internal), ...tables.filter((t) => !t.internal)];
  }

  /** The rows of `table`, `batchSize` at a time, as arrays in `columns` order. Integers are BigInt. */
  *batches(table: string, columns: readonly string[], batchSize: number): Generator<unknown[][]> {
    const st = this.db.prepare(`SELECT ${columns.map(quoteIdent).join(", ")} FROM ${quoteIdent(table)}`).raw(true).safeIntegers(true);
    let batch: unknown[][] = [];
    for (const row of st.iterate() as Iterable<unknown[]>) {
      batch.push(row);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** The namespace kinds whose note search is enabled (rebuilt per dialect on the target). */
  noteSearchKinds(): string[] {
    const has = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${MEMORY_TABLES.noteSearch}'`).get();
    return has ? (this.db.prepare(`SELECT ns_kind FROM ${MEMORY_TABLES.noteSearch} ORDER BY ns_kind`).all() as Array<{ ns_kind: string }>).map((r) => r.ns_kind) : [];
  }
}
