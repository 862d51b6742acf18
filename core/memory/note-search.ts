/**
 * @module core/memory/note-search
 * Full-text search over notes, opted into per namespace kind, on every backend:
 *
 * - SQLite: one FTS5 table per kind (`_flow_note_fts_<kind>`, porter stemming) filled by an
 *   insert trigger on `_flow_notes`, ranked by BM25.
 * - PostgreSQL and PGlite: a stored `tsvector` column (`english` configuration) on
 *   `_flow_notes` and one partial GIN index per kind, ranked by `ts_rank` weighted with each
 *   query term's inverse document frequency (BM25-like), so a rare word outweighs a common one.
 *   Frequencies come from the column statistics that ANALYZE keeps.
 *
 * `enableNoteSearch` creates these lazily, backfills the kind's notes and records the kind in
 * `_flow_note_search`, all in one transaction; a second call is a no-op. Notes are immutable,
 * so an insert trigger (SQLite) or a generated column (PostgreSQL) keeps the index exact.
 *
 * A query is plain text: its words (letters and digits) are OR-ed, so a note matching more and
 * rarer words ranks higher. The read contract is applied to the top `limit*5` matches only
 * (SPEC.md), so fewer than `limit` notes may return. See docs/memory.md.
 */
import { FlowError } from "../errors.js";
import type { SqlExecutor, SqlValue } from "../store/index.js";
import { MEMORY_TABLES, type MemoryContext } from "./context.js";
import { isNamespaceKind, type MemoryNamespaceKind, NAMESPACE_KINDS, namespaceKey } from "./namespace.js";
import { NOTE_COLUMNS, readFilterSql, toNote } from "./notes.js";
import type { MemoryNote, NoteReadFilter } from "./types.js";

const { notes: TN, noteSearch: TS } = MEMORY_TABLES;
/**
 * Default number of notes `searchNotes` returns.
 * @example
 * await memory.searchNotes("agent", "refunds"); // at most DEFAULT_SEARCH_LIMIT notes
 */
export const DEFAULT_SEARCH_LIMIT = 10;
/** How many matches the read contract is applied to, per requested note (SPEC.md). */
const CANDIDATES_PER_RESULT = 5;
/** At most this many distinct query words are used (long prompts make long queries). */
const MAX_QUERY_TERMS = 32;

/**
 * Words that carry no meaning for ranking. PostgreSQL's `english` configuration drops its own
 * list; SQLite's FTS5 has none, and OR-ing `the` would match every note, so they go here.
 */
const STOPWORDS = new Set(
  ("a an and are as at be but by for from has have he her his i if in into is it its me my no not of on or our she so than that the their " +
    "them then there these they this to was we were what when where which who why will with you your do does did can could would should " +
    "how about all any been being both each few more most other some such only own same too very just also").split(" "),
);

function checkKind(kind: unknown, op: string): asserts kind is MemoryNamespaceKind {
  if (!isNamespaceKind(kind)) throw new FlowError("INVALID_ARGUMENT", `${op}: "${String(kind)}" is not a namespace kind (${NAMESPACE_KINDS.join(", ")}).`, { kind: String(kind) });
}

/** The distinct, lowercased words of a query, stopwords removed. */
export function queryTerms(query: string): string[] {
  const words = String(query).toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((w) => !STOPWORDS.has(w)))].slice(0, MAX_QUERY_TERMS);
}

const ftsTable = (kind: MemoryNamespaceKind) => `_flow_note_fts_${kind}`;
const ginIndex = (kind: MemoryNamespaceKind) => `_flow_notes_search_${kind}`;

async function isEnabled(ex: SqlExecutor, kind: MemoryNamespaceKind): Promise<boolean> {
  return (await ex.query(`SELECT ns_kind FROM ${TS} WHERE ns_kind = ?`, [kind])).length > 0;
}

/** Opts a namespace kind into search: creates the index lazily and backfills it. Idempotent. */
export async function enableNoteSearch(c: MemoryContext, kind: MemoryNamespaceKind): Promise<void> {
  checkKind(kind, "enableNoteSearch");
  await c.store.transaction(async (tx) => {
    if (c.store.dialect === "postgres") await tx.query(`SELECT pg_advisory_xact_lock(7331024)`);
    if (await isEnabled(tx, kind)) return;
    // `kind` is one of four fixed words (checked above), so it is safe inside DDL.
    if (c.store.dialect === "sqlite") {
      const fts = ftsTable(kind);
      await tx.execute(`CREATE VIRTUAL TABLE IF NOT EXISTS ${fts} USING fts5(body, note_id UNINDEXED, namespace UNINDEXED, tokenize = 'porter unicode61 remove_diacritics 2')`);
      await tx.execute(
        `CREATE TRIGGER IF NOT EXISTS ${fts}_insert AFTER INSERT ON ${TN} WHEN new.ns_kind = '${kind}'
         BEGIN INSERT INTO ${fts} (body, note_id, namespace) VALUES (new.body, new.id, new.namespace); END`,
      );
      await tx.execute(`DELETE FROM ${fts}`);
      await tx.execute(`INSERT INTO ${fts} (body, note_id, namespace) SELECT body, id, namespace FROM ${TN} WHERE ns_kind = ?`, [kind]);
    } else {
      await tx.execute(`ALTER TABLE ${TN} ADD COLUMN IF NOT EXISTS search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('english'::regconfig, body)) STORED`);
      await tx.execute(`CREATE INDEX IF NOT EXISTS ${ginIndex(kind)} ON ${TN} USING GIN (search_tsv) WHERE ns_kind = '${kind}'`);
      // Word frequencies for ranking come from the column statistics (see postgresHits).
      await tx.execute(`ANALYZE ${TN}`);
    }
    await tx.execute(`INSERT INTO ${TS} (ns_kind, enabled_at_ms) VALUES (?, ?) ON CONFLICT DO NOTHING`, [kind, c.clock.now()]);
  });
}

/**
 * Notes of a kind that match a query, best first, under the read filter (the read contract by
 * default). Fails with NOTE_SEARCH_NOT_ENABLED when the kind was never enabled.
 */
export async function searchNotes(c: MemoryContext, kind: MemoryNamespaceKind, query: string, limit = DEFAULT_SEARCH_LIMIT, filter: NoteReadFilter = {}): Promise<MemoryNote[]> {
  checkKind(kind, "searchNotes");
  if (!(await isEnabled(c.store, kind))) {
    throw new FlowError("NOTE_SEARCH_NOT_ENABLED", `Note search is not enabled for namespace kind "${kind}"; call enableNoteSearch("${kind}") first.`, { kind });
  }
  const n = Math.max(0, Math.trunc(limit));
  const terms = queryTerms(query);
  if (n === 0 || terms.length === 0) return [];
  const hits = c.store.dialect === "sqlite" ? sqliteHits(kind, terms, filter) : await postgresHits(c.store, kind, terms, filter);
  const { where, params } = readFilterSql(filter);
  const rows = await c.store.query(
    `WITH hits AS (${hits.sql} LIMIT ?)
     SELECT ${NOTE_COLUMNS} FROM hits h JOIN ${TN} n ON n.id = h.note_id
     ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY h.score DESC, n.seq LIMIT ?`,
    [...hits.params, n * CANDIDATES_PER_RESULT, ...params, n],
  );
  return rows.map(toNote);
}

interface HitsQuery {
  /** Selects `note_id` and `score` (higher is better), best first, without LIMIT. */
  sql: string;
  params: SqlValue[];
}

function sqliteHits(kind: MemoryNamespaceKind, terms: string[], filter: NoteReadFilter): HitsQuery {
  const fts = ftsTable(kind);
  const match = terms.map((t) => `"${t}"`).join(" OR ");
  const byNs = filter.namespace !== undefined;
  return {
    // bm25() is lower-is-better; negated so that every dialect sorts by score DESC.
    sql: `SELECT note_id, -bm25(${fts}) AS score FROM ${fts} WHERE ${fts} MATCH ?${byNs ? " AND namespace = ?" : ""} ORDER BY bm25(${fts})`,
    params: byNs ? [match, namespaceKey(filter.namespace!)] : [match],
  };
}

/**
 * `ts_rank` has no notion of how rare a word is, so each term is ranked on its own and
 * weighted by its inverse document frequency. Frequencies come from the planner's statistics
 * of the `tsvector` column (`pg_stats.most_common_elems`, refreshed by ANALYZE, which
 * `enableNoteSearch` runs once and autovacuum repeats): one catalog read instead of counting
 * every match. A word missing from the statistics is rarer than every listed one. Without
 * statistics (a store never analyzed) the matches are counted.
 */
async function postgresHits(ex: SqlExecutor, kind: MemoryNamespaceKind, terms: string[], filter: NoteReadFilter): Promise<HitsQuery> {
  const lexemes = (await ex.query<{ lexeme: string }>(`SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', ?))) AS lexeme`, [terms.join(" ")])).map((r) =>
    String(r.lexeme),
  );
  if (lexemes.length === 0) return { sql: `SELECT id AS note_id, 0 AS score FROM ${TN} WHERE 1 = 0`, params: [] };
  const inKind = `ns_kind = '${kind}'`;
  const frequency = (await statsFrequencies(ex)) ?? (await countedFrequencies(ex, inKind, lexemes));
  const idf = (f: number) => Math.log(1 + (1 - f) / f);
  const score = lexemes.map(() => `ts_rank(search_tsv, to_tsquery('simple', ?), 1) * ?`).join(" + ");
  const byNs = filter.namespace !== undefined;
  return {
    sql: `SELECT id AS note_id, (${score}) AS score FROM ${TN}
          WHERE ${inKind} AND search_tsv @@ to_tsquery('simple', ?)${byNs ? " AND namespace = ?" : ""} ORDER BY score DESC`,
    params: [...lexemes.flatMap((l) => [quoteLexeme(l), idf(frequency(l))]), lexemes.map(quoteLexeme).join(" | "), ...(byNs ? [namespaceKey(filter.namespace!)] : [])],
  };
}

/** Share of notes containing a lexeme, from the column statistics; undefined without them. */
async function statsFrequencies(ex: SqlExecutor): Promise<((lexeme: string) => number) | undefined> {
  const rows = await ex.query<{ elem: string; freq: unknown; min_freq: unknown }>(
    `SELECT e.elem, f.freq, s.most_common_elem_freqs[array_length(s.most_common_elem_freqs, 1) - 2] AS min_freq
     FROM pg_stats s
     CROSS JOIN LATERAL unnest(s.most_common_elems::text::text[]) WITH ORDINALITY AS e(elem, i)
     JOIN LATERAL unnest(s.most_common_elem_freqs) WITH ORDINALITY AS f(freq, j) ON f.j = e.i
     WHERE s.schemaname = current_schema() AND s.tablename = '${TN}' AND s.attname = 'search_tsv'`,
  );
  if (rows.length === 0) return undefined;
  const known = new Map(rows.map((r) => [String(r.elem), Number(r.freq)]));
  const rare = Number(rows[0]!.min_freq) / 2;
  return (lexeme) => Math.min(0.99, Math.max(1e-6, known.get(lexeme) ?? rare));
}

/** Share of the kind's notes containing each lexeme, counted (for stores without statistics). */
async function countedFrequencies(ex: SqlExecutor, inKind: string, lexemes: string[]): Promise<(lexeme: string) => number> {
  const quoted = lexemes.map(quoteLexeme);
  const [stats] = await ex.query(
    `SELECT COUNT(*) AS total, ${quoted.map((_, i) => `COUNT(*) FILTER (WHERE search_tsv @@ to_tsquery('simple', ?)) AS df${i}`).join(", ")} FROM ${TN} WHERE ${inKind}`,
    quoted,
  );
  const total = Math.max(1, Number(stats?.total ?? 0));
  const df = new Map(lexemes.map((l, i) => [l, Number(stats?.[`df${i}`] ?? 0)]));
  return (lexeme) => Math.min(0.99, Math.max(0.5 / total, (df.get(lexeme) ?? 0) / total));
}

/** A lexeme as a quoted `tsquery` operand (already stemmed, so parsed with `simple`). */
function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/'/g, "''")}'`;
}
