/**
 * The Electric stand-in checked against `@electric-sql/client` itself: snapshot, live changes
 * with the writing transaction's txid, where-clause moves in and out, must-refetch after a
 * rotation, and the protocol's refusals. One real PostgreSQL schema, one stand-in.
 */
import { type ChangeMessage, isChangeMessage, isControlMessage, type Message, type Row, ShapeStream } from "@electric-sql/client";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgresSchema } from "../../node/testing/postgres-test-db.js";
import { type ElectricStandin, startElectricStandin } from "./standin.js";

const SECRET = "standin-secret";
let schema: Awaited<ReturnType<typeof freshPostgresSchema>>;
let db: pg.Pool;
let electric: ElectricStandin;

beforeAll(async () => {
  schema = await freshPostgresSchema();
  db = new pg.Pool({ connectionString: schema.url, max: 2 });
  await db.query(`CREATE TABLE items (id text PRIMARY KEY, ws text NOT NULL, n int, label text)`);
  await db.query(`ALTER TABLE items REPLICA IDENTITY FULL`);
  await db.query(`INSERT INTO items VALUES ('a1', 'a', 1, 'one'), ('b1', 'b', 2, 'two')`);
  electric = await startElectricStandin({ connectionString: schema.url, secret: SECRET, longPollTimeoutMs: 1000 });
});

afterAll(async () => {
  await electric?.close();
  await db?.end();
  await schema?.drop();
});

/** A transaction's writes with its 32-bit txid, taken inside it (what the domain API answers). */
async function write(sql: string[]): Promise<number> {
  const c = await db.connect();
  try {
    await c.query("BEGIN");
    for (const s of sql) await c.query(s);
    const { rows } = await c.query<{ txid: string }>("SELECT pg_current_xact_id()::xid::text AS txid");
    await c.query("COMMIT");
    return Number(rows[0]!.txid);
  } finally {
    c.release();
  }
}

/** Follows a shape, keeping its rows and every message, with a wait for a condition. */
function follow(where: string, params: string[]) {
  const abort = new AbortController();
  const stream = new ShapeStream<Row>({ url: `${electric.url}/v1/shape`, params: { table: `${schema.schema}.items`, where, params, secret: SECRET }, signal: abort.signal });
  const rows = new Map<string, Row>();
  const messages: Message<Row>[] = [];
  const waiters: Array<() => void> = [];
  stream.subscribe((batch) => {
    for (const m of batch) {
      messages.push(m);
      if (isChangeMessage(m)) {
        if (m.headers.operation === "delete") rows.delete(m.key);
        else rows.set(m.key, { ...rows.get(m.key), ...m.value });
      } else if (isControlMessage(m) && m.headers.control === "must-refetch") rows.clear();
    }
    for (const w of waiters.splice(0)) w();
  });
  const until = async (ok: () => boolean, what: string) => {
    const deadline = Date.now() + 5000;
    while (!ok()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; rows: ${JSON.stringify([...rows.values()])}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  const ids = () => [...rows.values()].map((r) => r.id).sort();
  return { stream, rows, messages, until, ids, stop: () => abort.abort() };
}

describe("Electric stand-in (checked with @electric-sql/client)", () => {
  it("serves a filtered snapshot, then live changes carrying the writing transaction's txid", async () => {
    const s = follow("ws = $1", ["a"]);
    try {
      await s.until(() => s.stream.isUpToDate, "up-to-date");
      expect(s.ids()).toEqual(["a1"]);
      expect(s.rows.get(`"${schema.schema}"."items"/"a1"`)).toEqual({ id: "a1", ws: "a", n: 1, label: "one" });

      const txid = await write([`INSERT INTO items VALUES ('a2', 'a', 3, 'three'), ('b2', 'b', 4, 'four')`]);
      await s.until(() => s.rows.size === 2, "the insert of a2");
      const insert = s.messages.find((m): m is ChangeMessage<Row> => isChangeMessage(m) && m.value.id === "a2")!;
      expect(insert.headers).toMatchObject({ operation: "insert", txids: [txid], last: true, op_position: 0 });
      expect(typeof insert.headers.lsn).toBe("string");
      expect(s.ids()).toEqual(["a1", "a2"]);

      // (in, in) → update of the changed columns; (in, out) → delete; (out, in) → insert of the whole row.
      await write([`UPDATE items SET n = 10 WHERE id = 'a1'`, `UPDATE items SET ws = 'b' WHERE id = 'a2'`, `UPDATE items SET ws = 'a' WHERE id = 'b1'`]);
      await s.until(() => s.ids().join() === "a1,b1" && s.rows.get(`"${schema.schema}"."items"/"a1"`)?.n === 10, "the moves");
      const last = s.messages.filter(isChangeMessage).slice(-3);
      expect(last.map((m) => m.headers.operation)).toEqual(["update", "delete", "insert"]);
      expect(last[0]!.value).toEqual({ id: "a1", n: 10 });
      expect(last[2]!.value).toEqual({ id: "b1", ws: "a", n: 2, label: "two" });

      await write([`DELETE FROM items WHERE id = 'b1'`, `DELETE FROM items WHERE id = 'b2'`]);
      await s.until(() => s.ids().join() === "a1", "the delete of b1");
    } finally {
      s.stop();
    }
  });

  it("answers a rotated handle with 409 must-refetch, and the client resyncs and stays live", async () => {
    const s = follow("ws = $1", ["a"]);
    try {
      await s.until(() => s.stream.isUpToDate, "up-to-date");
      const before = s.stream.shapeHandle;
      electric.rotate(`${schema.schema}.items`);
      await write([`INSERT INTO items VALUES ('a3', 'a', 5, 'five')`]);
      await s.until(() => s.ids().includes("a3") && s.stream.shapeHandle !== before, "the resync");
      expect(s.messages.some((m) => isControlMessage(m) && m.headers.control === "must-refetch")).toBe(true);
      expect(electric.requests.some((r) => r.startsWith("409 "))).toBe(true);
      await write([`UPDATE items SET label = 'FIVE' WHERE id = 'a3'`]);
      await s.until(() => [...s.rows.values()].some((r) => r.label === "FIVE"), "a change after the resync");
    } finally {
      s.stop();
    }
  });

  it("refuses a wrong secret, a gap in params, a missing handle and an unknown handle", async () => {
    const base = `${electric.url}/v1/shape?table=${schema.schema}.items`;
    expect((await fetch(`${base}&offset=-1&secret=nope`)).status).toBe(401);
    expect((await fetch(`${base}&offset=-1&where=ws%20%3D%20%242&params[2]=a&secret=${SECRET}`)).status).toBe(400);
    expect((await fetch(`${base}&offset=0_0&secret=${SECRET}`)).status).toBe(400);
    const stale = await fetch(`${base}&offset=0_0&handle=nope-1&secret=${SECRET}`);
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual([{ headers: { control: "must-refetch" } }]);
    expect(stale.headers.get("electric-handle")).toMatch(/^[0-9a-f]{12}-\d+$/);
    const live = await fetch(`${base}&offset=0_inf&handle=${stale.headers.get("electric-handle")}&live=true&cursor=1&secret=${SECRET}`);
    expect(live.status).toBe(200);
    expect(Number(live.headers.get("electric-cursor"))).toBeGreaterThan(1);
    expect(live.headers.get("electric-up-to-date")).toBe("");
  });
});
