/**
 * @module core/engine/subflow
 * Runs a Subflow's child run: a run of another workflow (possibly on another store) with
 * `parentRunId` set and a stable id, so that a resumed parent resumes its child rather than
 * starting another. The child waits in process for what it waits on (stayWhileWaiting).
 * Its agents' usage (its own runs of a continue-as-new chain and their children) goes into the
 * Subflow attempt's meta as `childUsage`, which `<Aspects tokenBudget>` counts; the run's
 * rolled-up usage reaches the same attempts through the child run's id instead.
 * The child is run by the `runWorkflow` the session was given (run.ts passes itself), so this
 * module does not import run.ts, which imports the session, which imports this module.
 */
import { addUsage, type AgentUsage, type PriceTable } from "../agents/index.js";
import { bindingOf } from "../binding.js";
import { FlowDb } from "./flow-db.js";
import type { SubflowSpec } from "./describe-node.js";
import { runSql } from "./run-sql.js";
import type { FlowWorkflow, RunAuthContext, RunOptions, RunResult } from "./types.js";

/** How a run starts another: `runWorkflow` (core/engine/run.ts). */
export type RunChild = (workflow: FlowWorkflow, opts: RunOptions) => Promise<RunResult>;

/** A child run's result, and its agents' tokens and cost (undefined when none recorded usage). */
export interface SubflowOutcome {
  result: RunResult;
  usage: (AgentUsage & { attempts: number }) | undefined;
}

export async function runSubflow(runWorkflow: RunChild, spec: SubflowSpec, childRunId: string, parentRunId: string, signal: AbortSignal | undefined, auth: RunAuthContext | null, prices?: PriceTable): Promise<SubflowOutcome> {
  const workflow = spec.workflow as FlowWorkflow;
  const store = bindingOf(workflow).store;
  // The parent's price table prices the child's agents too (a Gateway's `prices`).
  const common = { parentRunId, stayWhileWaiting: true, ...(signal ? { signal } : {}), ...(auth ? { auth } : {}), ...(prices ? { prices } : {}) };
  let result = await runWorkflow(workflow, { runId: childRunId, ...common, ...((await runSql.get(store, childRunId)) ? { resume: true } : { input: spec.input ?? {} }) });
  // A child that continues as new goes on in its next run: follow the chain to its end.
  const runIds = [childRunId];
  while (result.status === "continued" && result.nextRunId) {
    runIds.push(result.nextRunId);
    result = await runWorkflow(workflow, { runId: result.nextRunId, resume: true, ...common });
  }
  const db = new FlowDb(workflow);
  let usage: (AgentUsage & { attempts: number }) | undefined;
  for (const id of runIds) {
    const { total } = await db.getRunUsage(id);
    if (total.attempts) usage = { ...addUsage(usage, total), attempts: (usage?.attempts ?? 0) + total.attempts };
  }
  return { result, usage };
}
