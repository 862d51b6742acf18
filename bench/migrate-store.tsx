/**
 * Store migration benchmark: a SQLite store holding 4 runs of 5000 tasks (about 100,000 rows
 * across Flow's tables and the output table) copied with `migrateFlowStore` into PGlite and into
 * PostgreSQL. One JSON line per target.
 *
 *   npx tsx bench/migrate-store.tsx [--runs 4] [--tasks 5000]
 *
 * Fields: to, rows (copied), runs, ms (the whole migration), rowsPerSec.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { createFlow, migrateFlowStore, runWorkflow } from "durable-flow";
import { freshPostgresSchema } from "../node/testing/postgres-test-db.js";

const { values } = parseArgs({ options: { runs: { type: "string" }, tasks: { type: "string" } } });
const runs = Number(values.runs ?? 4);
const tasks = Number(values.tasks ?? 5000);

async function seed(): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), "flow-migrate-bench-"));
  const { flow, Workflow, Task, Parallel, outputs } = createFlow({ out: z.object({ i: z.number().int(), ok: z.boolean(), tags: z.array(z.string()) }) }, { dbPath: join(cwd, ".flow/flow.db") });
  const workflow = flow(() => (
    <Workflow name="migrate-bench">
      <Parallel maxConcurrency={16}>
        {Array.from({ length: tasks }, (_, i) => (
          <Task key={i} id={`t${i}`} output={outputs.out}>
            {() => ({ i, ok: i % 2 === 0, tags: ["a", `t${i}`] })}
          </Task>
        ))}
      </Parallel>
    </Workflow>
  ));
  for (let r = 0; r < runs; r++) await runWorkflow(workflow, { input: {}, logDir: null });
  return cwd;
}

for (const to of ["pglite", "postgres"] as const) {
  const cwd = await seed();
  const pg = to === "postgres" ? await freshPostgresSchema() : undefined;
  const started = performance.now();
  const result = await migrateFlowStore({ cwd, env: {}, to, ...(pg ? { url: pg.url } : {}) });
  const ms = performance.now() - started;
  const rows = result.tables.reduce((s, t) => s + t.targetRows, 0);
  console.log(JSON.stringify({ bench: "migrate-store", to, rows, runs: result.runCount, ms: Math.round(ms), rowsPerSec: Math.round(rows / (ms / 1000)) }));
  await pg?.drop();
  rmSync(cwd, { recursive: true, force: true });
}
