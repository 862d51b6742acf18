import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { createFlow, isFlowError, openPgliteStore, openPostgresStore, runWorkflow } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { freshPostgresSchema } from "../testing/postgres-test-db.js";

const schemas = { blob: z.object({ text: z.string() }) };
/** Mounting needs root; where it is refused the SQLite cases below cannot run, and say so. */
const canMount = (() => {
  const probe = tempDir("flow-mount-probe-");
  const ok = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]).status === 0;
  if (ok) spawnSync("umount", [probe]);
  return ok;
})();
const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0).reverse()) spawnSync("umount", ["-l", dir]);
});
function mount(args: string[], dir: string): void {
  expect(spawnSync("mount", [...args, dir]).status).toBe(0);
  mounted.push(dir);
}

/** Ten tasks of 64 KB rows each (about 1 MB written); `beforeTask(i)` runs inside task i. */
function bigWorkflow(dbPath: string, beforeTask: (i: number) => void = () => undefined) {
  const { flow, Workflow, Task, Sequence, outputs } = createFlow(schemas, { dbPath });
  return flow(() => (
    <Workflow name="big">
      <Sequence>
        {Array.from({ length: 10 }, (_, i) => (
          <Task id={`t${i}`} output={outputs.blob}>{() => (beforeTask(i), { text: String(i).repeat(64 * 1024) })}</Task>
        ))}
      </Sequence>
    </Workflow>
  ));
}

async function outcome(p: Promise<{ status: string; error?: unknown }>): Promise<string> {
  try {
    const r = await p;
    return r.status === "failed" && isFlowError(r.error) ? `failed:${r.error.code}` : r.status;
  } catch (error) {
    return isFlowError(error) ? `threw:${error.code}` : `threw:${String(error)}`;
  }
}

describe.skipIf(!canMount)("a SQLite store on a full or read-only disk", () => {
  it("fails with STORE_FULL on a full disk, and the run resumes to the end once space is freed", async () => {
    const dir = tempDir("flow-full-");
    // Room for the migrated store and the run's first tasks, not for its ten 64 KB rows.
    mount(["-t", "tmpfs", "-o", "size=720k", "tmpfs"], dir);
    const dbPath = join(dir, "flow.db");
    const first = await outcome(runWorkflow(bigWorkflow(dbPath), { input: {}, runId: "full-1", logDir: null }));
    expect(first).toMatch(/STORE_FULL$/);
    expect(spawnSync("mount", ["-o", "remount,size=16m", dir]).status).toBe(0);
    const resumed = await runWorkflow(bigWorkflow(dbPath), { input: {}, runId: "full-1", resume: true, force: true, logDir: null });
    expect(resumed.status).toBe("finished");
  }, 60_000);

  it("fails with STORE_READ_ONLY on a read-only mount, and resumes once it is writable", async () => {
    const dir = tempDir("flow-ro-");
    const dbPath = join(dir, "flow.db");
    // The run pauses after t3; then a read-only bind mount goes over the store's directory.
    const pause = new AbortController();
    const paused = await runWorkflow(bigWorkflow(dbPath, (i) => i === 3 && pause.abort()), { input: {}, runId: "ro-1", pauseSignal: pause.signal, logDir: null });
    expect(paused.status).toBe("paused");
    mount(["--bind", "-o", "ro", dir], dir);
    const first = await outcome(runWorkflow(bigWorkflow(dbPath), { input: {}, runId: "ro-1", resume: true, logDir: null }));
    expect(first).toMatch(/STORE_READ_ONLY$/);
    // Lazy: the refused attempt's connection still holds files open through the mount.
    expect(spawnSync("umount", ["-l", mounted.pop()!]).status).toBe(0);
    const resumed = await runWorkflow(bigWorkflow(dbPath), { input: {}, runId: "ro-1", resume: true, force: true, logDir: null });
    expect(resumed.status).toBe("finished");
  }, 60_000);
});

describe.skipIf(!canMount)("opening a SQLite store on a read-only disk", () => {
  it("fails with STORE_READ_ONLY when the store must be created or migrated there", () => {
    const dir = tempDir("flow-ro-open-");
    mount(["--bind", "-o", "ro", dir], dir);
    let error: unknown;
    try {
      createFlow(schemas, { dbPath: join(dir, "flow.db") });
    } catch (e) {
      error = e;
    }
    expect(isFlowError(error, "STORE_READ_ONLY")).toBe(true);
    expect((error as Error).message).toMatch(/is read-only \(EROFS\)/);
  });
});

describe.skipIf(!canMount)("a PGlite store on a full disk", () => {
  it("fails with STORE_FULL, refuses later statements at once instead of hanging, and reopens with its rows once space is freed", async () => {
    const dir = tempDir("flow-pg-full-");
    // A new data dir takes about 41 MB; 80 MB leaves room for a few random megabytes.
    mount(["-t", "tmpfs", "-o", "size=80m", "tmpfs"], dir);
    const dataDir = join(dir, "pg");
    const store = await openPgliteStore({ dataDir });
    await store.execute("CREATE TABLE t (v text)");
    await store.execute("INSERT INTO t VALUES ('kept')");
    const fill = "INSERT INTO t SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 40000)";
    let full: unknown;
    for (let i = 0; i < 100 && full === undefined; i++) full = await store.execute(fill).then(() => undefined, (error: unknown) => error);
    expect(isFlowError(full, "STORE_FULL")).toBe(true);
    const started = Date.now();
    expect(isFlowError(await store.query("SELECT 1").catch((error: unknown) => error), "STORE_FULL")).toBe(true);
    await store.close();
    expect(Date.now() - started).toBeLessThan(2000);
    expect(spawnSync("mount", ["-o", "remount,size=400m", dir]).status).toBe(0);
    const reopened = await openPgliteStore({ dataDir });
    try {
      expect(await reopened.query("SELECT v FROM t WHERE v = 'kept'")).toEqual([{ v: "kept" }]);
      await reopened.execute("INSERT INTO t VALUES ('after')");
    } finally {
      await reopened.close();
    }
  }, 120_000);
});

describe("a PostgreSQL store in a read-only session", () => {
  it("fails writes with STORE_READ_ONLY and still reads", async () => {
    const schema = await freshPostgresSchema();
    const url = new URL(schema.url);
    url.searchParams.set("options", `${url.searchParams.get("options")} -c default_transaction_read_only=on`);
    const store = openPostgresStore({ connectionString: url.toString() });
    try {
      expect(await store.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      const e = await store.execute("CREATE TABLE t (n int)").catch((error: unknown) => error);
      expect(isFlowError(e, "STORE_READ_ONLY")).toBe(true);
      expect((e as Error).message).toMatch(/read-only.*resume the run/);
    } finally {
      await store.close();
      await schema.drop();
    }
  });
});

