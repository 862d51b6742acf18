/**
 * @module core/api/rpc-runs
 * RPC methods of the run lifecycle: launchRun, resumeRun, pauseRun, cancelRun, hijackRun,
 * rewindRun (time travel, core/time-travel), forkRun (a new run from a task attempt, on an
 * edited input: core/time-travel/fork.ts). Runs execute in the background of the host; these
 * answer once the change is recorded (launch, resume, rewind) or done (cancel).
 * See docs/hosting.md "RPC methods".
 */
import { z } from "zod";
import { ownerStateOf, stopRun } from "../engine/index.js";
import { previewDecisions, runSql, stopPath } from "../engine/internal.js";
import { FlowError } from "../errors.js";
import { TABLES } from "../protocol.js";
import { forkRootDir, keptByRewind } from "../time-travel/internal.js";
import { planFork, timeTravel } from "../time-travel/index.js";
import { ANNOTATIONS } from "./contract.js";
import { executingHere } from "./executing-here.js";
import type { GatewayHost } from "./host.js";
import { runAuthOf } from "./identity.js";
import { publishWritten, seqOf } from "./publish-written.js";
import { launchRunResultSchema, pauseRunResultSchema, runStatusResultSchema } from "./results.js";
import { forkRunResultSchema, hijackRunResultSchema, rewindRunResultSchema } from "./results-changes.js";
import type { RpcMethod } from "./rpc-types.js";
import { workflowDbOf } from "./workflow-db.js";

const runIdParams = z.object({ runId: z.string().min(1) });

/** SPEC.md `options.startedBy`: provenance only, never a credential. */
const startedBySchema = z.object({ harness: z.string().optional(), sessionId: z.string().optional(), prompt: z.string().optional(), detected: z.literal(true).optional() });

const launchRunParams = z.object({
  /** The key of a registered workflow. */
  workflow: z.string().min(1),
  input: z.record(z.string(), z.unknown()).default({}),
  /** Default: a fresh id. */
  runId: z.string().min(1).optional(),
  options: z
    .object({
      startedBy: startedBySchema.optional(),
      maxConcurrency: z.number().int().min(1).optional(),
      annotations: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
    })
    .default({}),
});

/** How a run stands after a lifecycle call (`runStatusResultSchema`). */
export type RunStatusResult = z.infer<typeof runStatusResultSchema>;

const launchRun: RpcMethod<z.infer<typeof launchRunParams>, z.infer<typeof launchRunResultSchema>> = {
  scope: "run:write",
  params: launchRunParams,
  result: launchRunResultSchema,
  async handler(p, caller, host) {
    const annotations = { ...p.options.annotations, ...(p.options.startedBy ? { [ANNOTATIONS.startedBy]: JSON.stringify(p.options.startedBy) } : {}) };
    const { runId } = await host.startRun({
      workflowKey: p.workflow,
      input: p.input,
      ...(p.runId ? { runId: p.runId } : {}),
      auth: runAuthOf(caller, host.now()),
      annotations,
      ...(p.options.maxConcurrency ? { options: { maxConcurrency: p.options.maxConcurrency } } : {}),
    });
    return { runId, workflow: p.workflow };
  },
};

const resumeRun: RpcMethod<{ runId: string; force?: boolean | undefined }, RunStatusResult> = {
  scope: "run:write",
  params: runIdParams.extend({ force: z.boolean().optional() }),
  result: runStatusResultSchema,
  handler: (p, _caller, host) => host.resumeRun(p.runId, p.force ? { force: true } : {}),
};

/**
 * Pauses a run (its tasks in flight finish first). A run this host executes pauses its session;
 * any other goes through `stopPath` as `flow pause` does: paused already answers as it is, a
 * run another live process executes is asked through the store, an ended run or one no live
 * process executes is INVALID_TRANSITION.
 */
const pauseRun: RpcMethod<{ runId: string }, z.infer<typeof pauseRunResultSchema>> = {
  scope: "run:write",
  params: runIdParams,
  result: pauseRunResultSchema,
  async handler(p, _caller, host) {
    const active = await executingHere(host, p.runId);
    if (!active) {
      const run = await host.db.requireRun(p.runId);
      if (stopPath(host.db.binding.env, run, "pause") === "as-is") return { runId: p.runId, status: "paused" };
      // Another live process executes it (flow up, another Gateway): ask it through the store.
      await runSql.requestStop(host.db.store, p.runId, "pause", host.now());
      return { runId: p.runId, status: "pausing" };
    }
    active.pause();
    return { runId: p.runId, status: "pausing" };
  },
};

const cancelRun: RpcMethod<{ runId: string }, RunStatusResult> = {
  scope: "run:write",
  params: runIdParams,
  result: runStatusResultSchema,
  async handler(p, caller, host) {
    const result = await cancel(host, p.runId);
    if (result.status === "cancelled" && caller) await recordCancelledBy(host, p.runId, caller.userId ?? caller.triggeredBy);
    return result;
  },
};

/** Notes who cancelled the run (the first canceller stays), so a decision sent later learns it (WAIT_CLOSED). */
async function recordCancelledBy(host: GatewayHost, runId: string, who: string): Promise<void> {
  const run = await host.db.requireRun(runId);
  if (run.annotations?.[ANNOTATIONS.cancelledBy] !== undefined) return;
  const annotations = JSON.stringify({ ...run.annotations, [ANNOTATIONS.cancelledBy]: who });
  await host.db.store.execute(`UPDATE ${TABLES.runs} SET annotations_json = ? WHERE run_id = ? AND status = 'cancelled'`, [annotations, runId]);
}

async function cancel(host: GatewayHost, runId: string): Promise<RunStatusResult> {
  let active = await executingHere(host, runId);
  if (!active) {
    const run = await host.db.requireRun(runId);
    // Checked as stopRun checks it: cancelled already answers as it is, an ended run is INVALID_TRANSITION.
    const path = stopPath(host.db.binding.env, run, "cancel");
    if (path === "as-is") return { runId, status: "cancelled" };
    // Another live process executes it (flow up, another Gateway): ask it and wait.
    if (path === "ask-owner") return { runId, status: (await stopRun(host.db, runId, "cancel")).status };
    // A parked run (waiting, paused), or one whose process is gone, has no session: resume it
    // already cancelled, so the engine records the cancellation with its events like any other.
    await host.resumeRun(runId, { cancel: true, force: ownerStateOf(host.db.binding.env, run) === "gone" });
    active = host.activeRun(runId);
  }
  active?.cancel();
  const result = await active?.done;
  return { runId, status: result?.status ?? (await host.db.requireRun(runId)).status };
}

const rewindRunParams = z.object({
  runId: z.string().min(1),
  nodeId: z.string().min(1),
  iteration: z.number().int().min(0).optional(),
  /** Omit for the latest attempt. */
  attempt: z.number().int().min(1).optional(),
  resetDependents: z.boolean().optional(),
  restoreVcs: z.boolean().optional(),
  force: z.boolean().optional(),
  noRevert: z.boolean().optional(),
  /** Keep the decisions of reset approvals, human tasks, signals and events (default false: asked again). */
  keepDecisions: z.boolean().optional(),
  /** Resume the run from the reset tasks once rewound (default true); false leaves it paused for a person. */
  resume: z.boolean().default(true),
  /** Change nothing: answer the decisions the rewind would ask again (or keep) and the run as it is (the app's dialog). */
  preview: z.boolean().optional(),
});

/** `timeTravel`'s result, with the run's status after the rewind (and resume) (`rewindRunResultSchema`). */
export type RewindRunResult = z.infer<typeof rewindRunResultSchema>;

const rewindRun: RpcMethod<z.infer<typeof rewindRunParams>, RewindRunResult> = {
  scope: "run:admin",
  params: rewindRunParams,
  result: rewindRunResultSchema,
  async handler(p, _caller, host) {
    if (await executingHere(host, p.runId)) {
      throw new FlowError("INVALID_TRANSITION", `Run ${p.runId} is running in this host; pause or cancel it before rewinding it.`, { runId: p.runId });
    }
    if (p.preview) return previewRewind(host, p);
    const { resume, preview: _preview, ...opts } = p;
    const definedOpts = Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) as typeof opts;
    // Through the run's workflow: its handle knows the output tables of the tasks to reset.
    const db = await workflowDbOf(host, p.runId);
    const before = await seqOf(db, p.runId);
    const result = await timeTravel(db, definedOpts);
    await publishWritten(host, db, p.runId, before);
    if (result.success && resume) return { ...result, ...(await host.resumeRun(p.runId)) };
    return { ...result, runId: p.runId, status: (await host.db.requireRun(p.runId)).status };
  },
};

/** The decisions a rewind to the attempt would meet; nothing changes (success, no reset nodes). */
async function previewRewind(host: GatewayHost, p: z.infer<typeof rewindRunParams>): Promise<RewindRunResult> {
  const db = await workflowDbOf(host, p.runId);
  const run = await db.requireRun(p.runId);
  const iteration = p.iteration ?? 0;
  const target = (await db.listNodes(p.runId)).find((n) => n.nodeId === p.nodeId && n.iteration === iteration);
  const attempts = (await db.listAttempts(p.runId, p.nodeId)).filter((a) => a.iteration === iteration);
  const attempt = p.attempt === undefined ? attempts.sort((a, b) => b.attempt - a.attempt)[0] : attempts.find((a) => a.attempt === p.attempt);
  if (!target || !attempt) throw new FlowError("NODE_NOT_FOUND", `Run ${p.runId} has no attempt of ${p.nodeId} (iteration ${iteration}) to rewind to.`, { runId: p.runId, nodeId: p.nodeId });
  const decisions = await previewDecisions(db, p.runId, target, attempt.startedAtMs, p.resetDependents !== false, p.keepDecisions === true);
  const kept = p.restoreVcs === false ? [] : await keptByRewind(db, { runId: p.runId, nodeId: target.nodeId, iteration, attempt: attempt.attempt });
  return { success: true, vcsRestored: false, ...(kept.length ? { keptRepositories: kept } : {}), resetNodes: [], decisions, effectBoundary: { blocking: [], revertible: [], warnings: [] }, runId: p.runId, status: run.status };
}

const forkRunParams = z.object({
  runId: z.string().min(1),
  nodeId: z.string().min(1),
  iteration: z.number().int().min(0).optional(),
  /** Omit for the latest attempt. */
  attempt: z.number().int().min(1).optional(),
  /** The new run's input (default: the original run's); checked against the workflow's input schema. */
  input: z.record(z.string(), z.unknown()).optional(),
  /** The new run's id (default: a fresh id). */
  newRunId: z.string().min(1).optional(),
});

/** What `forkRun` answers: the new run, where it came from and the tasks that run again (`forkRunResultSchema`). */
export type ForkRunResult = z.infer<typeof forkRunResultSchema>;

/**
 * Starts a new run from a task attempt of a stored run (`planFork`): the outputs of what finished
 * before that attempt are seeded, so only the task and what came after it run, on the original
 * input or `input`, in the directory the original run worked in. The original run is only read.
 * An input the workflow's schema refuses is INPUT_INVALID (400) with `details.problems`, before
 * anything is written.
 */
const forkRun: RpcMethod<z.infer<typeof forkRunParams>, ForkRunResult> = {
  scope: "run:write",
  params: forkRunParams,
  result: forkRunResultSchema,
  async handler(p, caller, host) {
    const key = host.workflowKeyOf(await host.db.requireRun(p.runId));
    if (!key) throw new FlowError("WORKFLOW_NOT_FOUND", `Run ${p.runId} is of a workflow this host does not serve; register it to fork the run.`, { runId: p.runId });
    const db = await workflowDbOf(host, p.runId);
    const plan = await planFork(db, { runId: p.runId, nodeId: p.nodeId, ...(p.iteration !== undefined ? { iteration: p.iteration } : {}), ...(p.attempt !== undefined ? { attempt: p.attempt } : {}) });
    // The fork works where the original run worked, not in this host's default directory.
    const rootDir = forkRootDir(db.binding.env, p.runId, plan.rootDir, undefined);
    const { runId } = await host.startRun({
      workflowKey: key,
      input: p.input ?? plan.input,
      ...(p.newRunId ? { runId: p.newRunId } : {}),
      auth: runAuthOf(caller, host.now()),
      annotations: plan.annotations,
      options: { initialOutputs: plan.initialOutputs, initialIterations: plan.initialIterations, ...(rootDir !== undefined ? { rootDir } : {}) },
    });
    return { runId, workflow: key, forkedFrom: plan.annotations["flow.forkedFrom"]!, rerun: plan.rerun };
  },
};

const hijackRunParams = z.object({
  runId: z.string().min(1),
  nodeId: z.string().min(1),
  iteration: z.number().int().min(0).optional(),
});

/** A hijack plan and the terminal command that runs it and hands the node back afterwards (`hijackRunResultSchema`). */
export type HijackRunResult = z.infer<typeof hijackRunResultSchema>;

/**
 * Takes a node's CLI-agent session away from the run for a person: a running run is paused
 * first (two drivers never share a session), then the answer says which command reopens the
 * session; `flow hijack <run> <node>` in a terminal does it and hands the node back on exit
 * (docs/agents.md, "Hijack").
 */
const hijackRun: RpcMethod<z.infer<typeof hijackRunParams>, HijackRunResult> = {
  scope: "run:admin",
  params: hijackRunParams,
  result: hijackRunResultSchema,
  async handler(p, _caller, host) {
    if (!host.planHijack) throw new FlowError("NOT_AVAILABLE", "hijackRun needs a host that runs CLI agents (the Node Gateway).", { method: "hijackRun" });
    const active = host.activeRun(p.runId);
    if (active) {
      active.pause();
      await active.done;
    }
    const plan = await host.planHijack({ runId: p.runId, nodeId: p.nodeId, ...(p.iteration !== undefined ? { iteration: p.iteration } : {}) });
    const status = (await host.db.requireRun(p.runId)).status;
    return { ...plan, status, terminal: `flow hijack ${p.runId} ${p.nodeId}${p.iteration !== undefined ? ` --iteration ${p.iteration}` : ""}` };
  },
};

export const RUN_METHODS = {
  launchRun,
  resumeRun,
  pauseRun,
  cancelRun,
  hijackRun,
  rewindRun,
  forkRun,
} satisfies Record<string, RpcMethod<any, any>>;
