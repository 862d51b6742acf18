import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isFlowError, openPgliteStore } from "durable-flow";
import { runStoreContract } from "../../core/store/contract.js";
import { MIGRATIONS, migrateStore, SCHEMA_VERSION } from "../../core/store/index.js";
import { freshPgliteDir } from "../testing/pglite-dirs.js";
import { lendPgliteDir } from "../testing/pglite-shared.js";
import { pgliteLockPath } from "./pglite.js";
import { pgliteTemplateDir } from "./pglite-template.js";

// The file's shared instance (an empty cluster), reset after each contract test; reopening it
// closes the instance and starts PGlite again on its files (node/testing/pglite-shared.ts).
runStoreContract("pglite", async () => {
  const lent = await lendPgliteDir({ withFlowTables: false, relaxedDurability: true });
  let store = await openPgliteStore({ dataDir: lent.dataDir, relaxedDurability: true });
  return {
    store,
    reopen: async () => {
      await store.close();
      await lent.restart();
      return (store = await openPgliteStore({ dataDir: lent.dataDir }));
    },
    cleanup: async () => {
      await store.close();
      await lent.release();
    },
  };
});

describe("pglite store", () => {
  it("shares one instance between stores of the same data dir in a process", async () => {
    const dataDir = freshPgliteDir();
    const [a, b] = await Promise.all([openPgliteStore({ dataDir }), openPgliteStore({ dataDir })]);
    try {
      expect(a.pglite).toBe(b.pglite);
      await a.executeScript(`CREATE TABLE t (x INTEGER)`);
      await a.execute(`INSERT INTO t (x) VALUES (?)`, [1]);
      await a.close();
      // The other store keeps the instance open.
      expect(await b.query(`SELECT x FROM t`)).toEqual([{ x: 1 }]);
    } finally {
      await b.close();
    }
    expect(existsSync(pgliteLockPath(dataDir))).toBe(false);
    const again = await openPgliteStore({ dataDir });
    try {
      expect(again.pglite.closed).toBe(false);
      expect(await again.query(`SELECT x FROM t`)).toEqual([{ x: 1 }]);
    } finally {
      await again.close();
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });

  it("refuses a data dir that a live process holds, naming it", async () => {
    const dataDir = freshPgliteDir();
    // The pid of this test's parent process: alive, and not this process.
    writeFileSync(pgliteLockPath(dataDir), `${(await import("node:os")).hostname()}:${process.ppid}`);
    const error = await openPgliteStore({ dataDir }).then(() => null, (e: unknown) => e);
    expect(isFlowError(error, "STORE_OPEN_FAILED")).toBe(true);
    expect((error as Error).message).toContain(String(process.ppid));
    rmSync(dirname(dataDir), { recursive: true, force: true });
  });

  it("takes over the lock of a process that died", async () => {
    const dataDir = freshPgliteDir();
    const dead = spawnSync(process.execPath, ["-e", "process.exit(0)"]).pid;
    writeFileSync(pgliteLockPath(dataDir), `${(await import("node:os")).hostname()}:${dead}`);
    const store = await openPgliteStore({ dataDir });
    try {
      expect(await store.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    } finally {
      await store.close();
      rmSync(dirname(dataDir), { recursive: true, force: true });
    }
  });

  it("starts a new data dir as a copy of the initialized template instead of running initdb", async () => {
    const dataDir = freshPgliteDir();
    const store = await openPgliteStore({ dataDir });
    try {
      const template = pgliteTemplateDir();
      expect(readFileSync(join(dataDir, "PG_VERSION"), "utf8")).toBe(readFileSync(join(template, "PG_VERSION"), "utf8"));
      expect(existsSync(pgliteLockPath(template))).toBe(false);
      await store.executeScript(`CREATE TABLE t (x INTEGER)`);
    } finally {
      await store.close();
    }
    // The template stays an empty cluster.
    const other = freshPgliteDir();
    const again = await openPgliteStore({ dataDir: other });
    try {
      expect(await again.query(`SELECT to_regclass('t') AS t`)).toEqual([{ t: null }]);
    } finally {
      await again.close();
      rmSync(dirname(dataDir), { recursive: true, force: true });
      rmSync(dirname(other), { recursive: true, force: true });
    }
  });

  it("starts a new data dir with Flow's tables already migrated when asked, and only a new one", async () => {
    const dataDir = freshPgliteDir();
    const store = await openPgliteStore({ dataDir, withFlowTables: true });
    try {
      const ledger = await store.query<{ id: number }>(`SELECT id FROM _flow_migrations ORDER BY id`);
      expect(ledger.map((r) => Number(r.id))).toEqual(MIGRATIONS.map((m) => m.id).sort((a, b) => a - b));
      // Applying them again is a no-op: the ledger keeps its rows and the meta its version.
      await migrateStore(store, 5);
      expect(await store.query(`SELECT count(*) AS n FROM _flow_migrations WHERE applied_at_ms = 5`)).toEqual([{ n: 0 }]);
      expect(await store.query(`SELECT value FROM _flow_meta WHERE key = 'schemaVersion'`)).toEqual([{ value: SCHEMA_VERSION }]);
      await store.executeScript(`CREATE TABLE mine (x INTEGER)`);
    } finally {
      await store.close();
    }
    // An existing dir is opened as it is (no tables added), and the template stays as made.
    const plain = freshPgliteDir();
    const empty = await openPgliteStore({ dataDir: plain });
    await empty.close();
    const reopened = await openPgliteStore({ dataDir: plain, withFlowTables: true });
    const other = freshPgliteDir();
    const fresh = await openPgliteStore({ dataDir: other, withFlowTables: true });
    try {
      expect(await reopened.query(`SELECT to_regclass('_flow_migrations') AS t`)).toEqual([{ t: null }]);
      expect(await fresh.query(`SELECT to_regclass('mine') AS t`)).toEqual([{ t: null }]);
    } finally {
      await reopened.close();
      await fresh.close();
      for (const dir of [dataDir, plain, other]) rmSync(dirname(dir), { recursive: true, force: true });
    }
  });

  it("runs initdb itself for a new data dir when no template can be made", () => {
    const dataDir = freshPgliteDir();
    const script = `import { openPgliteStore } from "durable-flow";
      const store = await openPgliteStore({ dataDir: ${JSON.stringify(dataDir)} });
      console.log(JSON.stringify(await store.query("SELECT 41 + 1 AS n")));
      await store.close();`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      env: { ...process.env, XDG_CACHE_HOME: "/dev/null/no-cache-here" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.stdout.trim()).toBe('[{"n":42}]');
    expect(existsSync(join(dataDir, "PG_VERSION"))).toBe(true);
    expect(existsSync(pgliteLockPath(dataDir))).toBe(false);
    rmSync(dirname(dataDir), { recursive: true, force: true });
  }, 60_000);

  it("opens an in-memory database when no data dir is given", async () => {
    const store = await openPgliteStore();
    try {
      expect(store.dataDir).toBeNull();
      expect(await store.query(`SELECT 2 AS two`)).toEqual([{ two: 2 }]);
    } finally {
      await store.close();
    }
  });
});
