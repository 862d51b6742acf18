import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import {
  approvalDecisionSchema,
  createFlow,
  createMemoryStore,
  FlowDb,
  isFlowError,
  migrateFlowStore,
  type MigrationProgressEvent,
  openFlowBackend,
  openPostgresStore,
  runWorkflow,
  SCHEMA_VERSION,
  submitApproval,
} from "durable-flow";
import { readMarker } from "./config/migration-marker.js";
import { tempDir } from "./testing/backends.js";
import { freshPostgresSchema } from "./testing/postgres-test-db.js";

const schemas = {
  input: z.object({ topic: z.string(), rounds: z.number().int() }),
  draft: z.object({ text: z.string(), words: z.number().int(), score: z.number(), final: z.boolean(), tags: z.array(z.string()), note: z.string().nullable() }),
  review: z.object({ approved: z.boolean().optional(), comments: z.record(z.string(), z.number()) }),
  output: z.object({ summary: z.string() }),
  decision: approvalDecisionSchema,
};

type Api = ReturnType<typeof createFlow<typeof schemas>>;

/** The runs a store holds: finished (with a loop), failed, paused mid-run, waiting for approval. */
function workflows(api: Pick<Api, "flow" | "Workflow" | "Task" | "Sequence" | "Loop" | "Approval" | "outputs">, pause?: AbortController) {
  const { flow, Workflow, Task, Sequence, Loop, Approval, outputs } = api;
  const main = flow((ctx) => (
    <Workflow name="writer">
      <Sequence>
        <Loop id="drafts" until={ctx.outputs.draft.length >= ctx.input.rounds} maxIterations={5}>
          <Task id="draft" output={outputs.draft}>
            {() => ({ text: `${ctx.input.topic} v${ctx.iteration}`, words: 10 * (ctx.iteration + 1), score: 0.25 + ctx.iteration, final: false, tags: ["x", `i${ctx.iteration}`], note: ctx.iteration ? "again" : null })}
          </Task>
        </Loop>
        <Task id="review" output={outputs.review}>{() => (pause?.abort(), { approved: true, comments: { clarity: 4, length: 2 } })}</Task>
        <Task id="summary" output={outputs.output}>{() => ({ summary: `${ctx.outputs.draft.length} drafts about ${ctx.input.topic}` })}</Task>
      </Sequence>
    </Workflow>
  ));
  const failing = flow(() => (
    <Workflow name="failing">
      <Task id="review" output={outputs.review} retries={1}>
        {() => {
          throw new Error("reviewer unavailable");
        }}
      </Task>
    </Workflow>
  ));
  const approval = flow((ctx) => (
    <Workflow name="approval">
      <Task id="plan" output={outputs.review}>{{ comments: { risk: 1 } }}</Task>
      <Approval id="ship" output={outputs.decision} request={{ title: "Ship it?" }} />
      <Task id="after" output={outputs.output}>{() => ({ summary: `approved: ${ctx.outputs.decision[0]?.approved}` })}</Task>
    </Workflow>
  ));
  return { main, failing, approval };
}

/** A SQLite store with a finished, a failed, a paused and a waiting run. */
async function seed(cwd: string) {
  const api = createFlow(schemas, { dbPath: join(cwd, ".flow/flow.db") });
  const pause = new AbortController();
  const { main, failing, approval } = workflows(api);
  const finished = await runWorkflow(main, { runId: "r-finished", input: { topic: "durability", rounds: 2 } });
  const failed = await runWorkflow(failing, { runId: "r-failed", input: { topic: "x", rounds: 1 } });
  const paused = await runWorkflow(workflows(api, pause).main, { runId: "r-paused", input: { topic: "pausing", rounds: 1 }, pauseSignal: pause.signal });
  const waiting = await runWorkflow(approval, { runId: "r-waiting", input: { topic: "ship", rounds: 1 } });
  expect([finished.status, failed.status, paused.status, waiting.status]).toEqual(["finished", "failed", "paused", "waiting-approval"]);
  return { api, runIds: ["r-failed", "r-finished", "r-paused", "r-waiting"] };
}

/** Everything a run is, as the public read API sees it. */
async function snapshot(db: unknown, runIds: string[]) {
  const flowDb = new FlowDb(db);
  const out: Record<string, unknown> = {};
  for (const runId of runIds) {
    out[runId] = {
      run: await flowDb.getRun(runId),
      nodes: await flowDb.listNodes(runId),
      attempts: await flowDb.listAttempts(runId),
      events: await flowDb.listEvents(runId),
      frame: await flowDb.getFrame(runId),
      outputs: Object.fromEntries(await Promise.all(["draft", "review", "output", "decision"].map(async (t) => [t, await flowDb.listOutputs(runId, t)]))),
    };
  }
  return out;
}

function sqliteCounts(dbPath: string): Record<string, number> {
  const db = new Database(dbPath, { readonly: true });
  const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_flow_migrations'`).all() as Array<{ name: string }>).map((r) => r.name);
  const counts = Object.fromEntries(names.map((n) => [n, (db.prepare(`SELECT COUNT(*) AS n FROM "${n}"`).get() as { n: number }).n]));
  db.close();
  return counts;
}

const fileHash = (path: string) => (existsSync(path) ? createHash("sha256").update(readFileSync(path)).digest("hex") : "absent");
/** The store's bytes: the database file and its WAL (the -shm index is scratch space every reader writes). */
const storeHash = (dbPath: string) => ["", "-wal"].map((s) => `${s}:${fileHash(dbPath + s)}`).join(",");

describe("migrateFlowStore", () => {
  it("moves finished, failed, paused and waiting runs into PGlite with equal counts and identical runs, and they resume there", async () => {
    const cwd = tempDir();
    const dbPath = join(cwd, ".flow/flow.db");
    const { api, runIds } = await seed(cwd);
    const before = await snapshot(api.db, runIds);
    const counts = sqliteCounts(dbPath);
    const events: MigrationProgressEvent[] = [];

    const result = await migrateFlowStore({ cwd, env: {}, onProgress: (e) => events.push(e) });

    expect(result).toMatchObject({ backend: "pglite", dbPath, markerPath: `${dbPath}.migrated.json`, target: { backend: "pglite", dataDir: join(cwd, ".flow/pglite") }, runCount: 4, schemaVersion: SCHEMA_VERSION, sqliteRemoved: true });
    expect(Object.fromEntries(result.tables.map((t) => [t.table, t.sourceRows]))).toEqual(counts);
    for (const t of result.tables) expect(t.targetRows).toBe(t.sourceRows);
    expect(counts._flow_runs).toBe(4);
    expect(counts._flow_waits).toBe(1);
    expect(counts.draft).toBe(3);
    expect(existsSync(dbPath)).toBe(false);
    expect(readMarker(result.markerPath)).toMatchObject({ target: { backend: "pglite", dataDir: join(cwd, ".flow/pglite") }, runCount: 4, sqliteRemoved: true });

    // Progress: a start and a copy per table, in order, then done with the totals.
    const n = result.tables.length;
    expect(events.map((e) => e.type)).toEqual([...Array.from({ length: n }, () => ["table-start", "table-copied"]).flat(), "done"]);
    expect(events.filter((e) => e.type === "table-copied")).toEqual(result.tables.map((t, index) => ({ type: "table-copied", ...t, index, tableCount: n })));
    expect(events.at(-1)).toMatchObject({ type: "done", tableCount: n, runCount: 4, rowCount: Object.values(counts).reduce((a, b) => a + b, 0) });

    const moved = await openFlowBackend(schemas, { cwd, env: {} });
    try {
      expect(moved.backend).toBe("pglite");
      expect(await snapshot(moved.db, runIds)).toEqual(before);
      // Columns whose type SQLite could not tell got the schemas' types on open.
      const types = await new FlowDb(moved.db).store.query<{ column_name: string; data_type: string }>(
        `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'draft' AND column_name IN ('final', 'tags', 'words') ORDER BY column_name`,
      );
      expect(types.map((t) => [t.column_name, t.data_type])).toEqual([
        ["final", "boolean"],
        ["tags", "jsonb"],
        ["words", "bigint"],
      ]);
      const resumed = await runWorkflow(workflows(moved).main, { runId: "r-paused", resume: true });
      expect(resumed).toEqual({ runId: "r-paused", status: "finished", output: { summary: "1 drafts about pausing" } });
      // The run that waited for approval takes the decision on the new store and finishes.
      await submitApproval(new FlowDb(moved.db), { runId: "r-waiting", nodeId: "ship", decision: "approve", actor: { userId: "ana", scopes: ["*"] } });
      expect(await runWorkflow(workflows(moved).approval, { runId: "r-waiting", resume: true })).toEqual({ runId: "r-waiting", status: "finished", output: { summary: "approved: true" } });
      const again = await runWorkflow(workflows(moved).main, { runId: "r-new", input: { topic: "after", rounds: 1 } });
      expect(again.status).toBe("finished");
    } finally {
      await moved.close!();
    }
  });

  it("copies into an opened but empty PostgreSQL in small batches, keeps SQLite on request, and leaves it byte for byte as it was", async () => {
    const cwd = tempDir();
    const dbPath = join(cwd, ".flow/flow.db");
    const { api, runIds } = await seed(cwd);
    const before = await snapshot(api.db, runIds);
    const hash = storeHash(dbPath);
    const pg = await freshPostgresSchema();
    try {
      // A worker opened the target before the move: its tables exist, empty, with exact types.
      const early = await openFlowBackend(schemas, { cwd, env: { FLOW_DATABASE_URL: pg.url } });
      await early.close!();
      const result = await migrateFlowStore({ cwd, env: {}, to: "postgres", url: pg.url, batchSize: 2, keepSqlite: true });
      expect(result).toMatchObject({ backend: "postgres", runCount: 4, sqliteRemoved: false, target: { backend: "postgres" } });
      expect(result.target.url).not.toContain(":flow@");
      expect(storeHash(dbPath)).toBe(hash);
      const moved = await openFlowBackend(schemas, { cwd, env: { FLOW_DATABASE_URL: pg.url } });
      try {
        expect(moved.backend).toBe("postgres");
        expect(await snapshot(moved.db, runIds)).toEqual(before);
      } finally {
        await moved.close!();
      }
      // The same store again into the same database: refused, nothing written.
      const twice = await migrateFlowStore({ cwd, env: {}, to: "postgres", url: pg.url, keepSqlite: true }).then(() => null, (e: unknown) => e);
      expect(isFlowError(twice, "MIGRATION_TARGET_NOT_EMPTY")).toBe(true);
      expect((twice as { details: { tables: string[] } }).details.tables).toContain("_flow_runs");
    } finally {
      await pg.drop();
    }
  });

  it("carries memory over and rebuilds note search in PostgreSQL's form", async () => {
    const cwd = tempDir();
    const { api } = await seed(cwd);
    const memory = createMemoryStore(api.db);
    await memory.setFact({ kind: "user", id: "ana" }, "theme", { color: "dark" });
    await memory.saveNote({ namespace: { kind: "workflow", id: "writer" }, body: "Durable runs resume after a crash", tags: ["ops"] });
    await memory.saveNote({ namespace: { kind: "workflow", id: "writer" }, body: "Parallel drafting halves the latency" });
    await memory.enableNoteSearch("workflow");
    const pg = await freshPostgresSchema();
    try {
      const result = await migrateFlowStore({ cwd, env: {}, to: "postgres", url: pg.url });
      expect(result.skipped.map((s) => s.table).every((t) => t.startsWith("_flow_note_fts_workflow"))).toBe(true);
      expect(result.skipped.length).toBeGreaterThan(0);
      const moved = await openFlowBackend(schemas, { cwd, env: { FLOW_DATABASE_URL: pg.url } });
      try {
        const target = createMemoryStore(moved.db);
        expect((await target.getFact({ kind: "user", id: "ana" }, "theme"))?.valueJson).toBe('{"color":"dark"}');
        expect((await target.searchNotes("workflow", "crash resume")).map((n) => n.body)).toEqual(["Durable runs resume after a crash"]);
        await target.saveNote({ namespace: { kind: "workflow", id: "writer" }, body: "A crash after migration is searchable too" });
        expect((await target.searchNotes("workflow", "crash")).length).toBe(2);
      } finally {
        await moved.close!();
      }
    } finally {
      await pg.drop();
    }
  });

  it("rolls everything back when a row cannot be copied, names the table, and leaves SQLite untouched", async () => {
    const cwd = tempDir();
    const dbPath = join(cwd, ".flow/flow.db");
    const { api } = await seed(cwd);
    // PostgreSQL text cannot hold NUL characters; SQLite can. The output table sorts last.
    const { flow, Workflow, Task, outputs } = api;
    await runWorkflow(flow(() => (
      <Workflow name="nul">
        <Task id="s" output={outputs.output}>{{ summary: "before\u0000after" }}</Task>
      </Workflow>
    )), { input: { topic: "nul", rounds: 1 } });
    const hash = storeHash(dbPath);
    const pg = await freshPostgresSchema();
    try {
      const error = await migrateFlowStore({ cwd, env: {}, to: "postgres", url: pg.url }).then(() => null, (e: unknown) => e);
      expect(isFlowError(error, "STORE_MIGRATION_FAILED")).toBe(true);
      expect((error as { details: unknown }).details).toMatchObject({ phase: "copy", table: "output", dbPath });
      expect((error as Error).message).toContain("output");
      expect(storeHash(dbPath)).toBe(hash);
      expect(existsSync(`${dbPath}.migrated.json`)).toBe(false);
      const store = openPostgresStore({ connectionString: pg.url });
      try {
        expect(await store.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = ?`, [pg.schema])).toEqual([]);
      } finally {
        await store.close();
      }
      // The same failure into PGlite removes the data dir it made.
      const again = await migrateFlowStore({ cwd, env: {}, to: "pglite" }).then(() => null, (e: unknown) => e);
      expect(isFlowError(again, "STORE_MIGRATION_FAILED") || isFlowError(again)).toBe(true);
      expect(existsSync(join(cwd, ".flow/pglite"))).toBe(false);
      expect(storeHash(dbPath)).toBe(hash);
    } finally {
      await pg.drop();
    }
  });

  it("says there is nothing to migrate, and where the store went after a migration", async () => {
    const cwd = tempDir();
    const missing = await migrateFlowStore({ cwd, env: {} }).then(() => null, (e: unknown) => e);
    expect(isFlowError(missing, "STORE_NOT_FOUND")).toBe(true);
    await seed(cwd);
    const first = await migrateFlowStore({ cwd, env: {} });
    const second = await migrateFlowStore({ cwd, env: {} }).then(() => null, (e: unknown) => e);
    expect(isFlowError(second, "STORE_NOT_FOUND")).toBe(true);
    expect((second as { details: { markerPath: string } }).details.markerPath).toBe(first.markerPath);
    expect((second as Error).message).toContain("pglite");
  });

  it("refuses while a live process is running one of the store's runs", async () => {
    const cwd = tempDir();
    const api = createFlow(schemas, { dbPath: join(cwd, ".flow/flow.db") });
    let release!: () => void;
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow(() => (
      <Workflow name="busy">
        <Task id="s" output={outputs.output}>{() => new Promise<{ summary: string }>((r) => (started(), (release = () => r({ summary: "done" }))))}</Task>
      </Workflow>
    ));
    const run = runWorkflow(wf, { runId: "busy", input: { topic: "t", rounds: 1 } });
    await running;
    const error = await migrateFlowStore({ cwd, env: {} }).then(() => null, (e: unknown) => e);
    expect(isFlowError(error, "RUN_ALREADY_RUNNING")).toBe(true);
    expect((error as { details: { runIds: string[] } }).details.runIds).toEqual(["busy"]);
    release();
    expect((await run).status).toBe("finished");
    expect((await migrateFlowStore({ cwd, env: {} })).runCount).toBe(1);
  });
});
