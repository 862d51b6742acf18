/**
 * @module core/scorers/score-store
 * `ScoreRow` persistence (table `_flow_scores`, migration 22) and aggregates. A score's id is
 * derived from what it grades (`source:runId:nodeId:iteration:attempt:scorerId`), so scoring
 * the same attempt again with the same scorer replaces its row instead of adding one.
 * See docs/scorers.md.
 */
import { bindingOf } from "../binding.js";
import type { SqlRow, SqlValue, StorePort } from "../store/index.js";
import type { AggregateOptions, AggregateScore, ScoreRow } from "./types.js";
import { TABLES } from "../protocol.js";

/**
 * The scores table (migration 22).
 * @example
 * await store.query(`SELECT COUNT(*) AS n FROM ${SCORES_TABLE}`);
 */
export const SCORES_TABLE = TABLES.scores;

const COLUMNS = [
  "id",
  "run_id",
  "node_id",
  "iteration",
  "attempt",
  "scorer_id",
  "scorer_name",
  "source",
  "score",
  "reason",
  "meta_json",
  "input_json",
  "output_json",
  "ground_truth_json",
  "context_json",
  "latency_ms",
  "scored_at_ms",
  "duration_ms",
] as const;

/** The id of the score of one attempt by one scorer. */
export function scoreId(source: ScoreRow["source"], row: Pick<ScoreRow, "runId" | "nodeId" | "iteration" | "attempt" | "scorerId">): string {
  return [source, row.runId, row.nodeId, row.iteration, row.attempt, row.scorerId].map((p) => String(p).replace(/%/g, "%25").replace(/:/g, "%3A")).join(":");
}

/** Inserts a score, replacing an earlier score of the same attempt, scorer and source. */
export async function saveScore(store: StorePort, row: ScoreRow): Promise<void> {
  const values: SqlValue[] = [
    row.id,
    row.runId,
    row.nodeId,
    row.iteration,
    row.attempt,
    row.scorerId,
    row.scorerName,
    row.source,
    row.score,
    row.reason,
    row.metaJson,
    row.inputJson,
    row.outputJson,
    row.groundTruthJson,
    row.contextJson,
    row.latencyMs,
    row.scoredAtMs,
    row.durationMs,
  ];
  const updates = COLUMNS.filter((c) => c !== "id").map((c) => `${c} = excluded.${c}`).join(", ");
  await store.execute(`INSERT INTO ${SCORES_TABLE} (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")}) ON CONFLICT (id) DO UPDATE SET ${updates}`, values);
}

/** A nullable column through a converter. */
const nullable = <T>(v: unknown, convert: (v: unknown) => T): T | null => (v === null || v === undefined ? null : convert(v));

function toRow(r: SqlRow): ScoreRow {
  return {
    id: String(r.id),
    runId: String(r.run_id),
    nodeId: String(r.node_id),
    iteration: Number(r.iteration),
    attempt: Number(r.attempt),
    scorerId: String(r.scorer_id),
    scorerName: String(r.scorer_name),
    source: r.source as ScoreRow["source"],
    score: Number(r.score),
    reason: nullable(r.reason, String),
    metaJson: nullable(r.meta_json, String),
    inputJson: nullable(r.input_json, String),
    outputJson: nullable(r.output_json, String),
    groundTruthJson: nullable(r.ground_truth_json, String),
    contextJson: nullable(r.context_json, String),
    latencyMs: nullable(r.latency_ms, Number),
    scoredAtMs: Number(r.scored_at_ms),
    durationMs: nullable(r.duration_ms, Number),
  };
}

function filterSql(opts: AggregateOptions): { where: string; params: SqlValue[] } {
  const parts: string[] = [];
  const params: SqlValue[] = [];
  for (const [column, value] of [
    ["run_id", opts.runId],
    ["node_id", opts.nodeId],
    ["scorer_id", opts.scorerId],
  ] as const) {
    if (value === undefined) continue;
    parts.push(`${column} = ?`);
    params.push(value);
  }
  return { where: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

/**
 * Stored scores of a workflow's store, oldest first, filtered by run, node and scorer.
 * @example
 * const rows = await listScores(api.db, { runId: result.runId, scorerId: "exact-match" });
 */
export async function listScores(db: unknown, opts: AggregateOptions = {}): Promise<ScoreRow[]> {
  const { store } = bindingOf(db, "db handle");
  const { where, params } = filterSql(opts);
  const rows = await store.query(`SELECT ${COLUMNS.join(", ")} FROM ${SCORES_TABLE} ${where} ORDER BY scored_at_ms, id`, params);
  return rows.map(toRow);
}

/** Count, mean, min, max, median and population standard deviation of one scorer's scores. */
export function aggregateOf(scorerId: string, scorerName: string, scores: readonly number[]): AggregateScore {
  const sorted = [...scores].sort((a, b) => a - b);
  const count = sorted.length;
  const mean = sorted.reduce((s, x) => s + x, 0) / count;
  const mid = Math.floor(count / 2);
  const p50 = count % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const variance = sorted.reduce((s, x) => s + (x - mean) ** 2, 0) / count;
  return { scorerId, scorerName, count, mean, min: sorted[0]!, max: sorted[count - 1]!, p50, stddev: Math.sqrt(variance) };
}

/**
 * One `AggregateScore` per scorer (by scorer id) over the stored scores the filter selects.
 * The name is the scorer's most recent name.
 * @example
 * const [exact] = await aggregateScores(api.db, { runId, scorerId: "exact-match" });
 * console.log(exact.mean, exact.p50, exact.stddev);
 */
export async function aggregateScores(db: unknown, opts: AggregateOptions = {}): Promise<AggregateScore[]> {
  const { store } = bindingOf(db, "db handle");
  const { where, params } = filterSql(opts);
  const rows = await store.query(`SELECT scorer_id, scorer_name, score FROM ${SCORES_TABLE} ${where} ORDER BY scorer_id, scored_at_ms, id`, params);
  const groups = new Map<string, { name: string; scores: number[] }>();
  for (const r of rows) {
    const id = String(r.scorer_id);
    const group = groups.get(id) ?? { name: "", scores: [] };
    group.name = String(r.scorer_name);
    group.scores.push(Number(r.score));
    groups.set(id, group);
  }
  return [...groups].map(([id, g]) => aggregateOf(id, g.name, g.scores));
}
