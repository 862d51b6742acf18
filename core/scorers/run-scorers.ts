/**
 * @module core/scorers/run-scorers
 * Running scorers over attempts: the sampling decision, live scoring after each attempt (which
 * never fails the task) and the shared step that grades one attempt and stores its rows.
 *
 * Sampling is deterministic: a `ratio` binding grades an attempt when a hash of
 * (runId, nodeId, iteration, attempt, scorer id) falls below `rate`, so re-scoring the same
 * attempt (a resumed run, a batch re-run) makes the same decision and no random source is
 * needed. See docs/scorers.md.
 */
import type { ClockPort } from "../util/index.js";
import { FlowError, isFlowError } from "../errors.js";
import type { StorePort } from "../store/index.js";
import { sha256Hex } from "../util/index.js";
import { toScoreResult } from "./create-scorer.js";
import { saveScore, scoreId } from "./score-store.js";
import type { SamplingConfig, Scorer, ScorerBinding, ScorerContext, ScoreRow, ScorersMap } from "./types.js";

/** Where scoring runs: the workflow's store, clock and warning sink. */
export interface ScoringEnv {
  store: StorePort;
  clock: ClockPort;
  warn(message: string, details?: Record<string, unknown>): void;
}

/** One attempt to grade, with the optional extras scorers may use. */
export interface AttemptToScore extends ScorerContext {
  groundTruth?: unknown;
  context?: unknown;
}

/** The bindings of a `scorers` prop, checked (a bare Scorer is `{ scorer }`). */
export function bindingsOf(scorers: ScorersMap | readonly Scorer[] | undefined): ScorerBinding[] {
  const values = Array.isArray(scorers) ? scorers : Object.values(scorers ?? {});
  return values.map((v, i) => {
    const binding = (v as ScorerBinding).scorer ? (v as ScorerBinding) : { scorer: v as Scorer };
    if (typeof binding.scorer?.score !== "function" || typeof binding.scorer.id !== "string") {
      throw new FlowError("INVALID_ARGUMENT", `scorers entry ${i} is not a scorer or { scorer, sampling } binding (make one with createScorer).`, { index: i });
    }
    return binding;
  });
}

/** A number in [0, 1) fixed by its key. */
function unitHash(key: string): number {
  return Number.parseInt(sha256Hex(key).slice(0, 13), 16) / 2 ** 52;
}

/**
 * Whether `sampling` grades this attempt with this scorer (deterministic per attempt and scorer).
 * @example
 * isSampled({ type: "ratio", rate: 0.1 }, { runId, nodeId: "answer", iteration: 0, attempt: 1 }, "helpfulness");
 */
export function isSampled(sampling: SamplingConfig | undefined, attempt: Pick<ScorerContext, "runId" | "nodeId" | "iteration" | "attempt">, scorerId: string): boolean {
  if (!sampling || sampling.type === "all") return true;
  if (sampling.type === "none") return false;
  if (sampling.type === "ratio") return unitHash(JSON.stringify([attempt.runId, attempt.nodeId, attempt.iteration, attempt.attempt, scorerId])) < sampling.rate;
  throw new FlowError("INVALID_ARGUMENT", `Unknown sampling type ${JSON.stringify((sampling as { type: unknown }).type)} for scorer "${scorerId}" (use all, ratio or none).`, { scorerId });
}

const json = (value: unknown): string | null => (value === undefined ? null : (JSON.stringify(value) ?? null));

/**
 * Grades one attempt with each sampled scorer, in parallel, and stores a row per grade.
 * Resolves to the rows stored and the failures (a failing scorer stores nothing).
 */
export async function gradeAttempt(
  env: ScoringEnv,
  source: ScoreRow["source"],
  attempt: AttemptToScore,
  bindings: readonly ScorerBinding[],
): Promise<{ rows: ScoreRow[]; failures: FlowError[] }> {
  const rows: ScoreRow[] = [];
  const failures: FlowError[] = [];
  await Promise.all(
    bindings
      .filter((b) => isSampled(b.sampling, attempt, b.scorer.id))
      .map(async ({ scorer }) => {
        const started = env.clock.now();
        try {
          const result = toScoreResult(scorer.id, await scorer.score({
            input: attempt.input,
            output: attempt.output,
            ...(attempt.groundTruth !== undefined ? { groundTruth: attempt.groundTruth } : {}),
            ...(attempt.context !== undefined ? { context: attempt.context } : {}),
            ...(attempt.latencyMs !== undefined ? { latencyMs: attempt.latencyMs } : {}),
            ...(attempt.outputSchema !== undefined ? { outputSchema: attempt.outputSchema } : {}),
          }));
          const scoredAtMs = env.clock.now();
          const row: ScoreRow = {
            id: scoreId(source, { ...attempt, scorerId: scorer.id }),
            runId: attempt.runId,
            nodeId: attempt.nodeId,
            iteration: attempt.iteration,
            attempt: attempt.attempt,
            scorerId: scorer.id,
            scorerName: scorer.name,
            source,
            score: result.score,
            reason: result.reason ?? null,
            metaJson: json(result.meta),
            inputJson: json(attempt.input),
            outputJson: json(attempt.output),
            groundTruthJson: json(attempt.groundTruth),
            contextJson: json(attempt.context),
            latencyMs: attempt.latencyMs ?? null,
            scoredAtMs,
            durationMs: scoredAtMs - started,
          };
          await saveScore(env.store, row);
          rows.push(row);
        } catch (cause) {
          failures.push(
            isFlowError(cause)
              ? cause
              : new FlowError("SCORER_FAILED", `Scorer "${scorer.id}" failed on task "${attempt.nodeId}" of run ${attempt.runId}: ${(cause as Error)?.message ?? String(cause)}`, {
                  scorerId: scorer.id,
                  runId: attempt.runId,
                  nodeId: attempt.nodeId,
                }, { cause }),
          );
        }
      }),
  );
  return { rows, failures };
}

/**
 * Live scoring of a finished task attempt (the engine calls this after each attempt settles).
 * Never rejects: a scorer that throws, a bad `scorers` prop or a failed write is reported
 * through `env.warn` and the task is unaffected. Resolves to the rows stored.
 * @example
 * const rows = await scoreAttempt({ store, clock, warn }, { runId, nodeId: "answer", iteration: 0, attempt: 1, input: prompt, output: row, latencyMs: 812, scorers: desc.scorers });
 */
export async function scoreAttempt(env: ScoringEnv, attempt: AttemptToScore & { scorers: ScorersMap | undefined }): Promise<ScoreRow[]> {
  try {
    const { rows, failures } = await gradeAttempt(env, "live", attempt, bindingsOf(attempt.scorers));
    for (const f of failures) env.warn(`Live scoring of task "${attempt.nodeId}" (run ${attempt.runId}) failed: ${f.message}`, { code: f.code, runId: attempt.runId, nodeId: attempt.nodeId, ...f.details });
    return rows;
  } catch (error) {
    const e = FlowError.from(error);
    env.warn(`Live scoring of task "${attempt.nodeId}" (run ${attempt.runId}) failed: ${e.message}`, { code: e.code, runId: attempt.runId, nodeId: attempt.nodeId });
    return [];
  }
}
