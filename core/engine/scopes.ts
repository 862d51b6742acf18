/**
 * @module core/engine/scopes
 * Failures caught by Saga and TryCatchFinally blocks. A task that fails for good inside such a
 * block does not fail the run: the failure is recorded on the innermost block (with, for a
 * saga, the steps that had completed), durably in `_flow_runs.scopes_json`, and the tree
 * renders again so that the block shows its recovery.
 */
import { TABLES } from "../protocol.js";
import type { FlowErrorJson } from "../errors.js";
import type { Extracted } from "./extract.js";
import type { PlanTask } from "./plan.js";
import type { ScopeFailure } from "../jsx/index.js";
import { json, type WriteBatch } from "./run-sql.js";

export class ScopeFailures {
  constructor(private readonly failures: Record<string, ScopeFailure>) {}

  get(scopeId: string): ScopeFailure | undefined {
    return this.failures[scopeId];
  }

  /**
   * Records `error` on the innermost block around `task` that has not failed yet. Returns the
   * block id, or undefined when no block catches it (the run fails).
   */
  catch(task: PlanTask, error: FlowErrorJson, extracted: Extracted, batch: WriteBatch, runId: string): string | undefined {
    const scopeId = task.scopes.find((id) => !this.failures[id]);
    if (!scopeId) return undefined;
    const scope = extracted.scopes.get(scopeId);
    const failure: ScopeFailure = { error };
    if (scope?.kind === "saga") failure.completedSteps = scope.steps.filter((g) => g.done).map((g) => g.id.slice("saga-step:".length));
    this.failures[scopeId] = failure;
    batch.push(`UPDATE ${TABLES.runs} SET scopes_json = ? WHERE run_id = ?`, [json(this.failures), runId]);
    return scopeId;
  }
}
