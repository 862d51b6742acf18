/**
 * @module core/api/results-data
 * What the routes of crons, scores and memory answer, as zod schemas (beside core/api/results.ts).
 * The types owned by the API are derived from them (`CronRow`, `MemoryNamespaceInfo`); a schema
 * of a type core/scorers or core/memory declares is typed against it (`z.ZodType<ScoreRow>`).
 * node/server/contract-results.test.tsx parses real answers.
 */
import { z } from "zod";
import type { MemoryFact, MemoryNote } from "../memory/index.js";
import type { ScoreRow } from "../scorers/index.js";

/** A cron of the Gateway (cronList answers a list; cronCreate the row written). */
export const cronRowSchema = z.strictObject({
  cronId: z.string(),
  workflowKey: z.string(),
  schedule: z.string(),
  input: z.record(z.string(), z.unknown()),
  enabled: z.boolean(),
  createdBy: z.string().nullable(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  lastFiredAtMs: z.number().nullable(),
  lastRunId: z.string().nullable(),
  /** When the schedule fires next (null when disabled). */
  nextFireAtMs: z.number().nullable(),
});

/** What cronDelete answers. */
export const cronDeleteResultSchema = z.strictObject({ cronId: z.string(), deleted: z.literal(true) });

/** What cronRun answers: the run the cron started. */
export const cronRunResultSchema = z.strictObject({ cronId: z.string(), runId: z.string() });

/** A score of a task attempt (`ScoreRow`, declared by core/scorers): the route listScores answers a list. */
export const scoreRowSchema: z.ZodType<ScoreRow> = z.strictObject({
  id: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  scorerId: z.string(),
  scorerName: z.string(),
  source: z.enum(["live", "batch"]),
  score: z.number(),
  reason: z.string().nullable(),
  metaJson: z.string().nullable(),
  inputJson: z.string().nullable(),
  outputJson: z.string().nullable(),
  groundTruthJson: z.string().nullable(),
  contextJson: z.string().nullable(),
  latencyMs: z.number().nullable(),
  scoredAtMs: z.number(),
  durationMs: z.number().nullable(),
});

/** A live fact (`MemoryFact`) with its value parsed: the route listMemoryFacts answers a list. */
export const memoryFactRowSchema = z.strictObject({
  namespace: z.string(),
  key: z.string(),
  value: z.unknown(),
  valueJson: z.string(),
  schemaSig: z.string().nullable(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  ttlMs: z.number().nullable(),
}) satisfies z.ZodType<MemoryFact & { value: unknown }>;

/** A note (`MemoryNote`, declared by core/memory): listMemoryNotes and searchMemoryNotes answer lists. */
export const memoryNoteSchema: z.ZodType<MemoryNote> = z.strictObject({
  id: z.string(),
  namespace: z.string(),
  body: z.string(),
  kind: z.string().nullable(),
  tagsJson: z.string().nullable(),
  author: z.string().nullable(),
  status: z.string(),
  statusChangedAtMs: z.number().nullable(),
  createdAtMs: z.number(),
  runId: z.string().nullable(),
  nodeId: z.string().nullable(),
  iteration: z.number().nullable(),
});

/** A memory namespace with what it holds (the route listMemoryNamespaces answers a list). */
export const memoryNamespaceInfoSchema = z.strictObject({
  /** `<kind>:<id>`, e.g. `workflow:review`. */
  namespace: z.string(),
  /** Live (unexpired) facts. */
  facts: z.number(),
  /** Notes of every status. */
  notes: z.number(),
});
