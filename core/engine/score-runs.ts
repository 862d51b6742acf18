/**
 * @module core/engine/score-runs
 * Batch scoring: grade the finished tasks of past runs with scorers after the fact (a new
 * scorer, a changed judge). Each finished node is graded on its final output row and its
 * finishing attempt; rows are stored with source `batch` and replace an earlier batch score
 * of the same attempt and scorer, so a batch can be re-run. See docs/scorers.md. In the engine
 * beside live scoring (attempt-services.ts): it reads the engine's records with the scorers'
 * grading, and core/scorers stays below the engine (docs/architecture.md, "No cycles").
 */
import { bindingOf } from "../binding.js";
import type { FlowError } from "../errors.js";
import { bindingsOf, gradeAttempt } from "../scorers/index.js";
import type { Scorer, ScoreRow, ScorersMap } from "../scorers/index.js";
import { FlowDb } from "./flow-db.js";

/** A finished task of a past run, as batch scoring sees it. */
export interface BatchTarget {
  runId: string;
  nodeId: string;
  iteration: number;
  attempt: number;
  /** The run's input. */
  runInput: unknown;
  /** The task's output row (without the runId/nodeId/iteration keys). */
  output: Record<string, unknown>;
}

export interface ScoreRunsOptions {
  scorers: ScorersMap | Scorer[];
  /** Runs to grade (default: every finished run, newest 10,000). */
  runIds?: string[];
  /** Only these task ids. */
  nodeIds?: string[];
  /** The scorer `input` of a task (default: the run's input). */
  input?(target: BatchTarget): unknown;
  /** Ground truth of a task (default: none). */
  groundTruth?(target: BatchTarget): unknown;
  /** Context of a task (default: none). */
  context?(target: BatchTarget): unknown;
}

export interface ScoreRunsResult {
  /** How many finished task attempts were considered. */
  attempts: number;
  rows: ScoreRow[];
  /** Scorers that threw or gave no score (those attempts have no row for that scorer). */
  failures: FlowError[];
}

const ADDED_KEYS = new Set(["runId", "nodeId", "iteration"]);

/**
 * Grades the finished tasks of past runs and stores the scores (source `batch`).
 * @example
 * const { rows, failures } = await scoreRuns(api.db, { scorers: { exact }, runIds: [runId], groundTruth: (t) => expected[t.nodeId] });
 */
export async function scoreRuns(db: unknown, opts: ScoreRunsOptions): Promise<ScoreRunsResult> {
  const { env } = bindingOf(db, "db handle");
  const flowDb = new FlowDb(db);
  const bindings = bindingsOf(opts.scorers);
  const runIds = opts.runIds ?? (await flowDb.listRuns({ status: "finished", limit: 10_000 })).map((r) => r.runId);
  const result: ScoreRunsResult = { attempts: 0, rows: [], failures: [] };
  for (const runId of runIds) {
    const run = await flowDb.requireRun(runId);
    const attempts = (await flowDb.listAttempts(runId)).filter((a) => a.state === "finished");
    const nodes = (await flowDb.listNodes(runId)).filter((n) => n.state === "finished" && n.outputTable && (!opts.nodeIds || opts.nodeIds.includes(n.nodeId)));
    const outputsByTable = new Map<string, Record<string, unknown>[]>();
    for (const node of nodes) {
      const table = node.outputTable!;
      if (!outputsByTable.has(table)) outputsByTable.set(table, await flowDb.listOutputs(runId, table));
      const stored = outputsByTable.get(table)!.find((r) => r.nodeId === node.nodeId && r.iteration === node.iteration);
      const finishing = attempts.filter((a) => a.nodeId === node.nodeId && a.iteration === node.iteration).at(-1);
      if (!stored || !finishing) continue;
      const output = Object.fromEntries(Object.entries(stored).filter(([k]) => !ADDED_KEYS.has(k)));
      const target: BatchTarget = { runId, nodeId: node.nodeId, iteration: node.iteration, attempt: finishing.attempt, runInput: run.input, output };
      result.attempts++;
      const graded = await gradeAttempt(
        { store: flowDb.store, clock: env.clock, warn: env.warn },
        "batch",
        {
          runId,
          nodeId: node.nodeId,
          iteration: node.iteration,
          attempt: finishing.attempt,
          input: opts.input ? opts.input(target) : run.input,
          output,
          ...(finishing.finishedAtMs !== null ? { latencyMs: finishing.finishedAtMs - finishing.startedAtMs } : {}),
          ...(opts.groundTruth ? { groundTruth: opts.groundTruth(target) } : {}),
          ...(opts.context ? { context: opts.context(target) } : {}),
        },
        bindings,
      );
      result.rows.push(...graded.rows);
      result.failures.push(...graded.failures);
    }
  }
  return result;
}
