/**
 * Note-search benchmark: N notes of real English text (paragraphs of package READMEs and Linux
 * manual pages, bench/text-corpus.ts) in 100 namespaces of kind `global`, then
 * `enableNoteSearch` (the backfill) and `searchNotes` with 200 queries (manual-page summaries),
 * on SQLite, PGlite and PostgreSQL. One JSON line per backend on stdout.
 *
 *   npx tsx bench/memory-search.ts                          # all backends, N = 100000
 *   npx tsx bench/memory-search.ts --backend sqlite --n 10000
 *
 * PostgreSQL needs the server of scripts/setup.d/postgres.sh (or FLOW_TEST_POSTGRES_URL).
 * Fields: backend, notes, loadMs (bulk insert, not part of the API), enableMs (enableNoteSearch:
 * index build and backfill), searchP50Ms / searchP95Ms / searchMeanMs (searchNotes, limit 10),
 * meanHits, saveNoteMs (mean saveNote once search is enabled, index maintenance included).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { bindingOf, createFlow, createFlowPostgres, createMemoryStore, type SqlValue } from "durable-flow";
import { freshPostgresSchema } from "../node/testing/postgres-test-db.js";
import { manDocs, readmeDocs } from "./text-corpus.js";

const { values } = parseArgs({ options: { backend: { type: "string", multiple: true }, n: { type: "string" } } });
const N = Number(values.n ?? 100_000);
const backends = values.backend ?? ["sqlite", "pglite", "postgres"];
const schemas = { output: z.object({ ok: z.boolean() }) };

/** Paragraphs of at least 80 characters, cycled (with a counter) up to n. */
function paragraphs(n: number): string[] {
  const source = [...readmeDocs(), ...manDocs(100_000)].flatMap((d) =>
    d.body
      .split(/\n\s*\n/)
      .map((p) => p.replace(/\s+/g, " ").trim())
      .filter((p) => p.length >= 80),
  );
  return Array.from({ length: n }, (_, i) => (i < source.length ? source[i]! : `${source[i % source.length]!} (${Math.floor(i / source.length)})`));
}

async function open(backend: string) {
  const dir = mkdtempSync(join(tmpdir(), "flow-bench-memory-"));
  if (backend === "sqlite") return { api: createFlow(schemas, { dbPath: join(dir, "flow.db") }), done: async () => rmSync(dir, { recursive: true, force: true }) };
  if (backend === "pglite") {
    const api = await createFlowPostgres(schemas, { provider: "pglite", dataDir: join(dir, "pglite") });
    return { api, done: async () => (await api.close(), rmSync(dir, { recursive: true, force: true })) };
  }
  const schema = await freshPostgresSchema();
  const api = await createFlowPostgres(schemas, { connectionString: schema.url });
  return { api, done: async () => (await api.close(), await schema.drop(), rmSync(dir, { recursive: true, force: true })) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

async function runCase(backend: string, bodies: string[], queries: string[]) {
  const { api, done } = await open(backend);
  const { store } = bindingOf(api.db);
  const memory = createMemoryStore(api.db);
  let t = performance.now();
  const BATCH = 200;
  for (let i = 0; i < bodies.length; i += BATCH) {
    const rows = bodies.slice(i, i + BATCH);
    const params: SqlValue[] = rows.flatMap((body, j) => [`bench-${i + j}`, i + j + 1, `global:bench-${(i + j) % 100}`, "global", body, "accepted", 1_700_000_000_000 + i + j]);
    await store.transaction((tx) =>
      tx.execute(`INSERT INTO _flow_notes (id, seq, namespace, ns_kind, body, status, created_at_ms) VALUES ${rows.map(() => "(?, ?, ?, ?, ?, ?, ?)").join(", ")}`, params),
    );
  }
  const loadMs = performance.now() - t;
  t = performance.now();
  await memory.enableNoteSearch("global");
  const enableMs = performance.now() - t;
  await memory.searchNotes("global", queries[0]!); // warm-up (plans, caches)
  const times: number[] = [];
  let hits = 0;
  for (const q of queries) {
    t = performance.now();
    hits += (await memory.searchNotes("global", q, 10)).length;
    times.push(performance.now() - t);
  }
  t = performance.now();
  for (let i = 0; i < 200; i++) await memory.saveNote({ namespace: `global:bench-${i % 100}`, body: bodies[i]! });
  const saveNoteMs = (performance.now() - t) / 200;
  await done();
  const sorted = [...times].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    backend,
    notes: bodies.length,
    loadMs: Math.round(loadMs),
    enableMs: Math.round(enableMs),
    queries: queries.length,
    searchP50Ms: round(percentile(sorted, 0.5)),
    searchP95Ms: round(percentile(sorted, 0.95)),
    searchMeanMs: round(times.reduce((s, x) => s + x, 0) / times.length),
    meanHits: round(hits / queries.length),
    saveNoteMs: round(saveNoteMs),
  };
}

const bodies = paragraphs(N);
const queries = manDocs(100_000)
  .filter((_, i) => i % 4 === 0)
  .slice(0, 200)
  .map((d) => d.query);
for (const backend of backends) console.log(JSON.stringify(await runCase(backend, bodies, queries)));
