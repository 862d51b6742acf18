/**
 * @module core/api/results
 * What the contract's routes and RPC methods answer, as zod schemas (core/api/contract.ts
 * declares the routes, core/api/rpc-*.ts the methods' params). The answer types a client sees
 * (`GatewayRunRow`, `RunPage`, `RunStatusResult`, ...) are derived from these schemas, so the
 * type and the declared shape cannot drift; node/server/contract-results.test.tsx checks real
 * answers of a Gateway (HTTP over loopback) against them. Nothing parses an answer on the way
 * out: the wire is what the handler returns.
 *
 * This file has the run lifecycle and the run rows (launchRun, resumeRun, pauseRun, cancelRun,
 * getRun, listRuns, listWorkflows, listApprovals, submitApproval, and the routes getRunSummary
 * and listRunEvents); the other areas are beside it: results-reads.ts (a run's and a
 * workflow's reads), results-changes.ts (time travel, retry, hijack, signals, waits, human
 * tasks), results-data.ts (crons, scores, memory). Every RPC method but the two streams and
 * every `/v1/api/*` route but the two SSE ones (`stream`) declares its result.
 */
import { z } from "zod";
import { NODE_STATES, RUN_STATUSES } from "../engine/rows/index.js";
import type { AttemptRecord, PendingApproval, RunAuthContext } from "../engine/index.js";

/** A FlowError as it crosses the wire (`FlowErrorJson`). */
export const errorJsonSchema = z.strictObject({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() });

const runStatus = z.enum(RUN_STATUSES);
const annotationValue = z.union([z.string(), z.number(), z.boolean()]);

/** What the run lifecycle methods answer (resumeRun, cancelRun): how the run stands after the call. */
export const runStatusResultSchema = z.strictObject({ runId: z.string(), status: runStatus });

/** What launchRun answers. */
export const launchRunResultSchema = z.strictObject({ runId: z.string(), workflow: z.string() });

/** What pauseRun answers: the run was asked to pause (its tasks in flight finish first), or is paused already. */
export const pauseRunResultSchema = z.strictObject({ runId: z.string(), status: z.enum(["pausing", "paused"]) });

/** A run's agents' tokens and cost in a run row (`getRunUsage` has them per task). */
export const runUsageSummarySchema = z.strictObject({
  inputTokens: z.number().optional(),
  outputTokens: z.number().optional(),
  totalTokens: z.number().optional(),
  costUsd: z.number().optional(),
  /** Attempts that recorded usage. */
  attempts: z.number(),
});

/** A run in a list (`GatewayRunSummaryRow`). */
export const runSummaryRowSchema = z.strictObject({
  runId: z.string(),
  /** The key of the workflow in this host (null when it does not serve the run's workflow). */
  workflowKey: z.string().nullable(),
  workflowName: z.string().nullable(),
  status: runStatus,
  /**
   * For a `running` run, whether the process executing it is still there: `gone` when it
   * crashed or was killed (heartbeat stale, pid dead); such a run can be cancelled or resumed.
   * Null for runs no process owns.
   */
  owner: z.enum(["live", "gone"]).nullable(),
  parentRunId: z.string().nullable(),
  nextRunId: z.string().nullable(),
  error: errorJsonSchema.nullable(),
  /** `ctx.auth.triggeredBy` of the run (null for anonymous runs). */
  triggeredBy: z.string().nullable(),
  /** `launchRun`'s `options.startedBy` (provenance only). */
  startedBy: z.record(z.string(), z.unknown()).nullable(),
  annotations: z.record(z.string(), annotationValue),
  /** The run's input as it was given (what a console searches and re-runs with). */
  input: z.unknown(),
  createdAtMs: z.number(),
  updatedAtMs: z.number(),
  finishedAtMs: z.number().nullable(),
  /** Why a `paused` run is paused: `rewind` and `person` wait for a Resume, `shutdown` for a host to start (absent: not known). */
  pauseReason: z.enum(["person", "shutdown", "rewind"]).nullable().optional(),
  /**
   * Tokens and cost of the run's agent attempts, its child runs included (docs/agents.md
   * "Cost"); null when no agent attempt recorded usage. Absent from rows a replicated list
   * (multiplayer) holds.
   */
  usage: runUsageSummarySchema.nullable().optional(),
});

/** One attempt of a node iteration (`AttemptRecord`, declared by the engine). */
export const attemptSchema: z.ZodType<AttemptRecord> = z.strictObject({
  nodeId: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  state: z.enum(["in-progress", "finished", "failed", "cancelled"]),
  startedAtMs: z.number(),
  finishedAtMs: z.number().nullable(),
  error: errorJsonSchema.nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  vcsPointer: z.string().nullable(),
});

/** A node iteration of a run, with its attempts, keyed `<nodeId>#<iteration>` within its run (`GatewayRunNode`). */
export const runNodeSchema = z.strictObject({
  /** `<nodeId>#<iteration>` (`nodeKey`). */
  key: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  state: z.enum(NODE_STATES),
  label: z.string().nullable(),
  outputTable: z.string().nullable(),
  error: errorJsonSchema.nullable(),
  updatedAtMs: z.number(),
  /** Absent from rows a replicated collection (multiplayer's `nodes` shape) holds: it serves no attempts. */
  attempts: z.array(attemptSchema),
});

const runAuthSchema: z.ZodType<RunAuthContext> = z.strictObject({ triggeredBy: z.string(), scopes: z.array(z.string()), role: z.string(), createdAt: z.string() });

/** A run with everything a run page shows (`GatewayRunRow`). */
export const runRowSchema = runSummaryRowSchema.extend({
  output: z.unknown(),
  auth: runAuthSchema.nullable(),
  nodes: z.array(runNodeSchema),
  /** Number of the latest frame (0 when none was committed). */
  frameNo: z.number(),
  /** Seq of the latest event (resume point for event streams). */
  lastSeq: z.number(),
});

/** A page of runs (`RunPage`). */
export const runPageSchema = z.strictObject({
  runs: z.array(runSummaryRowSchema),
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: z.string().nullable(),
});

/** A registered workflow (`GatewayWorkflowRow`). */
export const workflowRowSchema = z.strictObject({
  key: z.string(),
  name: z.string().nullable(),
  description: z.string().nullable(),
  /** JSON Schema of the run input (`z.toJSONSchema`), or null when the workflow has no `input` schema. */
  inputSchema: z.record(z.string(), z.unknown()).nullable(),
  /** Output table keys. */
  outputs: z.array(z.string()),
});

/** A pending approval or human task, keyed `<runId>/<nodeId>#<iteration>` (`GatewayApprovalRow`). */
export const approvalRowSchema = z.strictObject({
  key: z.string(),
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  kind: z.enum(["approval", "human"]),
  request: z.record(z.string(), z.unknown()),
  createdAtMs: z.number(),
  deadlineMs: z.number().nullable(),
}) satisfies z.ZodType<PendingApproval & { key: string }>;

/** What a delivery (submitApproval) answers: `duplicate` when the same delivery was made before. */
export const deliveryResultSchema = z.strictObject({ runId: z.string(), nodeId: z.string(), iteration: z.number(), status: z.enum(["accepted", "duplicate"]) });

/** One event of a run's log: the `FlowEvent` (fields of its type) with its `seq`. */
export const runEventRowSchema = z.looseObject({ type: z.string(), runId: z.string(), timestampMs: z.number(), seq: z.number() });

/** A page of a run's event log (the route listRunEvents). */
export const runEventsPageSchema = z.strictObject({ runId: z.string(), events: z.array(runEventRowSchema), lastSeq: z.number() });
