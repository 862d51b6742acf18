/**
 * @module core/api/retry-node
 * `POST /v1/api/runs/:runId/nodes/:nodeId/retry`: gives a failed (or cancelled) task another
 * try from a console. It resets the task and what depends on it with `retryTask`
 * (core/engine/retry-task.ts; the earlier attempts stay as history), then resumes the run in
 * this host so only the reset tasks run. docs/hosting.md "Domain API".
 */
import { z } from "zod";
import { retryTask } from "../engine/index.js";
import { previewDecisions } from "../engine/internal.js";
import { FlowError } from "../errors.js";
import { executingHere } from "./executing-here.js";
import type { GatewayHost } from "./host.js";
import { publishWritten, seqOf } from "./publish-written.js";
import type { retryNodeResultSchema } from "./results-changes.js";
import { workflowDbOf } from "./workflow-db.js";

/**
 * The body of the retry route (all optional).
 * @example
 * const body = retryNodeBody.parse({ iteration: 2 }); // { iteration: 2, resume: true }
 */
export const retryNodeBody = z.object({
  /** The iteration to retry (default: the node's latest). */
  iteration: z.number().int().min(0).optional(),
  /** Also reset what ran after the task (default true, as `retryTask`). */
  resetDependents: z.boolean().optional(),
  /** Keep the decisions of reset approvals, human tasks, signals and events (default false: asked again). */
  keepDecisions: z.boolean().optional(),
  /** Resume the run once reset (default true). */
  resume: z.boolean().default(true),
  /** Change nothing: answer the decisions the retry would ask again (or keep) (the app's dialog). */
  preview: z.boolean().optional(),
});

/** What the retry route answers (`retryNodeResultSchema`, core/api/results-changes.ts). */
export type RetryNodeResult = z.infer<typeof retryNodeResultSchema>;

/** Node states a retry accepts: the task ended without an output row. */
const RETRYABLE = new Set(["failed", "cancelled"]);

/**
 * Resets a failed task of a run that is not executing here, and resumes the run.
 * @example
 * const r = await retryNode(host, { runId: "r1", nodeId: "deploy" }); // { runId, status: "running", resetNodes: ["deploy"] }
 */
export async function retryNode(host: GatewayHost, p: { runId: string; nodeId: string } & Partial<z.infer<typeof retryNodeBody>>): Promise<RetryNodeResult> {
  const run = await host.db.requireRun(p.runId);
  if (await executingHere(host, p.runId)) {
    throw new FlowError("INVALID_TRANSITION", `Run ${p.runId} is executing in this host; pause or cancel it before retrying ${p.nodeId}.`, { runId: p.runId, nodeId: p.nodeId, status: run.status });
  }
  const nodes = (await host.db.listNodes(p.runId)).filter((n) => n.nodeId === p.nodeId);
  const target = p.iteration === undefined ? nodes.sort((a, b) => b.iteration - a.iteration)[0] : nodes.find((n) => n.iteration === p.iteration);
  if (!target) {
    throw new FlowError("NODE_NOT_FOUND", `Run ${p.runId} has no node ${p.nodeId}${p.iteration === undefined ? "" : ` at iteration ${p.iteration}`}; pick a node of its tree.`, { runId: p.runId, nodeId: p.nodeId, iteration: p.iteration });
  }
  if (!RETRYABLE.has(target.state)) {
    throw new FlowError("INVALID_TRANSITION", `Node ${p.nodeId} (iteration ${target.iteration}) of run ${p.runId} is ${target.state}; only a failed or cancelled task can be retried (rewind the run to run a finished task again).`, {
      runId: p.runId,
      nodeId: p.nodeId,
      iteration: target.iteration,
      state: target.state,
    });
  }
  if (p.preview) {
    const db = await workflowDbOf(host, p.runId);
    const starts = (await db.listAttempts(p.runId, p.nodeId)).filter((a) => a.iteration === target.iteration).map((a) => a.startedAtMs);
    const decisions = await previewDecisions(db, p.runId, target, Math.min(...starts), p.resetDependents !== false, p.keepDecisions === true);
    return { runId: p.runId, status: run.status, resetNodes: [], decisions };
  }
  const db = await workflowDbOf(host, p.runId);
  const before = await seqOf(db, p.runId);
  const reset = await retryTask(db, { runId: p.runId, nodeId: p.nodeId, iteration: target.iteration, ...(p.resetDependents !== undefined ? { resetDependents: p.resetDependents } : {}), ...(p.keepDecisions ? { keepDecisions: true } : {}) });
  if (!reset.success) throw new FlowError("INVALID_TRANSITION", `Run ${p.runId} could not retry ${p.nodeId}: ${reset.error}`, { runId: p.runId, nodeId: p.nodeId });
  await publishWritten(host, db, p.runId, before);
  const after = p.resume === false ? { status: (await host.db.requireRun(p.runId)).status } : await host.resumeRun(p.runId);
  return { runId: p.runId, status: after.status, resetNodes: reset.resetNodes, decisions: reset.decisions ?? [] };
}
