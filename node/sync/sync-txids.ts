/**
 * @module node/sync/sync-txids
 * The txids of a request's writes, for Electric's write confirmation (shared/SYNC.md §2,
 * docs/multiplayer.md "Writes"): while a team Gateway answers a write (any non-GET request),
 * every PostgreSQL transaction the request's code commits on the workspace's pool reads
 * `pg_current_xact_id_if_assigned()::xid::text` *inside* the transaction, just before COMMIT,
 * and notes which tables it changed (statements that changed rows: a lost compare-and-set
 * changes none, though PostgreSQL may have given its transaction an xid). The answer then carries `txids: { <shape>: number[] }`, so
 * a browser's collection awaits exactly the transactions that changed its shape
 * (`awaitTxId`); a txid for a shape the write did not touch would never arrive.
 *
 * Why at the pool, not in the engine: writes come from many places (launch, deliveries,
 * cancellation, membership) and none of them should know about Electric. The request's async
 * context (AsyncLocalStorage) tells the pool whose transaction it is; a statement outside a
 * transaction runs in one of its own so that it has a txid. Work the request started that
 * outlives it (a run it resumed) is no longer captured once the answer is sent.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";
import { shapesOfTable, type TeamShapeName } from "../../sync/server.js";

interface CaptureScope {
  open: boolean;
  /** txid → tables written. */
  writes: Map<number, Set<string>>;
}

interface ClientTx {
  tables: Set<string>;
}

const WRITE_TARGET = /\b(?:INSERT\s+INTO|(?<!DO\s+)UPDATE|DELETE\s+FROM)\s+(?:"?\w+"?\.)?"?(\w+)"?/gi;
const WRITE_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);
const TXID_SQL = "SELECT pg_current_xact_id_if_assigned()::xid::text AS flow_txid";

/** The tables a statement writes. */
function writtenTables(sql: string): string[] {
  return [...sql.matchAll(WRITE_TARGET)].map((m) => m[1]!);
}

type QueryFn = (...args: unknown[]) => unknown;

/**
 * Captures the txids of the transactions a piece of work commits on one pool.
 * @example
 * const capture = TxidCapture.of(pool);
 * const { result, txids } = await capture.run(() => submitApproval(db, input));
 * txids.approvals; // [7341]
 */
export class TxidCapture {
  private static readonly byPool = new WeakMap<pg.Pool, TxidCapture>();
  private readonly als = new AsyncLocalStorage<CaptureScope>();
  private readonly open = new WeakMap<pg.ClientBase, ClientTx>();
  private readonly patched = new WeakSet<pg.ClientBase>();

  /** The capture of `pool` (patched once, shared by every Gateway on it). */
  static of(pool: pg.Pool): TxidCapture {
    let c = TxidCapture.byPool.get(pool);
    if (!c) TxidCapture.byPool.set(pool, (c = new TxidCapture(pool)));
    return c;
  }

  private constructor(pool: pg.Pool) {
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    const query = pool.query.bind(pool) as QueryFn;
    pool.on("connect", (client) => this.patch(client));
    for (const client of (pool as unknown as { _clients?: pg.ClientBase[] })._clients ?? []) this.patch(client);
    (pool as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const scope = this.scope();
      const [text, values] = args;
      if (!scope || typeof text !== "string" || typeof values === "function" || writtenTables(text).length === 0) return query(...args);
      // A lone write: its own transaction, so it has a txid to report.
      return (async () => {
        const client = await connect();
        try {
          await client.query("BEGIN");
          const result = await client.query(text, values as unknown[] | undefined);
          await client.query("COMMIT");
          return result;
        } catch (error) {
          await client.query("ROLLBACK").catch(() => {});
          throw error;
        } finally {
          client.release();
        }
      })();
    };
  }

  private scope(): CaptureScope | undefined {
    const s = this.als.getStore();
    return s?.open ? s : undefined;
  }

  private note(scope: CaptureScope, txid: string | null | undefined, tables: Iterable<string>): void {
    if (!txid) return;
    const id = Number(txid);
    const set = scope.writes.get(id) ?? new Set<string>();
    for (const t of tables) set.add(t);
    scope.writes.set(id, set);
  }

  private patch(client: pg.ClientBase): void {
    if (this.patched.has(client)) return;
    this.patched.add(client);
    const query = client.query.bind(client) as QueryFn;
    (client as unknown as { query: QueryFn }).query = (...args: unknown[]) => {
      const scope = this.scope();
      const [text] = args;
      if (!scope || typeof text !== "string" || typeof args.at(-1) === "function") return query(...args);
      const trimmed = text.trim();
      if (trimmed === "BEGIN") {
        this.open.set(client, { tables: new Set() });
        return query(...args);
      }
      if (trimmed === "COMMIT" || trimmed === "ROLLBACK") {
        const tx = this.open.get(client);
        this.open.delete(client);
        if (trimmed === "ROLLBACK" || !tx || tx.tables.size === 0) return query(...args);
        return (async () => {
          const r = (await query(TXID_SQL)) as pg.QueryResult<{ flow_txid: string | null }>;
          this.note(scope, r.rows[0]?.flow_txid, tx.tables);
          return query(...args);
        })();
      }
      // executeBatch: one simple-protocol script `BEGIN; ...; COMMIT`.
      if (/^BEGIN;/.test(trimmed) && /;\s*COMMIT$/.test(trimmed)) {
        const tables = writtenTables(trimmed);
        if (tables.length === 0) return query(...args);
        const rewritten = trimmed.replace(/;\s*COMMIT$/, `;\n${TXID_SQL};\nCOMMIT`);
        return (async () => {
          const results = (await query(rewritten, ...args.slice(1))) as pg.QueryResult[];
          const all = Array.isArray(results) ? results : [results];
          const row = all.find((r) => r.fields?.some((f) => f.name === "flow_txid"))?.rows[0] as { flow_txid?: string } | undefined;
          // A script whose writes changed no row changed no shape (its statements are not told apart).
          if (all.some((r) => WRITE_COMMANDS.has(r.command) && (r.rowCount ?? 0) > 0)) this.note(scope, row?.flow_txid, tables);
          return results;
        })();
      }
      const tx = this.open.get(client);
      const tables = tx ? writtenTables(trimmed) : [];
      if (tables.length === 0) return query(...args);
      // Only a statement that changed rows makes its table changed: a compare-and-set that lost
      // (an UPDATE matching nothing) may still have assigned the transaction an xid.
      return (query(...args) as Promise<pg.QueryResult>).then((r) => {
        if ((r.rowCount ?? 0) > 0) for (const t of tables) tx!.tables.add(t);
        return r;
      });
    };
  }

  /** Runs `fn`; answers its result and the txids of its writes, by the shape they change. */
  async run<T>(fn: () => Promise<T>): Promise<{ result: T; txids: Partial<Record<TeamShapeName, number[]>> }> {
    const scope: CaptureScope = { open: true, writes: new Map() };
    try {
      const result = await this.als.run(scope, fn);
      return { result, txids: txidsByShape(scope.writes) };
    } finally {
      scope.open = false;
    }
  }
}

function txidsByShape(writes: Map<number, Set<string>>): Partial<Record<TeamShapeName, number[]>> {
  const out: Partial<Record<TeamShapeName, number[]>> = {};
  for (const [txid, tables] of writes) {
    for (const table of tables) {
      for (const shape of shapesOfTable(table)) {
        const list = (out[shape] ??= []);
        if (!list.includes(txid)) list.push(txid);
      }
    }
  }
  return out;
}
