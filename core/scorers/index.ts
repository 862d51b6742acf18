/**
 * @module core/scorers
 * Scorers that grade task outputs: `createScorer`, the LLM judge, sampling, live scoring after
 * each attempt, batch scoring of past runs, stored `ScoreRow`s and aggregates.
 * See docs/scorers.md.
 */
export { createLlmJudge, createScorer } from "./create-scorer.js";
export { isSampled, scoreAttempt } from "./run-scorers.js";
export type { AttemptToScore, ScoringEnv } from "./run-scorers.js";
export { scoreRuns } from "./batch.js";
export type { BatchTarget, ScoreRunsOptions, ScoreRunsResult } from "./batch.js";
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
