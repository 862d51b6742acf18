/**
 * Engine benchmark: workflows of N compute tasks in a Sequence and in a Parallel (maxConcurrency
 * 4 and 16), one JSON line per case on stdout. Each case runs in its own process so that peak
 * RSS is the case's own.
 *
 *   npx tsx bench/engine.ts                 # all cases, N = 10, 100, 1000, 10000
 *   npx tsx bench/engine.ts --n 1000        # one size
 *   npx tsx bench/engine.ts --case seq --n 1000   # one case, in this process
 *   npx tsx bench/engine.ts --backend pglite      # one backend: sqlite | pglite | postgres | all (default)
 *   npx tsx bench/engine.ts --case seq --n 1000 --root ~/my-repo   # rooted there (snapshots on, as users run it)
 *
 * PostgreSQL cases run in a fresh schema of FLOW_TEST_POSTGRES_URL (scripts/setup.d/postgres.sh
 * makes the default one); PGlite cases in a new data dir (copied from the initialized template).
 *
 * Fields: backend, shape, n, wallMs (run to finished), firstAttemptMs (from the call to the
 * first task's code: the run's set-up, its first render, and in a repository its first snapshot), cpuMs (CPU time the process spent in that
 * run, all its threads: steadier than wallMs on a shared machine), perTaskMs, peakRssMb (the process's peak),
 * baselineRssMb (before the run: Node, the TypeScript loader and the loaded modules), dbBytes
 * (SQLite: database files after a checkpoint; PostgreSQL dialects: tables and indexes of the
 * store's schema), resumeFinishedMs (resuming the finished run), tasksPerSec.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { z } from "zod";
import { createFlow, createFlowPostgres, FlowDb, runWorkflow } from "durable-flow";
import { freshPostgresSchema } from "../node/testing/postgres-test-db.js";
import { scratchDir } from "./support/scratch.js";

/**
 * `seq-reads`: a Sequence whose tree reads every output: each step is a component that reads
 * its own task's row (a re-render after each task, incremental: only that component runs
 * again). `seq-reads-root`: the build function itself reads the whole table, so it (and the
 * N elements it creates) runs again after each task: quadratic in the build's own work,
 * whatever the engine does (it keeps the plan and reuses unchanged descriptors and frame parts,
 * docs/engine.md "Incremental renders").
 */
type Shape = "seq" | "par4" | "par16" | "seq-reads" | "seq-reads-root";

type Backend = "sqlite" | "pglite" | "postgres";
const BACKENDS: Backend[] = ["sqlite", "pglite", "postgres"];

const { values } = parseArgs({ options: { case: { type: "string" }, n: { type: "string", multiple: true }, backend: { type: "string" }, root: { type: "string" } } });
const sizes = (values.n ?? ["10", "100", "1000", "10000"]).map(Number);
const chosen = values.backend ?? "all";
if (chosen !== "all" && !BACKENDS.includes(chosen as Backend)) throw new Error(`--backend must be one of ${BACKENDS.join(", ")} or all`);
const backends = chosen === "all" ? BACKENDS : [chosen as Backend];

if (values.case) {
  if (backends.length !== 1) throw new Error("--case runs in this process: give one --backend");
  for (const n of sizes) console.log(JSON.stringify(await runCase(values.case as Shape, n, backends[0]!)));
} else {
  const self = fileURLToPath(import.meta.url);
  for (const n of sizes) {
    for (const shape of ["seq", "par4", "par16", "seq-reads", "seq-reads-root"] as const) {
      // A build that creates every task after every task is quadratic by nature: at 10000 the
      // build alone creates 10^8 elements (run it with --case seq-reads-root --n 10000).
      if (shape === "seq-reads-root" && n > 1000) continue;
      for (const backend of backends) {
        const r = spawnSync(process.execPath, ["--import", "tsx", self, "--case", shape, "--n", String(n), "--backend", backend, ...(values.root ? ["--root", values.root] : [])], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
        if (r.status !== 0) throw new Error(`case ${shape} n=${n} on ${backend} failed`);
        process.stdout.write(r.stdout);
      }
    }
  }
}

/** The api of a fresh store on `backend`, and how to measure and close it. */
async function openStore<S extends Parameters<typeof createFlow>[0]>(schemas: S, backend: Backend) {
  const dir = scratchDir("flow-bench-");
  if (backend === "sqlite") {
    const api = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const bytes = async () => {
      await new FlowDb(api.db).store.execute("PRAGMA wal_checkpoint(TRUNCATE)");
      return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
    };
    return { api, bytes, close: async () => {} };
  }
  const pg = backend === "postgres" ? await freshPostgresSchema() : undefined;
  const api = await createFlowPostgres(schemas, pg ? { connectionString: pg.url } : { provider: "pglite", dataDir: join(dir, "pglite") });
  const bytes = async () => {
    const [row] = await new FlowDb(api.db).store.query<{ b: number | null }>(
      `SELECT SUM(pg_total_relation_size(c.oid)) AS b FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind = 'r'`,
    );
    return Number(row?.b ?? 0);
  };
  return { api, bytes, close: async () => (await api.close(), await pg?.drop()) };
}

async function runCase(shape: Shape, n: number, backend: Backend) {
  const store = await openStore({ out: z.object({ i: z.number().int(), sq: z.number().int() }) }, backend);
  const { flow, Workflow, Task, Sequence, Parallel, outputs, db, useCtx } = store.api;
  const limit = shape === "par16" ? 16 : 4;
  let firstAttemptAt = Number.NaN;
  const row = (i: number) => {
    if (i === 0) firstAttemptAt = performance.now();
    return { i, sq: i * i };
  };
  const Step = ({ i }: { i: number }) => {
    const done = useCtx().outputMaybe(outputs.out, { nodeId: `t${i}` }) !== undefined;
    return (
      <Task id={`t${i}`} output={outputs.out} label={done ? "done" : "todo"}>
        {() => row(i)}
      </Task>
    );
  };
  const workflow = flow((ctx) => {
    if (shape === "seq-reads") return <Workflow name="bench-seq-reads"><Sequence>{Array.from({ length: n }, (_, i) => <Step key={i} i={i} />)}</Sequence></Workflow>;
    const done = shape === "seq-reads-root" ? ctx.outputs.out.length : 0;
    const tasks = Array.from({ length: n }, (_, i) => (
      <Task key={i} id={`t${i}`} output={outputs.out} label={i < done ? "done" : "todo"}>
        {() => row(i)}
      </Task>
    ));
    return <Workflow name={`bench-${shape}`}>{shape.startsWith("par") ? <Parallel maxConcurrency={limit}>{tasks}</Parallel> : <Sequence>{tasks}</Sequence>}</Workflow>;
  });

  const baselineRssMb = round(process.memoryUsage().rss / 1024 / 1024);
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  // By default rooted outside any repository: the engine alone, without time-travel snapshots
  // (bench/snapshots.tsx measures those); `--root` roots it where a user would, in a repository.
  const result = await runWorkflow(workflow, { input: {}, maxConcurrency: limit, logDir: null, rootDir: values.root ?? tmpdir() });
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  if (result.status !== "finished") throw new Error(`run ${result.status}: ${JSON.stringify(result.error)}`);

  const resumeStart = performance.now();
  const again = await runWorkflow(workflow, { runId: result.runId, resume: true });
  const resumeFinishedMs = performance.now() - resumeStart;
  if (again.status !== "finished") throw new Error("resume did not return the finished run");

  const flowDb = new FlowDb(db);
  const dbBytes = await store.bytes();
  const rows = await flowDb.store.query<{ c: number }>("SELECT COUNT(*) AS c FROM out WHERE run_id = ?", [result.runId]);
  if (rows[0]!.c !== n) throw new Error(`expected ${n} output rows, found ${rows[0]!.c}`);
  await store.close();
  return {
    bench: "engine",
    backend,
    shape,
    n,
    wallMs: round(wallMs),
    firstAttemptMs: round(firstAttemptAt - started),
    cpuMs: round((cpu.user + cpu.system) / 1000),
    perTaskMs: round(wallMs / n, 4),
    tasksPerSec: Math.round(n / (wallMs / 1000)),
    peakRssMb: round(process.resourceUsage().maxRSS / 1024),
    baselineRssMb,
    dbBytes,
    resumeFinishedMs: round(resumeFinishedMs, 3),
  };
}

function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
