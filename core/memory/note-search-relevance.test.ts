import { lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryStore, type MemoryStore } from "durable-flow";
import { testBackends } from "../../node/testing/backends.js";

// Relevance of note search on texts the project did not write: the README of every package in
// node_modules and the Linux manual pages of system calls and C library functions
// (manpages-dev, installed by scripts/setup.d/manpages.sh). The right answer of each query is
// known independently of the search: a README is found by its package's name and the
// description in its package.json; a manual page by its name and the one-line summary of its
// NAME section.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const MAN_DIRS = ["/usr/share/man/man2", "/usr/share/man/man3"];
const CORPUS_SIZE = 1200;
const QUERIES = 200;

interface Doc {
  id: string;
  body: string;
  query: string;
}

function packageDirs(): string[] {
  const base = join(ROOT, "node_modules");
  const dirs: string[] = [];
  for (const name of readdirSync(base)) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) for (const sub of readdirSync(join(base, name))) dirs.push(join(base, name, sub));
    else dirs.push(join(base, name));
  }
  return dirs.sort();
}

function readmeDocs(): Doc[] {
  const docs: Doc[] = [];
  for (const dir of packageDirs()) {
    const readme = ["README.md", "readme.md", "Readme.md"].map((f) => join(dir, f)).find((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
    if (!readme) continue;
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; description?: string };
    const body = readFileSync(readme, "utf8");
    if (!pkg.name || !pkg.description || body.length < 200) continue;
    docs.push({ id: `npm:${pkg.name}`, body, query: `${pkg.name.replace(/[@/._-]+/g, " ")} ${pkg.description}` });
  }
  return docs;
}

/** Plain text of a troff manual page (good enough for indexing: macros dropped, escapes undone). */
function manText(troff: string): string {
  return troff
    .split("\n")
    .filter((l) => !l.startsWith('.\\"'))
    .map((l) => (l.startsWith(".") ? l.replace(/^\.\S+\s*/, "") : l))
    .join("\n")
    .replace(/\\f[BIRPC]|\\f\(..|\\\(..|\\[&|^]/g, "")
    .replace(/\\-/g, "-");
}

function manDocs(limit: number): Doc[] {
  const docs: Doc[] = [];
  for (const dir of MAN_DIRS) {
    for (const file of readdirSync(dir).sort()) {
      if (docs.length >= limit) return docs;
      // Symlinked and `.so` pages are aliases of another page: not texts of their own.
      if (!/\.[23]\.gz$/.test(file) || lstatSync(join(dir, file)).isSymbolicLink()) continue;
      const troff = gunzipSync(readFileSync(join(dir, file))).toString("utf8");
      if (troff.startsWith(".so ")) continue; // an alias page
      const name = /\.SH NAME\s*\n([^\n]+)/.exec(troff)?.[1];
      const parts = name?.split(/\s+\\-\s+/);
      if (!parts || parts.length < 2) continue;
      const first = parts[0]!.split(",")[0]!.trim();
      docs.push({ id: `man:${file}`, body: manText(troff), query: `${first} ${parts.slice(1).join(" ")}` });
    }
  }
  return docs;
}

/**
 * The corpus, with each query kept only when its answer is unique: pages that share one NAME
 * summary (for example every page of one X11 library) have no single right answer.
 */
function buildCorpus(): { docs: Doc[]; queries: Doc[] } {
  const readmes = readmeDocs();
  const docs = [...readmes, ...manDocs(CORPUS_SIZE - readmes.length)];
  const uses = new Map<string, number>();
  for (const d of docs) uses.set(d.query, (uses.get(d.query) ?? 0) + 1);
  return { docs, queries: docs.filter((d) => uses.get(d.query) === 1) };
}

describe.each(testBackends)("note search relevance on $name", (backend) => {
  const { docs: corpus, queries } = buildCorpus();
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
