/**
 * @module e2e/electric/wal-reader
 * The Electric stand-in's view of the replication stream: a temporary logical replication slot
 * with the `wal2json` plugin (format-version 2, which carries each transaction's xid and commit
 * LSN), polled with `pg_logical_slot_get_changes` and handed on one committed transaction at a
 * time. Test code only (docs/multiplayer.md "The stand-in").
 *
 * Why a temporary slot: it lives exactly as long as the reader's session, so a killed test
 * process never leaves a slot behind that pins WAL on the shared test server.
 *
 * Why the flush: the SQL decoding interface reads WAL only up to the flush pointer, and the
 * test database commits with `synchronous_commit = off` (scripts/setup.d/postgres.sh), so a
 * commit can wait up to three `wal_writer_delay`s to become readable. When WAL is pending the
 * reader commits an empty logical message with synchronous commit on, which flushes everything
 * before it, so a change is decoded within one poll interval.
 */
import pg from "pg";

/** One row change of a committed transaction, as wal2json reports it. */
export interface WalChange {
  kind: "insert" | "update" | "delete";
  schema: string;
  table: string;
  /** The new row (insert, update); values as wal2json prints them (JSON numbers, booleans, strings). */
  columns: Record<string, unknown> | null;
  /** The old row (update, delete), whole under REPLICA IDENTITY FULL. */
  identity: Record<string, unknown> | null;
}

/** A committed transaction: its 32-bit xid, its commit LSN as an integer, its changes in order. */
export interface WalTransaction {
  xid: number;
  lsn: bigint;
  changes: WalChange[];
}

interface Wal2JsonColumn {
  name: string;
  value: unknown;
}

interface Wal2JsonRecord {
  action: "B" | "C" | "I" | "U" | "D" | "M" | "T";
  xid?: number;
  lsn?: string;
  nextlsn?: string;
  schema?: string;
  table?: string;
  columns?: Wal2JsonColumn[];
  identity?: Wal2JsonColumn[];
}

/** `0/4B8571D0` → 1267036624n. */
export function lsnToBigInt(lsn: string): bigint {
  const [hi, lo] = lsn.split("/");
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

function rowOf(cols: Wal2JsonColumn[] | undefined): Record<string, unknown> | null {
  if (!cols) return null;
  return Object.fromEntries(cols.map((c) => [c.name, c.value]));
}

const KINDS = { I: "insert", U: "update", D: "delete" } as const;

/** Escapes a name for wal2json's `add-tables` list (`,` `.` and `\` are special there). */
function filterName(schema: string, table: string): string {
  const esc = (s: string) => s.replace(/[\\,.]/g, (c) => `\\${c}`);
  return `${esc(schema)}.${esc(table)}`;
}

/**
 * Reads committed transactions from a temporary wal2json slot, on its own connection.
 * @example
 * const reader = await WalReader.open(url);
 * const txs = await reader.poll(new Set(["public.items"]));
 */
export class WalReader {
  private constructor(
    private readonly client: pg.Client,
    private readonly slot: string,
  ) {}

  static async open(connectionString: string): Promise<WalReader> {
    const client = new pg.Client({ connectionString });
    client.on("error", () => {});
    await client.connect();
    await client.query("SET synchronous_commit = on");
    const slot = `flow_standin_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
    await client.query("SELECT pg_create_logical_replication_slot($1, 'wal2json', true)", [slot]);
    return new WalReader(client, slot);
  }

  /** Transactions committed since the last poll that touched one of `tables` (`schema.table`); the others are consumed and dropped. */
  async poll(tables: ReadonlySet<string>): Promise<WalTransaction[]> {
    const { rows: lsns } = await this.client.query<{ pending: boolean }>("SELECT pg_current_wal_insert_lsn() > pg_current_wal_flush_lsn() AS pending");
    if (lsns[0]?.pending) await this.client.query("SELECT pg_logical_emit_message(true, 'flow-standin', '')");
    const filter = tables.size > 0 ? [...tables].map((t) => { const [s, n] = t.split("."); return filterName(s!, n!); }).join(",") : "flow_standin_none.none";
    const { rows } = await this.client.query<{ data: string }>(
      `SELECT data FROM pg_logical_slot_get_changes($1, NULL, NULL, 'format-version', '2', 'include-xids', '1', 'include-lsn', '1', 'include-transaction', '1', 'add-tables', $2)`,
      [this.slot, filter],
    );
    const out: WalTransaction[] = [];
    let open: WalTransaction | null = null;
    for (const { data } of rows) {
      const rec = JSON.parse(data) as Wal2JsonRecord;
      if (rec.action === "B") open = { xid: rec.xid!, lsn: 0n, changes: [] };
      else if (rec.action === "C" && open) {
        open.lsn = lsnToBigInt(rec.lsn!);
        if (open.changes.length > 0) out.push(open);
        open = null;
      } else if (open && (rec.action === "I" || rec.action === "U" || rec.action === "D")) {
        open.changes.push({ kind: KINDS[rec.action], schema: rec.schema!, table: rec.table!, columns: rowOf(rec.columns), identity: rowOf(rec.identity) });
      }
    }
    return out;
  }

  /** The current flushed WAL position (the `global_last_seen_lsn` of up-to-date messages). */
  async flushedLsn(): Promise<bigint> {
    const { rows } = await this.client.query<{ lsn: string }>("SELECT pg_current_wal_flush_lsn()::text AS lsn");
    return lsnToBigInt(rows[0]!.lsn);
  }

  /** Ends the session, which drops the temporary slot. */
  async close(): Promise<void> {
    await this.client.end().catch(() => {});
  }
}
