/**
 * Store start-up benchmark: how long a fresh process takes to get a ready api (store opened,
 * migrations applied, user tables made) on each backend, one JSON line per case. Each case runs
 * in a new process, because PGlite's wasm compile is paid once per process.
 *
 *   npx tsx bench/store-open.ts
 *
 * Cases: sqlite-new (a new file), sqlite-reopen, pglite-initdb (a new data dir without the
 * template: initdb), pglite-new (a new data dir copied from the template), pglite-reopen,
 * pglite-memory (in memory: initdb every time), postgres-new (a fresh schema), postgres-reopen.
 * Fields: case, openMs (factory call to ready api), firstQueryMs, importMs (loading durable-flow).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { scratchDir } from "./support/scratch.js";

const CASES = ["sqlite-new", "sqlite-reopen", "pglite-initdb", "pglite-new", "pglite-reopen", "pglite-memory", "postgres-new", "postgres-reopen"] as const;
type Case = (typeof CASES)[number];

const { values } = parseArgs({ options: { case: { type: "string" }, at: { type: "string" } } });

if (values.case) {
  console.log(JSON.stringify(await measure(values.case as Case, values.at!)));
} else {
  const self = fileURLToPath(import.meta.url);
  const { freshPostgresSchema } = await import("../node/testing/postgres-test-db.js");
  const pg = await freshPostgresSchema();
  const dir = scratchDir("flow-open-");
  const where: Record<Case, string> = {
    "sqlite-new": join(dir, "a.db"),
    "sqlite-reopen": join(dir, "a.db"),
    "pglite-initdb": join(dir, "initdb"),
    "pglite-new": join(dir, "pglite"),
    "pglite-reopen": join(dir, "pglite"),
    "pglite-memory": "",
    "postgres-new": pg.url,
    "postgres-reopen": pg.url,
  };
  for (const c of CASES) {
    // Without a writable cache dir there is no template, so PGlite runs initdb.
    const env = c === "pglite-initdb" ? { ...process.env, XDG_CACHE_HOME: "/dev/null/flow-no-cache" } : process.env;
    const r = spawnSync(process.execPath, ["--import", "tsx", self, "--case", c, "--at", where[c]], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", env });
    if (r.status !== 0) throw new Error(`case ${c} failed`);
    process.stdout.write(r.stdout);
  }
  await pg.drop();
}

async function measure(c: Case, at: string) {
  const t0 = performance.now();
  const { createFlow, createFlowPostgres, FlowDb, openPgliteStore } = await import("durable-flow");
  const { z } = await import("zod");
  const importMs = performance.now() - t0;
  const schemas = { out: z.object({ n: z.number().int() }) };
  const start = performance.now();
  let close = async () => {};
  let db: unknown;
  if (c.startsWith("sqlite")) {
    db = createFlow(schemas, { dbPath: at }).db;
  } else if (c === "pglite-memory") {
    const store = await openPgliteStore();
    db = { store };
    close = () => store.close();
  } else {
    const api = await createFlowPostgres(schemas, c.startsWith("pglite") ? { provider: "pglite", dataDir: at } : { connectionString: at });
    db = api.db;
    close = api.close;
  }
  const openMs = performance.now() - start;
  const q = performance.now();
  const store = c === "pglite-memory" ? (db as { store: import("durable-flow").StorePort }).store : new FlowDb(db).store;
  await store.query("SELECT 1 AS one");
  const firstQueryMs = performance.now() - q;
  await close();
  const round = (x: number) => Math.round(x * 10) / 10;
  return { bench: "store-open", case: c, openMs: round(openMs), firstQueryMs: round(firstQueryMs), importMs: round(importMs) };
}
