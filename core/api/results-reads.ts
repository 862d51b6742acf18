/**
 * @module core/api/results-reads
 * What the read routes of a run and a workflow answer, as zod schemas (beside core/api/results.ts,
 * which has the run rows): a task's output, workspace diffs, `whatHappened`, usage, transcripts,
 * prompts, a frame (`GraphSnapshot`) and a workflow's usage. The types owned by the API are
 * derived from them (`NodeOutputResult`, `WhatHappened`, `WorkflowUsage`, ...); a schema of a
 * type another area declares is typed against it (`z.ZodType<WorkspaceDiff>`), so neither can
 * say what the other does not. node/server/contract-results.test.tsx parses real answers.
 */
import { z } from "zod";
import type { AgentUsage, TranscriptAttempt, TranscriptToolCall } from "../agents/index.js";
import { RUN_STATUSES } from "../engine/rows/index.js";
import type { GraphSnapshot, RunUsage, TaskDescriptor } from "../engine/index.js";
import type { XmlNode } from "../jsx/index.js";
import type { FileDiff, WorkspaceDiff } from "../time-travel/index.js";

const runStatus = z.enum(RUN_STATUSES);

/** A task's output row (`row` null while the task has none): what getNodeOutput answers. */
export const nodeOutputResultSchema = z.strictObject({
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  table: z.string().nullable(),
  row: z.record(z.string(), z.unknown()).nullable(),
});

/** The changes between two snapshots of a run's workspace (getNodeDiff, getRunDiff). */
export const workspaceDiffSchema: z.ZodType<WorkspaceDiff> = z.strictObject({
  runId: z.string(),
  from: z.string(),
  /** A snapshot, or null for the working tree as it is now. */
  to: z.string().nullable(),
  files: z.array(z.strictObject({ path: z.string(), status: z.enum(["added", "modified", "deleted"]), oldMode: z.string().optional(), newMode: z.string().optional() })),
});

/** How one file changed in a task attempt (getFileDiff). */
export const fileDiffSchema: z.ZodType<FileDiff> = z.strictObject({
  runId: z.string(),
  from: z.string(),
  to: z.string(),
  path: z.string(),
  /** Git's unified diff; "" when the file did not change in the attempt. */
  patch: z.string(),
  /** Cut at MAX_PATCH_CHARS. */
  truncated: z.boolean(),
});

/** The account of a run (whatHappened). */
export const whatHappenedSchema = z.strictObject({
  runId: z.string(),
  status: runStatus,
  /** One paragraph: status, tasks finished/failed, what the run waits for. */
  summary: z.string(),
  /** `+<seconds>s <what>` lines in event order. */
  lines: z.array(z.string()),
});

/** Token counts and cost of one or more model calls (`AgentUsage`, declared by core/agents). */
const agentUsageShape = {
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
  costUsd: z.number().optional(),
};
const agentUsageSchema: z.ZodType<AgentUsage> = z.strictObject(agentUsageShape);
const usageWithAttempts = z.strictObject({ ...agentUsageShape, attempts: z.number() });

/** Tokens and cost of a run's agents, its child runs included (getRunUsage). */
export const runUsageSchema: z.ZodType<RunUsage> = z.strictObject({ total: usageWithAttempts, byNode: z.record(z.string(), usageWithAttempts) });

const partError = z.strictObject({ code: z.string().optional(), message: z.string() });

const toolCallSchema: z.ZodType<TranscriptToolCall> = z.strictObject({
  callId: z.string(),
  toolName: z.string(),
  input: z.unknown().optional(),
  ok: z.boolean().optional(),
  output: z.unknown().optional(),
  error: partError.optional(),
  durationMs: z.number().nullable().optional(),
  sideEffect: z.boolean().optional(),
  idempotent: z.boolean().optional(),
  truncated: z.boolean().optional(),
});

/** One attempt of a task's agent transcript (getTranscript answers a list, oldest first). */
export const transcriptAttemptSchema: z.ZodType<TranscriptAttempt> = z.strictObject({
  nodeId: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  interrupted: z.boolean(),
  generations: z.array(
    z.strictObject({
      generation: z.number(),
      agentId: z.string().nullable(),
      engine: z.string().nullable(),
      prompt: z.string().optional(),
      messages: z.array(z.strictObject({ role: z.string(), content: z.unknown() })).optional(),
      schemaRetry: z.number().optional(),
      parts: z.array(z.union([z.strictObject({ kind: z.literal("text"), text: z.string() }), z.strictObject({ kind: z.literal("tool"), call: toolCallSchema })])),
      status: z.enum(["running", "finished", "failed", "interrupted"]),
      model: z.string().nullable().optional(),
      provider: z.string().nullable().optional(),
      usage: agentUsageSchema.optional(),
      costUsd: z.number().optional(),
      durationMs: z.number().optional(),
      error: partError.optional(),
      truncated: z.boolean().optional(),
    }),
  ),
  usage: agentUsageSchema.optional(),
  costUsd: z.number().optional(),
});

/** A prompt a task of a run's latest frame gives its agent, keyed `<runId>/<nodeId>#<iteration>` (`GatewayPromptRow`). */
export const promptRowSchema = z.strictObject({
  /** `<runId>/<nodeId>#<iteration>` (`runNodeKey`). */
  key: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  label: z.string().nullable(),
  prompt: z.string(),
});

const xmlNodeSchema: z.ZodType<XmlNode> = z.lazy(() =>
  z.union([z.strictObject({ kind: z.literal("element"), tag: z.string(), props: z.record(z.string(), z.string()), children: z.array(xmlNodeSchema) }), z.strictObject({ kind: z.literal("text"), text: z.string() })]),
);

/**
 * A task of a frame (`TaskDescriptor`, declared by the engine): the fields every task has; the
 * many optional ones (loops, worktrees, approvals, policies) pass as the engine wrote them.
 */
const taskDescriptorSchema = z.looseObject({
  nodeId: z.string(),
  ordinal: z.number(),
  iteration: z.number(),
  outputTable: z.string(),
  outputTableName: z.string(),
  needsApproval: z.boolean(),
  skipIf: z.boolean(),
  /** Null on the wire for the default, Infinity (unbounded retries): JSON has no Infinity. */
  retries: z.number().nullable(),
  timeoutMs: z.number().nullable(),
  heartbeatTimeoutMs: z.number().nullable(),
  continueOnFail: z.boolean(),
}) satisfies z.ZodType<Pick<TaskDescriptor, "nodeId" | "ordinal" | "iteration" | "outputTable" | "outputTableName" | "needsApproval" | "skipIf" | "timeoutMs" | "heartbeatTimeoutMs" | "continueOnFail">>;

/** A committed frame of a run: its tree and its tasks (the route getFrame). */
export const graphSnapshotSchema = z.strictObject({ runId: z.string(), frameNo: z.number(), xml: xmlNodeSchema.nullable(), tasks: z.array(taskDescriptorSchema) }) satisfies z.ZodType<Omit<GraphSnapshot, "tasks">>;

const usageDayTotals = { ...agentUsageShape, runs: z.number(), attempts: z.number() };

/** A workflow's agents' usage per UTC day of its runs' start, and in total (the route getWorkflowUsage). */
export const workflowUsageSchema = z.strictObject({
  workflow: z.string(),
  days: z.number(),
  total: z.strictObject(usageDayTotals),
  byDay: z.array(
    z.strictObject({
      ...usageDayTotals,
      /** `YYYY-MM-DD` (UTC). */
      day: z.string(),
      /** The day's first millisecond (UTC). */
      startMs: z.number(),
    }),
  ),
});
