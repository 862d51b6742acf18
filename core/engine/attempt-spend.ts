/**
 * @module core/engine/attempt-spend
 * What attempts whose meta the store has not written yet have spent, read from their run's
 * `AgentStepUsage` and `AgentGenerationFinished` events (core/agents `EventSpend`): an attempt
 * still running (`FlowDb.getRunningSpend`), and one a dead process left in progress, whose spend
 * becomes its meta when the run resumes (session-open.ts): its model calls were paid for.
 */
import { EventSpend, type Spend } from "../agents/index.js";
import { TABLES } from "../protocol.js";
import type { SqlExecutor } from "../store/index.js";
import { eventOf } from "./row-fields.js";

/** An attempt of a run. */
export interface AttemptRef {
  nodeId: string;
  iteration: number;
  attempt: number;
}

/** What an attempt has spent by its events (`FlowDb.getRunningSpend`). */
export type RunningSpend = Spend & AttemptRef;

/**
 * The spend of each of `attempts` (of run `runId`) by the run's events; those without any are
 * left out.
 * @example
 * await spendByEvents(store, runId, [{ nodeId: "fix", iteration: 0, attempt: 2 }]); // [{ nodeId: "fix", ..., inputTokens: 1200, outputTokens: 40, totalTokens: 1240 }]
 */
export async function spendByEvents(db: SqlExecutor, runId: string, attempts: readonly AttemptRef[]): Promise<RunningSpend[]> {
  if (!attempts.length) return [];
  const rows = await db.query(`SELECT * FROM ${TABLES.events} WHERE run_id = ? AND type IN ('AgentStepUsage', 'AgentGenerationFinished') ORDER BY seq`, [runId]);
  const spend = new EventSpend();
  for (const r of rows) spend.observe(eventOf(r));
  return attempts.flatMap((ref) => {
    const spent = spend.of(ref);
    return spent ? [{ nodeId: ref.nodeId, iteration: ref.iteration, attempt: ref.attempt, ...spent }] : [];
  });
}

/**
 * An attempt's spend as its meta holds it (`{ usage, costUsd }`, as `rollUpUsage` reads it).
 * @example
 * spendMeta({ nodeId: "fix", iteration: 0, attempt: 1, inputTokens: 11, outputTokens: 7, costUsd: 0.00002 }); // { usage: { inputTokens: 11, outputTokens: 7 }, costUsd: 0.00002 }
 */
export function spendMeta(spent: RunningSpend): { usage: Omit<Spend, "costUsd">; costUsd?: number } {
  const { nodeId: _n, iteration: _i, attempt: _a, costUsd, ...usage } = spent;
  return { usage, ...(costUsd !== undefined ? { costUsd } : {}) };
}
