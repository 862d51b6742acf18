/**
 * @module core/engine/retry-task
 * `retryTask`: resets a node (and, by default, what depends on it) to `pending` so that the
 * next `runWorkflow(..., { resume: true })` runs it again. A reset approval, human task, signal
 * or event is asked again unless `keepDecisions` (core/engine/waits/reset-waits.ts). Dependents are the node's later
 * iterations, nodes ordered after it, and nodes with an attempt started after its first one
 * (the same rule time travel uses).
 */
import { FlowError } from "../errors.js";
import { dependentsOf } from "./travel/dependents.js";
import type { FlowEvent } from "./events.js";
import { FlowDb } from "./flow-db.js";
import { resetWaits } from "./waits/reset-waits.js";
import { eventSql, nodeChange, outputSql, RELEASED, statusChange, WriteBatch } from "./run-sql.js";
import { ownerStateOf } from "./run-control.js";
import type { RetryTaskOptions, RetryTaskResult } from "./types.js";

/**
 * Resets a task for another try. Returns `success: false` with `error` when the run or node
 * does not exist or the run is owned by a live process (`force` overrides).
 * @example
 * const r = await retryTask(new FlowDb(api.db), { runId, nodeId: "review" });
 * if (r.success) await runWorkflow(workflow, { runId, resume: true });
 */
export async function retryTask(adapter: FlowDb | { db?: unknown }, opts: RetryTaskOptions): Promise<RetryTaskResult> {
  const db = adapter instanceof FlowDb ? adapter : new FlowDb(adapter.db ?? adapter);
  const { env, store, registry } = db.binding;
  const run = await db.getRun(opts.runId);
  if (!run) return { success: false, resetNodes: [], error: `Run ${opts.runId} does not exist.` };
  const now = env.clock.now();
  // A live process executes it (running, or waiting for quota in that process): not reset under it.
  if (ownerStateOf(env, run) === "live" && !opts.force) {
    return { success: false, resetNodes: [], error: `Run ${opts.runId} is ${run.status} in another process (${run.ownerId}); pass force: true to reset it anyway.` };
  }
  const nodes = await db.listNodes(opts.runId);
  const candidates = nodes.filter((n) => n.nodeId === opts.nodeId);
  const target = opts.iteration === undefined ? candidates.sort((a, b) => b.iteration - a.iteration)[0] : candidates.find((n) => n.iteration === opts.iteration);
  if (!target) return { success: false, resetNodes: [], error: `Node ${opts.nodeId}${opts.iteration === undefined ? "" : ` (iteration ${opts.iteration})`} is not in run ${opts.runId}.` };

  const reset = [target];
  if (opts.resetDependents !== false) {
    const attempts = await db.listAttempts(opts.runId);
    const targetStart = Math.min(...attempts.filter((a) => a.nodeId === target.nodeId && a.iteration === target.iteration).map((a) => a.startedAtMs));
    reset.push(...dependentsOf(nodes, attempts, target, targetStart).filter((n) => n.state !== "pending"));
  }

  const batch = new WriteBatch();
  const decisions = await resetWaits(store, batch, opts.runId, reset, opts.keepDecisions === true);
  let seq = await eventSql.lastSeq(store, opts.runId);
  const events: FlowEvent[] = [];
  for (const n of reset) {
    if (n.outputTable && registry.entries.has(n.outputTable)) {
      const entry = registry.entries.get(n.outputTable)!;
      outputSql.remove(batch, entry, opts.runId, n.nodeId, n.iteration);
    }
    nodeChange(batch, opts.runId, n.state, { nodeId: n.nodeId, iteration: n.iteration, state: "pending", attempts: n.attempts }, now);
    const e: FlowEvent = { type: "TaskReset", runId: opts.runId, timestampMs: now, seq: ++seq, nodeId: n.nodeId, iteration: n.iteration, reason: "retry-task" };
    eventSql.insert(batch, e);
    events.push(e);
  }
  // The run is left `running` with no owner: the next resume claims it at once.
  batch.push(...statusChange(opts.runId, run.status, "running", now, { ...RELEASED, output_json: null, error_json: null, finished_at_ms: null }));
  try {
    await batch.commit(store);
  } catch (cause) {
    throw new FlowError("DB_WRITE_FAILED", `retryTask could not reset ${opts.nodeId} in run ${opts.runId}: ${(cause as Error).message}`, { runId: opts.runId }, { cause });
  }
  for (const e of events) opts.onProgress?.(e);
  return { success: true, resetNodes: [...new Set(reset.map((n) => n.nodeId))], decisions };
}
