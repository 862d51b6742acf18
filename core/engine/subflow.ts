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
  const exists = await runSql.get(bindingOf(workflow).store, childRunId);
  return runWorkflow(workflow, {
    runId: childRunId,
    parentRunId,
    ...(exists ? { resume: true } : { input: spec.input ?? {} }),
    stayWhileWaiting: true,
    ...(signal ? { signal } : {}),
    ...(auth ? { auth } : {}),
  });
}
