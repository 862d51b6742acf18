/**
 * @module e2e/electric/shape
 * One shape of the Electric stand-in: its definition (table, where with params, columns,
 * replica), its initial snapshot with the Postgres snapshot it was read in, and its log of
 * change messages built from decoded transactions the way Electric builds them
 * (shared/SYNC.md appendix B; Electric's `shapes/shape.ex` `convert_change`): an update whose
 * old and new rows are in or out of the shape becomes an update (in, in), a delete (in, out) or
 * an insert of the whole row (out, in). Test code only.
 *
 * The where clause is evaluated by PostgreSQL itself over the decoded rows
 * (`json_populate_recordset` of the table's row type), so every operator Electric accepts
 * behaves as it does there. The clause is interpolated into SQL: this is a stand-in for
 * tests, never shipped, and the Gateway's proxy sets it server-side (docs/multiplayer.md).
 */
import type pg from "pg";
import type { WalChange, WalTransaction } from "./wal-reader.js";

/** What identifies a shape: a second request with the same definition reads the same shape. */
export interface ShapeDef {
  schema: string;
  table: string;
  where: string | null;
  params: string[];
  columns: string[] | null;
  replica: "default" | "full";
}

/** An Electric message as it goes on the wire. */
export type WireMessage = { key?: string; value?: Record<string, string | null>; old_value?: Record<string, string | null>; headers: Record<string, unknown> };

/** `<tx>_<op>` compared as a tuple; `0_inf` ends the snapshot. */
export type LogOffset = readonly [bigint, number];

export function parseOffset(s: string): LogOffset | null {
  const m = /^(\d+)_(\d+|inf)$/.exec(s);
  if (!m) return null;
  return [BigInt(m[1]!), m[2] === "inf" ? Number.POSITIVE_INFINITY : Number(m[2])];
}

export function formatOffset([tx, op]: LogOffset): string {
  return `${tx}_${op === Number.POSITIVE_INFINITY ? "inf" : op}`;
}

function after(a: LogOffset, b: LogOffset): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}

/** The column facts Electric's `electric-schema` header carries. */
interface ColumnInfo {
  name: string;
  type: string;
  dimensions: number;
  pk_index?: number;
  not_null?: boolean;
}

export const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** A decoded value as PostgreSQL's text output would print it (what Electric sends). */
function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Postgres snapshot visibility, as the client computes it for awaitTxId. */
function visibleIn(snap: { xmin: bigint; xmax: bigint; xip: bigint[] }, xid: bigint): boolean {
  return xid < snap.xmin || (xid < snap.xmax && !snap.xip.includes(xid));
}

/**
 * A live shape: its snapshot, its log and the long-polls waiting on it.
 * @example
 * const shape = await Shape.create(pool, def, "h-1");
 * shape.entriesAfter([0n, Number.POSITIVE_INFINITY]);
 */
export class Shape {
  readonly log: Array<{ offset: LogOffset; message: WireMessage }> = [];
  private readonly waiters = new Set<() => void>();
  /** Set when the shape was rotated away: its long-polls answer 409. */
  gone = false;

  private constructor(
    readonly def: ShapeDef,
    readonly handle: string,
    private readonly columns: ColumnInfo[],
    readonly snapshot: WireMessage[],
    private readonly snap: { xmin: bigint; xmax: bigint; xip: bigint[] },
  ) {}

  /** The relation `schema.table` the WAL reader filters on. */
  get relation(): string {
    return `${this.def.schema}.${this.def.table}`;
  }

  /** The `electric-schema` header value. */
  get schemaHeader(): string {
    return JSON.stringify(Object.fromEntries(this.columns.map(({ name, ...info }) => [name, info])));
  }

  /** Reads the table's columns and its snapshot in one REPEATABLE READ transaction. */
  static async create(pool: pg.Pool, def: ShapeDef, handle: string): Promise<Shape> {
    const client = await pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const { rows: cols } = await client.query<{ name: string; typname: string; attndims: number; attnotnull: boolean; attnum: number; indkey: string | null }>(
        `SELECT a.attname AS name, t.typname, a.attndims, a.attnotnull, a.attnum, i.indkey::text AS indkey
           FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
           LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
        [`${quoteIdent(def.schema)}.${quoteIdent(def.table)}`],
      );
      const pkNums = (cols[0]?.indkey ?? "").split(" ").filter(Boolean).map(Number);
      const all: ColumnInfo[] = cols.map((c) => {
        const pk = pkNums.indexOf(c.attnum);
        const isArray = c.typname.startsWith("_");
        return { name: c.name, type: isArray ? c.typname.slice(1) : c.typname, dimensions: isArray ? Math.max(1, c.attndims) : 0, ...(pk >= 0 ? { pk_index: pk } : {}), ...(c.attnotnull ? { not_null: true } : {}) };
      });
      const selected = def.columns ? all.filter((c) => def.columns!.includes(c.name)) : all;
      const { rows: snapRows } = await client.query<{ s: string }>("SELECT pg_current_snapshot()::text AS s");
      const [xmin, xmax, xip] = snapRows[0]!.s.split(":");
      const list = selected.map((c) => `${quoteIdent(c.name)}::text AS ${quoteIdent(c.name)}`).join(", ");
      const { rows } = await client.query<Record<string, string | null>>(
        `SELECT ${list} FROM ${quoteIdent(def.schema)}.${quoteIdent(def.table)}${def.where ? ` WHERE ${def.where}` : ""}`,
        def.params,
      );
      await client.query("COMMIT");
      const shape = new Shape(def, handle, selected, [], { xmin: BigInt(xmin!), xmax: BigInt(xmax!), xip: xip ? xip.split(",").map(BigInt) : [] });
      for (const row of rows) shape.snapshot.push({ key: shape.keyOf(row), value: row, headers: { operation: "insert", relation: [def.schema, def.table] } });
      shape.snapshot.push({ headers: { control: "snapshot-end", xmin: xmin!, xmax: xmax!, xip_list: xip ? xip.split(",") : [], snapshot_mark: 0, database_lsn: "0" } });
      return shape;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  private get pk(): ColumnInfo[] {
    const pk = this.columns.filter((c) => c.pk_index !== undefined).sort((a, b) => a.pk_index! - b.pk_index!);
    return pk.length > 0 ? pk : this.columns;
  }

  /** `"schema"."table"/"pk1"/"pk2"`, as Electric keys rows. */
  keyOf(row: Record<string, string | null>): string {
    const parts = this.pk.map((c) => (row[c.name] === null ? "_" : `"${String(row[c.name]).replace(/\//g, "//")}"`));
    return `${quoteIdent(this.def.schema)}.${quoteIdent(this.def.table)}/${parts.join("/")}`;
  }

  private project(row: Record<string, unknown>): Record<string, string | null> {
    return Object.fromEntries(this.columns.map((c) => [c.name, textOf(row[c.name])]));
  }

  /** Which of `rows` satisfy the where clause, evaluated by PostgreSQL. */
  private async matches(pool: pg.Pool, rows: Array<Record<string, unknown> | null>): Promise<boolean[]> {
    if (!this.def.where) return rows.map((r) => r !== null);
    const present = rows.filter((r): r is Record<string, unknown> => r !== null);
    if (present.length === 0) return rows.map(() => false);
    const n = this.def.params.length + 1;
    const { rows: res } = await pool.query<{ m: boolean | null }>(
      `SELECT (${this.def.where}) AS m FROM json_populate_recordset(null::${quoteIdent(this.def.schema)}.${quoteIdent(this.def.table)}, $${n}::json) WITH ORDINALITY AS _flow_r ORDER BY _flow_r.ordinality`,
      [...this.def.params, JSON.stringify(present)],
    );
    let i = 0;
    return rows.map((r) => (r === null ? false : res[i++]?.m === true));
  }

  /**
   * Appends the messages committed transactions make in this shape, in commit order; true when
   * it added any. The where clause is evaluated for the whole batch in one query.
   */
  async apply(pool: pg.Pool, txs: WalTransaction[]): Promise<boolean> {
    if (this.gone) return false;
    const mine = txs
      .filter((tx) => !visibleIn(this.snap, BigInt(tx.xid)))
      .map((tx) => ({ tx, changes: tx.changes.filter((c) => c.schema === this.def.schema && c.table === this.def.table) }))
      .filter((t) => t.changes.length > 0);
    if (mine.length === 0) return false;
    const flags = await this.matches(pool, mine.flatMap((t) => t.changes.flatMap((c) => [c.identity, c.columns])));
    const relation = [this.def.schema, this.def.table];
    let k = 0;
    let added = false;
    for (const { tx, changes } of mine) {
      const out: WireMessage[] = [];
      for (const c of changes) {
        out.push(...this.convert(c, flags[k]!, flags[k + 1]!));
        k += 2;
      }
      out.forEach((m, i) => {
        m.headers = { ...m.headers, relation, txids: [tx.xid], lsn: String(tx.lsn), op_position: i, ...(i === out.length - 1 ? { last: true } : {}) };
        this.log.push({ offset: [tx.lsn, i], message: m });
      });
      added ||= out.length > 0;
    }
    if (added) for (const wake of this.waiters) wake();
    return added;
  }

  private convert(c: WalChange, oldIn: boolean, newIn: boolean): WireMessage[] {
    const full = this.def.replica === "full";
    const next = c.columns ? this.project(c.columns) : null;
    const prev = c.identity ? this.project(c.identity) : null;
    const pkOnly = (row: Record<string, string | null>) => Object.fromEntries(this.pk.map((p) => [p.name, row[p.name] ?? null]));
    const insert = (row: Record<string, string | null>, extra = {}): WireMessage => ({ key: this.keyOf(row), value: row, headers: { operation: "insert", ...extra } });
    const del = (row: Record<string, string | null>, extra = {}): WireMessage => ({ key: this.keyOf(row), value: full ? row : pkOnly(row), headers: { operation: "delete", ...extra } });
    if (c.kind === "insert") return newIn && next ? [insert(next)] : [];
    if (c.kind === "delete") return oldIn && prev ? [del(prev)] : [];
    if (!next || !prev) return [];
    if (oldIn && !newIn) return [del(prev)];
    if (!oldIn && newIn) return [insert(next)];
    if (!oldIn && !newIn) return [];
    if (this.keyOf(prev) !== this.keyOf(next)) return [del(prev, { key_change_to: this.keyOf(next) }), insert(next, { key_change_from: this.keyOf(prev) })];
    const changed = this.columns.filter((col) => next[col.name] !== prev[col.name]).map((col) => col.name);
    const value = full ? next : { ...pkOnly(next), ...Object.fromEntries(changed.map((k) => [k, next[k]!])) };
    return [{ key: this.keyOf(next), value, ...(full ? { old_value: Object.fromEntries(changed.map((k) => [k, prev[k]!])) } : {}), headers: { operation: "update" } }];
  }

  /** The log entries after `offset`. */
  entriesAfter(offset: LogOffset): Array<{ offset: LogOffset; message: WireMessage }> {
    return this.log.filter((e) => after(e.offset, offset));
  }

  /** Resolves when the log grows or the shape goes away, or after `ms`; false on timeout. */
  waitForChange(ms: number, signal: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (changed: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal.removeEventListener("abort", abort);
        resolve(changed);
      };
      const wake = () => done(true);
      const abort = () => done(false);
      const timer = setTimeout(() => done(false), ms);
      this.waiters.add(wake);
      signal.addEventListener("abort", abort);
    });
  }

  /** Rotates the shape away: waiting long-polls wake and answer 409. */
  expire(): void {
    this.gone = true;
    for (const wake of this.waiters) wake();
  }
}
