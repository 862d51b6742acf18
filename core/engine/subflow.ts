/**
 * @module core/engine/subflow
 * Runs a Subflow's child run: a run of another workflow (possibly on another store) with
 * `parentRunId` set and a stable id, so that a resumed parent resumes its child rather than
 * starting another. The child waits in process for what it waits on (stayWhileWaiting).
 */
import { bindingOf } from "./binding.js";
import type { SubflowSpec } from "./describe-node.js";
import { runSql } from "./run-sql.js";
import type { FlowWorkflow, RunAuthContext, RunResult } from "./types.js";

export async function runSubflow(spec: SubflowSpec, childRunId: string, parentRunId: string, signal: AbortSignal | undefined, auth: RunAuthContext | null): Promise<RunResult> {
  // Loaded lazily: run.ts imports the session, which imports this module.
  const { runWorkflow } = await import("./run.js");
  const workflow = spec.workflow as FlowWorkflow;
  const store = bindingOf(workflow).store;
  const common = { parentRunId, stayWhileWaiting: true, ...(signal ? { signal } : {}), ...(auth ? { auth } : {}) };
  let result = await runWorkflow(workflow, { runId: childRunId, ...common, ...((await runSql.get(store, childRunId)) ? { resume: true } : { input: spec.input ?? {} }) });
  // A child that continues as new goes on in its next run: follow the chain to its end.
  while (result.status === "continued" && result.nextRunId) result = await runWorkflow(workflow, { runId: result.nextRunId, resume: true, ...common });
  return result;
}
