/**
 * @module core/api/rpc-runs
 * RPC methods of the run lifecycle: launchRun, resumeRun, pauseRun, cancelRun, hijackRun,
 * rewindRun. Runs execute in the background of the host; these answer once the change is
 * recorded (launch, resume) or done (cancel). See docs/hosting.md "RPC methods".
 */
import { z } from "zod";
import type { RunStatus } from "../engine/types.js";
import { FlowError } from "../errors.js";
import type { GatewayHost } from "./host.js";
import { runAuthOf } from "./identity.js";
import { HOST_ANNOTATIONS } from "./read-model.js";
import { notAvailableMethod, type RpcMethod } from "./rpc-types.js";

const runIdParams = z.object({ runId: z.string().min(1) });

/** SPEC.md `options.startedBy`: provenance only, never a credential. */
const startedBySchema = z.object({ harness: z.string().optional(), sessionId: z.string().optional(), prompt: z.string().optional(), detected: z.literal(true).optional() });

export const launchRunParams = z.object({
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

/** How a run stands after a lifecycle call. */
export interface RunStatusResult {
  runId: string;
  status: RunStatus;
}

const launchRun: RpcMethod<z.infer<typeof launchRunParams>, { runId: string; workflow: string }> = {
  scope: "run:write",
  params: launchRunParams,
  async handler(p, caller, host) {
    const annotations = { ...p.options.annotations, ...(p.options.startedBy ? { [HOST_ANNOTATIONS.startedBy]: JSON.stringify(p.options.startedBy) } : {}) };
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
  handler: (p, _caller, host) => host.resumeRun(p.runId, p.force ? { force: true } : {}),
};

const pauseRun: RpcMethod<{ runId: string }, { runId: string; status: "pausing" }> = {
  scope: "run:write",
  params: runIdParams,
  async handler(p, _caller, host) {
    const active = host.activeRun(p.runId);
    if (!active) {
      const run = await host.db.requireRun(p.runId);
      throw new FlowError("INVALID_TRANSITION", `Run ${p.runId} is not running in this host (status ${run.status}); only a running run can be paused.`, { runId: p.runId, status: run.status });
    }
    active.pause();
    return { runId: p.runId, status: "pausing" };
  },
};

const cancelRun: RpcMethod<{ runId: string }, RunStatusResult> = {
  scope: "run:write",
  params: runIdParams,
  async handler(p, _caller, host) {
    return cancel(host, p.runId);
  },
};

async function cancel(host: GatewayHost, runId: string): Promise<RunStatusResult> {
  let active = host.activeRun(runId);
  if (!active) {
    const run = await host.db.requireRun(runId);
    if (run.status === "cancelled") return { runId, status: "cancelled" };
    if (run.status === "finished" || run.status === "failed" || run.status === "continued") {
      throw new FlowError("INVALID_TRANSITION", `Run ${runId} already ended (status ${run.status}); there is nothing to cancel.`, { runId, status: run.status });
    }
    // A parked run (waiting, paused) has no session: resume it already cancelled, so the
    // engine records the cancellation with its events like any other.
    await host.resumeRun(runId, { cancel: true, force: run.status === "running" });
    active = host.activeRun(runId);
  }
  active?.cancel();
  const result = await active?.done;
  return { runId, status: result?.status ?? (await host.db.requireRun(runId)).status };
}

export const RUN_METHODS = {
  launchRun,
  resumeRun,
  pauseRun,
  cancelRun,
  hijackRun: notAvailableMethod("hijackRun", "run:admin", "taking over a live agent session arrives with issue #16."),
  rewindRun: notAvailableMethod("rewindRun", "run:admin", "time travel (timeTravel) arrives with issue #15; use retryTask meanwhile."),
} satisfies Record<string, RpcMethod<any, any>>;
