/**
 * @module core/scorers/types
 * The scorer contract and the stored score records (SPEC.md "Scorers"). See docs/scorers.md.
 */
import type { AgentLike } from "../agents/index.js";

/** What a scorer returns: a number (any scale the scorer documents), why, and extra data. */
export interface ScoreResult {
  score: number;
  reason?: string;
  meta?: Record<string, unknown>;
}

/** What a scorer grades. */
export interface ScorerInput {
  input: unknown;
  output: unknown;
  groundTruth?: unknown;
  context?: unknown;
  latencyMs?: number;
  outputSchema?: unknown;
}

/** A scorer: an id, a display name, a description and a scoring function. */
export interface Scorer {
  id: string;
  name: string;
  description: string;
  score(input: ScorerInput): Promise<ScoreResult>;
}

/** Which attempts a scorer grades: all (default), a fraction, or none. */
export type SamplingConfig = { type: "all" } | { type: "ratio"; rate: number } | { type: "none" };

/** A scorer with its sampling, as the task `scorers` prop takes it. */
export interface ScorerBinding {
  scorer: Scorer;
  sampling?: SamplingConfig;
}

/** The task `scorers` prop: a name per binding (a bare Scorer is taken as `{ scorer }`). */
export type ScorersMap = Record<string, ScorerBinding | Scorer>;

/** One stored score (table `_flow_scores`). JSON columns hold `JSON.stringify` of the value. */
export interface ScoreRow {
  id: string;
  runId: string;
  nodeId: string;
  iteration: number;
  attempt: number;
  scorerId: string;
  scorerName: string;
  source: "live" | "batch";
  score: number;
  reason: string | null;
  metaJson: string | null;
  inputJson: string | null;
  outputJson: string | null;
  groundTruthJson: string | null;
  contextJson: string | null;
  latencyMs: number | null;
  scoredAtMs: number;
  durationMs: number | null;
}

/** Statistics of one scorer's scores. `stddev` is the population standard deviation. */
export interface AggregateScore {
  scorerId: string;
  scorerName: string;
  count: number;
  mean: number;
  min: number;
  max: number;
  /** The median (mean of the two middle scores for an even count). */
  p50: number;
  stddev: number;
}

/** Which scores an aggregate (or a listing) covers. */
export interface AggregateOptions {
  runId?: string;
  nodeId?: string;
  scorerId?: string;
}

/** The attempt a live score is taken for. */
export interface ScorerContext {
  runId: string;
  nodeId: string;
  iteration: number;
  attempt: number;
  input: unknown;
  output: unknown;
  latencyMs?: number;
  outputSchema?: unknown;
}

/** An LLM judge: an agent grades the output following `instructions`. */
export interface LlmJudgeConfig {
  id: string;
  name: string;
  description: string;
  judge: AgentLike;
  instructions: string;
  promptTemplate(input: ScorerInput): string;
}

/** What `createScorer` takes. */
export interface CreateScorerConfig {
  id: string;
  name: string;
  description: string;
  score(input: ScorerInput): Promise<ScoreResult | number> | ScoreResult | number;
}
