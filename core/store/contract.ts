/**
 * @module core/store/contract
 * The shared suite every store adapter passes (STYLE.md 3.4): `runStoreContract(name,
 * makeHarness)` in the adapter's test file, one call per adapter. It pins down what the engine
 * relies on: `?` placeholders, changed-row counts, values that come back as the engine reads
 * them (BIGINT as a JS number on every dialect), transactions that commit, roll back and never
 * absorb statements from outside, multi-statement scripts, migrations that run once, and a
 * store that refuses work once closed. Test-only: excluded from the package exports.
 * See docs/store.md.
 */
import { describe, expect, it } from "vitest";
import { isFlowError } from "../errors.js";
import { sqlType } from "./dialect.js";
import { MIGRATIONS, migrateStore, SCHEMA_VERSION } from "./migrations.js";
import type { SqlRow, StorePort } from "./port.js";

/** What a test gets from an adapter: a fresh, empty store it may do anything with. */
export interface StoreHarness {
  store: StorePort;
  /** Closes `store` (if still open) and opens the same database again. */
  reopen(): Promise<StorePort>;
  /** Closes whatever the harness opened and removes what it made. */
  cleanup(): Promise<void>;
}

/** Resolves when `promise` settles, without throwing. */
const settled = (promise: Promise<unknown>) => promise.then(
  () => undefined,
  () => undefined,
);

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** The column type of a binary value in a dialect (not a column kind the engine uses). */
const blobType = (store: StorePort) => (store.dialect === "sqlite" ? "BLOB" : "BYTEA");

/**
 * Registers the store contract for one adapter.
 * @example
 * runStoreContract("sqlite", async () => {
 *   const path = join(tempDir(), "flow.db");
 *   let store = openSqliteStore({ path });
 *   return { store, reopen: async () => (await store.close(), (store = openSqliteStore({ path }))), cleanup: () => store.close() };
 * });
 */
export function runStoreContract(name: string, makeHarness: () => Promise<StoreHarness>): void {
  describe(`store contract: ${name}`, () => {
    const withStore = (fn: (store: StorePort, h: StoreHarness) => Promise<void>) => async () => {
      const h = await makeHarness();
      try {
        await fn(h.store, h);
      } finally {
        await h.cleanup();
      }
    };
    const createItems = (store: StorePort) =>
      store.executeScript(`CREATE TABLE items (id ${sqlType(store.dialect, "text")} PRIMARY KEY, n ${sqlType(store.dialect, "bigint")}, label ${sqlType(store.dialect, "text")})`);
    const ids = async (store: StorePort) => (await store.query<{ id: string }>(`SELECT id FROM items ORDER BY id`)).map((r) => r.id);

    it("reports dialect sqlite or postgres", withStore(async (store) => {
      expect(["sqlite", "postgres"]).toContain(store.dialect);
    }));

    it("binds ? placeholders in order and returns rows by column name", withStore(async (store) => {
      await createItems(store);
      await store.execute(`INSERT INTO items (id, n, label) VALUES (?, ?, ?)`, ["a", 1, "what? no"]);
      await store.execute(`INSERT INTO items (id, n, label) VALUES (?, ?, ?)`, ["b", 2, null]);
      const rows = await store.query(`SELECT id, n, label FROM items WHERE n >= ? AND id <> ? ORDER BY id`, [1, "zzz"]);
      expect(rows).toEqual([
        { id: "a", n: 1, label: "what? no" },
        { id: "b", n: 2, label: null },
      ]);
      expect(await store.query(`SELECT id FROM items WHERE id = ?`, ["none"])).toEqual([]);
    }));

    it("returns the number of rows a statement changed", withStore(async (store) => {
      await createItems(store);
      expect(await store.execute(`INSERT INTO items (id, n) VALUES (?, ?), (?, ?), (?, ?)`, ["a", 1, "b", 2, "c", 3])).toBe(3);
      expect(await store.execute(`UPDATE items SET label = ? WHERE n >= ?`, ["big", 2])).toBe(2);
      expect(await store.execute(`UPDATE items SET label = ? WHERE id = ?`, ["x", "missing"])).toBe(0);
      expect(await store.execute(`DELETE FROM items`)).toBe(3);
    }));

    it("returns BIGINT values and counts as JS numbers", withStore(async (store) => {
      await createItems(store);
      const epochMs = 1_767_225_600_123;
      await store.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["a", epochMs]);
      const [row] = await store.query<{ n: unknown; c: unknown; m: unknown }>(`SELECT n, (SELECT COUNT(*) FROM items) AS c, (SELECT MAX(n) FROM items) AS m FROM items`);
      expect(row).toEqual({ n: epochMs, c: 1, m: epochMs });
    }));

    it("round-trips text, reals, booleans, JSON, bytes and nulls", withStore(async (store) => {
      const t = (k: Parameters<typeof sqlType>[1]) => sqlType(store.dialect, k);
      await store.executeScript(
        `CREATE TABLE vals (id ${t("int")} PRIMARY KEY, s ${t("text")}, r ${t("real")}, b ${t("bool")}, j ${t("json")}, bin ${blobType(store)})`,
      );
      const doc = { a: [1, "two", null], nested: { ok: true } };
      const bytes = new Uint8Array([0, 1, 2, 254, 255]);
      await store.execute(`INSERT INTO vals (id, s, r, b, j, bin) VALUES (?, ?, ?, ?, ?, ?)`, [1, "héllo ✓ 'quoted' \"dq\"", 2.5, true, JSON.stringify(doc), bytes]);
      await store.execute(`INSERT INTO vals (id, s, r, b, j, bin) VALUES (?, ?, ?, ?, ?, ?)`, [2, "", -0.125, false, null, null]);
      const rows = await store.query<{ id: unknown; s: unknown; r: unknown; b: unknown; j: unknown; bin: unknown }>(`SELECT * FROM vals ORDER BY id`);
      expect(rows.map((r) => [r.s, r.r])).toEqual([
        ["héllo ✓ 'quoted' \"dq\"", 2.5],
        ["", -0.125],
      ]);
      // Booleans read back as the dialect stores them; the engine's decoder accepts both forms.
      expect(rows.map((r) => r.b === true || r.b === 1)).toEqual([true, false]);
      // JSON comes back as text (SQLite) or parsed (PostgreSQL JSONB).
      const j = rows[0]!.j;
      expect(typeof j === "string" ? JSON.parse(j) : j).toEqual(doc);
      expect(rows[1]!.j).toBeNull();
      expect(new Uint8Array(rows[0]!.bin as Uint8Array)).toEqual(bytes);
      expect(rows[1]!.bin).toBeNull();
    }));

    it("runs a batch like a transaction of its statements, values intact, all or nothing", withStore(async (store) => {
      const batch = store.executeBatch?.bind(store);
      if (!batch) return; // optional: adapters without it are committed statement by statement
      const t = (k: Parameters<typeof sqlType>[1]) => sqlType(store.dialect, k);
      await store.executeScript(`CREATE TABLE bat (id ${t("int")} PRIMARY KEY, s ${t("text")}, r ${t("real")}, b ${t("bool")}, j ${t("json")}, n ${t("bigint")}, bin ${blobType(store)})`);
      const tricky = `it's a \\path\\ with 'quotes', a ? mark, E'x', ✓ and\nnew lines`;
      const doc = { quote: "'", backslash: "\\", q: "?" };
      const bytes = new Uint8Array([0, 39, 92, 255]);
      await batch([
        [`INSERT INTO bat (id, s, r, b, j, n, bin) VALUES (?, ?, ?, ?, ?, ?, ?)`, [1, tricky, -1.5e-7, true, JSON.stringify(doc), 1_700_000_000_123, bytes]],
        [`INSERT INTO bat (id, s, r, b, j, n, bin) VALUES (?, ?, ?, ?, ?, ?, ?)`, [2, "", 0, false, null, 0, null]],
        [`UPDATE bat SET s = ? WHERE id = ?`, ["updated", 2]],
      ]);
      const rows = await store.query<Record<string, unknown>>(`SELECT * FROM bat ORDER BY id`);
      expect(rows.map((r) => [r.s, r.r, Number(r.n)])).toEqual([
        [tricky, -1.5e-7, 1_700_000_000_123],
        ["updated", 0, 0],
      ]);
      const j = rows[0]!.j;
      expect(typeof j === "string" ? JSON.parse(j) : j).toEqual(doc);
      expect(new Uint8Array(rows[0]!.bin as Uint8Array)).toEqual(bytes);
      // A failing statement rolls the whole batch back.
      await expect(batch([[`INSERT INTO bat (id, s) VALUES (?, ?)`, [3, "kept?"]], [`INSERT INTO bat (id, s) VALUES (?, ?)`, [1, "duplicate key"]]])).rejects.toThrow();
      expect((await store.query(`SELECT id FROM bat ORDER BY id`)).map((r) => Number(r.id))).toEqual([1, 2]);
    }));

    it("upserts with ON CONFLICT ... DO UPDATE SET x = excluded.x", withStore(async (store) => {
      await createItems(store);
      const upsert = `INSERT INTO items (id, n) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET n = excluded.n`;
      await store.execute(upsert, ["a", 1]);
      await store.execute(upsert, ["a", 2]);
      expect(await store.query(`SELECT id, n FROM items`)).toEqual([{ id: "a", n: 2 }]);
    }));

    it("binds a thousand parameters in one statement", withStore(async (store) => {
      await createItems(store);
      const values = Array.from({ length: 500 }, (_, i) => [`k${String(i).padStart(3, "0")}`, i]).flat();
      const placeholders = Array.from({ length: 500 }, () => "(?, ?)").join(", ");
      expect(await store.execute(`INSERT INTO items (id, n) VALUES ${placeholders}`, values)).toBe(500);
      const [sum] = await store.query<{ s: unknown }>(`SELECT SUM(n) AS s FROM items`);
      expect(Number(sum!.s)).toBe((499 * 500) / 2);
    }));

    it("commits a transaction when its function resolves, and returns its value", withStore(async (store) => {
      await createItems(store);
      const value = await store.transaction(async (tx) => {
        await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["a", 1]);
        await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["b", 2]);
        return (await tx.query<{ id: string }>(`SELECT id FROM items ORDER BY id`)).map((r) => r.id);
      });
      expect(value).toEqual(["a", "b"]);
      expect(await ids(store)).toEqual(["a", "b"]);
    }));

    it("rolls a transaction back and rethrows when its function rejects", withStore(async (store) => {
      await createItems(store);
      await store.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["kept", 0]);
      const boom = new Error("boom");
      await expect(
        store.transaction(async (tx) => {
          await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["lost", 1]);
          await tx.execute(`UPDATE items SET n = ? WHERE id = ?`, [99, "kept"]);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.query(`SELECT id, n FROM items`)).toEqual([{ id: "kept", n: 0 }]);
    }));

    it("rolls back a transaction whose statement fails, and stays usable", withStore(async (store) => {
      await createItems(store);
      await expect(
        store.transaction(async (tx) => {
          await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["a", 1]);
          await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["a", 2]);
        }),
      ).rejects.toThrow();
      expect(await ids(store)).toEqual([]);
      await expect(store.query(`SELECT * FROM no_such_table`)).rejects.toThrow();
      await store.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["b", 1]);
      expect(await ids(store)).toEqual(["b"]);
    }));

    it("never runs a statement from outside inside an open transaction", withStore(async (store) => {
      await createItems(store);
      const inside = deferred();
      const gate = deferred();
      const tx = store.transaction(async (t) => {
        await t.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["inside", 1]);
        inside.resolve();
        await gate.promise;
        throw new Error("roll back");
      });
      await inside.promise;
      // Issued while the transaction is open: it must not become part of it (and so must
      // survive its rollback), whether the adapter queues it or runs it on another connection.
      const outside = store.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["outside", 2]);
      gate.resolve();
      await settled(tx);
      await outside;
      expect(await ids(store)).toEqual(["outside"]);
    }));

    it("commits concurrent transactions each with all of their rows", withStore(async (store) => {
      await createItems(store);
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.transaction(async (tx) => {
            await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, [`t${i}-a`, i]);
            await Promise.resolve();
            await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, [`t${i}-b`, i]);
          }),
        ),
      );
      const [count] = await store.query<{ c: unknown }>(`SELECT COUNT(*) AS c FROM items`);
      expect(count!.c).toBe(16);
    }));

    it("runs a script of several statements", withStore(async (store) => {
      await store.executeScript(`
        CREATE TABLE a (x ${sqlType(store.dialect, "int")});
        CREATE TABLE b (y ${sqlType(store.dialect, "int")});
        INSERT INTO a (x) VALUES (1);
        INSERT INTO b (y) VALUES (2);
      `);
      expect(await store.query(`SELECT x, (SELECT y FROM b) AS y FROM a`)).toEqual([{ x: 1, y: 2 }]);
    }));

    it("keeps committed rows when the store is closed and opened again", withStore(async (store, h) => {
      await createItems(store);
      await store.transaction(async (tx) => void (await tx.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["a", 1])));
      await store.execute(`INSERT INTO items (id, n) VALUES (?, ?)`, ["b", 2]);
      const again = await h.reopen();
      expect(await again.query(`SELECT id, n FROM items ORDER BY id`)).toEqual([
        { id: "a", n: 1 },
        { id: "b", n: 2 },
      ]);
    }));

    it("applies the migrations once, and again as a no-op", withStore(async (store) => {
      await migrateStore(store, 1000);
      await migrateStore(store, 2000);
      const [meta] = await store.query<{ value: string }>(`SELECT value FROM _flow_meta WHERE key = ?`, ["schemaVersion"]);
      expect(meta!.value).toBe(SCHEMA_VERSION);
      const applied = await store.query<{ id: unknown; applied_at_ms: unknown }>(`SELECT id, applied_at_ms FROM _flow_migrations ORDER BY id`);
      expect(applied.map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
      expect(applied.every((r) => r.applied_at_ms === 1000)).toBe(true);
      expect(await store.query<SqlRow>(`SELECT run_id FROM _flow_runs`)).toEqual([]);
    }));

    it("refuses statements once closed, with STORE_OPEN_FAILED", withStore(async (store) => {
      await store.close();
      await store.close();
      const calls = [() => store.query(`SELECT 1`), () => store.execute(`SELECT 1`), () => store.executeScript(`SELECT 1`), () => store.transaction(async () => 1)];
      for (const call of calls) {
        // A Promise-returning port method rejects; it never throws before returning.
        let pending: Promise<unknown> | undefined;
        expect(() => (pending = call())).not.toThrow();
        const error = await pending!.then(
          () => null,
          (e: unknown) => e,
        );
        expect(isFlowError(error, "STORE_OPEN_FAILED")).toBe(true);
      }
    }));
  });
}
