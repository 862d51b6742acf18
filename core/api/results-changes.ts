/**
 * @module core/api/results-changes
 * What the routes that change a run beyond its lifecycle answer, as zod schemas (beside
 * core/api/results.ts): time travel (rewindRun, forkRun), retrying a task (the route
 * retryNode), hijackRun, and what people and systems deliver to waiting runs (submitSignal,
 * submitHumanTask) with the waits they read first (the route listWaits). The types owned by the
 * API are derived from them (`RewindRunResult`, `ForkRunResult`, `RetryNodeResult`,
 * `HijackRunResult`, `WaitInfo`); node/server/contract-results.test.tsx parses real answers.
 */
import { z } from "zod";
import { RUN_STATUSES } from "../engine/rows/index.js";
import type { ResetDecision, WaitFields } from "../engine/internal.js";
import type { TimeTravelResult } from "../time-travel/index.js";

const runStatus = z.enum(RUN_STATUSES);

/** A decision or delivery a reset met: asked again or kept (`ResetDecision`, declared by the engine). */
export const resetDecisionSchema: z.ZodType<ResetDecision> = z.strictObject({
  nodeId: z.string(),
  iteration: z.number(),
  kind: z.enum(["approval", "human", "signal", "event"]),
  decision: z.record(z.string(), z.unknown()).nullable(),
  decidedBy: z.string().nullable(),
  action: z.enum(["ask-again", "keep"]),
});

const crossedEffectSchema = z.strictObject({
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  attempt: z.number(),
  seq: z.number(),
  toolName: z.string(),
  idempotencyKey: z.string(),
  idempotent: z.boolean(),
  calledAtMs: z.number(),
  revertBy: z.enum(["vcs", "compensation"]).optional(),
  reason: z.string(),
});

const timeTravelShape = {
  success: z.boolean(),
  /** The tree the target attempt started from (what was restored). */
  vcsPointer: z.string().optional(),
  vcsRestored: z.boolean(),
  /** Repositories inside the workspace the restore left as they are (snapshots hold their commit, not their files). */
  keptRepositories: z.array(z.string()).optional(),
  /** Node ids set back to `pending`, deduplicated. */
  resetNodes: z.array(z.string()),
  decisions: z.array(resetDecisionSchema).optional(),
  effectBoundary: z.strictObject({ blocking: z.array(crossedEffectSchema), revertible: z.array(crossedEffectSchema), warnings: z.array(crossedEffectSchema) }),
  error: z.string().optional(),
};

/** `timeTravel`'s result with the run's status after the rewind (and resume): what rewindRun answers. */
export const rewindRunResultSchema = z.strictObject({ ...timeTravelShape, runId: z.string(), status: runStatus }) satisfies z.ZodType<TimeTravelResult>;

/** What forkRun answers: the new run, where it came from and the tasks that run again. */
export const forkRunResultSchema = z.strictObject({
  runId: z.string(),
  workflow: z.string(),
  /** `<run>:<node>@<iteration>#<attempt>` (the new run's `flow.forkedFrom` annotation). */
  forkedFrom: z.string(),
  rerun: z.array(z.string()),
});

/** What the retry route answers. */
export const retryNodeResultSchema = z.strictObject({
  runId: z.string(),
  /** The run's status after the reset (and the resume). */
  status: runStatus,
  /** Node ids set back to `pending` (the task first, then its dependents). */
  resetNodes: z.array(z.string()),
  /** Decisions met among the reset nodes: asked again, or kept with `keepDecisions`. */
  decisions: z.array(resetDecisionSchema),
});

/** What hijackRun answers: the command that reopens a node's CLI-agent session, the run's status and the terminal command. */
export const hijackRunResultSchema = z.strictObject({
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  /** The attempt whose session is taken over. */
  attempt: z.number(),
  /** The CLI agent's engine (`claude-code`, `codex`, ...). */
  engine: z.string(),
  sessionId: z.string(),
  /** Where the session runs. */
  cwd: z.string(),
  /** The interactive command that reopens the session, and its arguments. */
  command: z.string(),
  args: z.array(z.string()),
  /** Variables to set (an empty string unsets one: a nested-instance marker). */
  env: z.record(z.string(), z.string()).optional(),
  /** The Task's `onHijackExit` (default `complete`). */
  onHijackExit: z.enum(["complete", "reopen"]),
  status: runStatus,
  /** `flow hijack <run> <node>`: runs the command and hands the node back on exit. */
  terminal: z.string(),
});

/** What submitSignal answers (a signal or an event): `duplicate` when the same delivery id came before. */
export const signalDeliveryResultSchema = z.strictObject({ deliveryId: z.string(), status: z.enum(["accepted", "duplicate"]) });

/** A wait of a run (`WaitInfo`, the engine's `WaitFields`): what the route listWaits answers a list of. */
export const waitInfoSchema = z.strictObject({
  runId: z.string(),
  nodeId: z.string(),
  iteration: z.number(),
  kind: z.enum(["approval", "human", "signal", "event", "timer"]),
  status: z.enum(["pending", "resolved", "settled", "closed"]),
  /** A signal's id or an event's name (null for other kinds). */
  name: z.string().nullable(),
  correlationId: z.string().nullable(),
  /** What the wait asks for (an approval's request, a payload or row `schema`, a human task's `prompt`). */
  request: z.record(z.string(), z.unknown()),
  /** What was delivered (an approval's decision with `decidedBy`), null while pending. */
  resolution: z.record(z.string(), z.unknown()).nullable(),
  resolvedBy: z.string().nullable(),
  createdAtMs: z.number(),
  resolvedAtMs: z.number().nullable(),
  deadlineMs: z.number().nullable(),
}) satisfies z.ZodType<WaitFields>;
