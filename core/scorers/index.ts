/**
 * @module core/scorers
 * Scorers that grade task outputs: `createScorer`, the LLM judge, sampling, live scoring after
 * each attempt, stored `ScoreRow`s and aggregates (batch scoring of past runs, `scoreRuns`, reads
 * the engine's records and lives there: core/engine/score-runs.ts). See docs/scorers.md.
 */
export { createLlmJudge, createScorer } from "./create-scorer.js";
export { isSampled, scoreAttempt } from "./run-scorers.js";
export type { AttemptToScore, ScoringEnv } from "./run-scorers.js";
export { aggregateScores, listScores, SCORES_TABLE } from "./score-store.js";
export type {
  AggregateOptions,
  AggregateScore,
  CreateScorerConfig,
  LlmJudgeConfig,
  SamplingConfig,
  ScoreResult,
  Scorer,
  ScorerBinding,
  ScorerContext,
  ScorerInput,
  ScoreRow,
  ScorersMap,
} from "./types.js";

// For Flow's other areas (not part of the documented entry): batch scoring in the engine.
export { bindingsOf, gradeAttempt } from "./run-scorers.js";
