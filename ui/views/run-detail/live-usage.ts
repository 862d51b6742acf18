/**
 * @module ui/views/run-detail/live-usage
 * What a run's agents spent, live: the store counts an attempt's calls when the attempt ends
 * (`getRunUsage`, from its meta), the event log as each model step and each call ends
 * (core/agents `EventSpend`). The run header adds what attempts still running have spent to the
 * store's total, so a coding agent's hour-long attempt shows what it costs while it works, not
 * once it is done.
 */
import { EventSpend, type Spend } from "../../../core/agents/index.js";
import type { GatewayRunEventRow } from "../../../core/data/index.js";

/**
 * What each attempt the store's total does not count has spent: one that had not ended by
 * `countedTo`, the seq the total was asked at (all of them by default). An attempt ends with
 * `TaskFinished`, `TaskFailed` or `TaskCancelled` (one without an attempt ends every attempt of
 * its task).
 * @example
 * inFlightSpend(events, 41); // [{ inputTokens: 1200, outputTokens: 40, totalTokens: 1240, costUsd: 0.0125 }]
 */
export function inFlightSpend(events: readonly GatewayRunEventRow[], countedTo = Number.POSITIVE_INFINITY): Spend[] {
  const spend = new EventSpend();
  for (const e of events) {
    if (e.type === "TaskFinished" || e.type === "TaskFailed" || e.type === "TaskCancelled") {
      if (e.seq <= countedTo) spend.drop(e);
    } else spend.observe(e);
  }
  return spend.perAttempt();
}

/**
 * What one attempt has spent so far, from its events (the attempts table's row of an attempt
 * still running, whose meta the store writes when it ends); undefined before any spend.
 * @example
 * attemptSpend(events, { nodeId: "fix", iteration: 0, attempt: 2 }); // { inputTokens: 900, outputTokens: 60, totalTokens: 960, costUsd: 0.009 }
 */
export function attemptSpend(events: readonly GatewayRunEventRow[], ref: { nodeId: string; iteration: number; attempt: number }): Spend | undefined {
  const spend = new EventSpend();
  for (const e of events) spend.observe(e);
  return spend.of(ref);
}
