import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryStore, type MemoryStore } from "durable-flow";
import { buildCorpus } from "../../bench/text-corpus.js";
import { testBackends } from "../../node/testing/backends.js";

// Relevance of note search on 1,200 texts the project did not write (bench/text-corpus.ts:
// package READMEs and Linux manual pages), each with a query whose right answer is known
// independently of the search.

const CORPUS_SIZE = 1200;
const QUERIES = 200;

// Read once for the three backends (about a second of CPU each time).
const { docs: corpus, queries } = buildCorpus(CORPUS_SIZE);

describe.each(testBackends)("note search relevance on $name", (backend) => {
  let memory: MemoryStore;

  beforeAll(async () => {
    const { api } = await backend.open({ output: z.object({ ok: z.boolean() }) });
    memory = createMemoryStore(api.db);
    // Half the corpus is saved before search is enabled (backfill), half after (trigger/column).
    const half = Math.floor(corpus.length / 2);
    for (const doc of corpus.slice(0, half)) await memory.saveNote({ namespace: { kind: "global", id: "corpus" }, body: doc.body, id: doc.id });
    await memory.enableNoteSearch("global");
    for (const doc of corpus.slice(half)) await memory.saveNote({ namespace: { kind: "global", id: "corpus" }, body: doc.body, id: doc.id });
  }, 240_000);

  it("indexes a corpus of at least 1,000 real English texts", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1000);
    expect(corpus.filter((d) => d.id.startsWith("npm:")).length).toBeGreaterThanOrEqual(80);
    expect(new Set(corpus.map((d) => d.id)).size).toBe(corpus.length);
  });

  it("finds the right text in the top 3 for at least 90% of queries (and first for 80%)", async () => {
    const step = Math.max(1, Math.floor(queries.length / QUERIES));
    const sample = queries.filter((_, i) => i % step === 0).slice(0, QUERIES);
    let top1 = 0;
    let top3 = 0;
    let reciprocal = 0;
    const misses: string[] = [];
    for (const doc of sample) {
      const ids = (await memory.searchNotes("global", doc.query, 10)).map((n) => n.id);
      const rank = ids.indexOf(doc.id);
      if (rank === 0) top1++;
      if (rank >= 0 && rank < 3) top3++;
      else misses.push(`${doc.id} <- "${doc.query.slice(0, 60)}" (rank ${rank})`);
      if (rank >= 0) reciprocal += 1 / (rank + 1);
    }
    const report = { backend: backend.name, queries: sample.length, top1: top1 / sample.length, top3: top3 / sample.length, mrr: reciprocal / sample.length };
    console.info(JSON.stringify(report));
    expect(sample.length).toBeGreaterThanOrEqual(150);
    expect(report.top3, misses.slice(0, 20).join("\n")).toBeGreaterThanOrEqual(0.9);
    expect(report.top1).toBeGreaterThanOrEqual(0.8);
  }, 120_000);
});
