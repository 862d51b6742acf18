/**
 * @module ui/views/run-detail/live-usage
 * What a run's agents spent, live: the store counts an attempt's calls when the attempt ends
 * (`getRunUsage`, from its meta), the event log as each model step and each call ends. The run header adds the
 * calls of attempts still running to the store's total, so a coding agent's hour-long attempt
 * shows what it costs while it works, not once it is done.
 */
import { type AgentUsage, rollUpUsage } from "../../../core/agents/index.js";
import type { GatewayRunEventRow } from "../../../core/data/index.js";

/** Tokens and cost, as `getRunUsage` totals them. */
export type Spend = AgentUsage & { costUsd?: number };

/**
 * The usage and cost of each attempt that has not ended in `events`, per attempt: each of its
 * generations' whole once it finished (`AgentGenerationFinished`), else what its model steps
 * reported so far (`AgentStepUsage`: an SDK tool loop runs many in one generation). An attempt
 * ends with `TaskFinished`, `TaskFailed` or `TaskCancelled` (one without an attempt ends every
 * attempt of its task).
 * @example
 * inFlightSpend(events); // [{ inputTokens: 1200, outputTokens: 40, totalTokens: 1240, costUsd: 0.0125 }]
 */
export function inFlightSpend(events: readonly GatewayRunEventRow[]): Spend[] {
  /** Per attempt, per generation: its steps' spend, and its whole once it ended with one. */
  const open = new Map<string, Map<number, { steps: Meta[]; whole?: Meta }>>();
  const task = (e: { nodeId: string; iteration: number }) => `${e.nodeId}\u0000${e.iteration}\u0000`;
  const generation = (e: { nodeId: string; iteration: number; attempt: number; generation: number }) => {
    const key = `${task(e)}${e.attempt}`;
    const gens = open.get(key) ?? new Map();
    open.set(key, gens);
    const g = gens.get(e.generation) ?? { steps: [] };
    gens.set(e.generation, g);
    return g;
  };
  for (const e of events) {
    if (e.type === "AgentStepUsage") generation(e).steps.push({ usage: e.usage, costUsd: e.costUsd });
    else if (e.type === "AgentGenerationFinished") {
      if (e.usage || e.costUsd !== undefined) generation(e).whole = { usage: e.usage, costUsd: e.costUsd };
    } else if (e.type === "TaskFinished" || e.type === "TaskFailed" || (e.type === "TaskCancelled" && e.attempt !== undefined)) {
      open.delete(`${task(e)}${e.attempt}`);
    } else if (e.type === "TaskCancelled") {
      for (const key of open.keys()) if (key.startsWith(task(e))) open.delete(key);
    }
  }
  return [...open.values()].map((gens) => spendOf([...gens.values()].flatMap((g) => (g.whole ? [g.whole] : g.steps))));
}

/**
 * The store's total with what running attempts have spent so far added; undefined where neither
 * has anything.
 * @example
 * withInFlight({ inputTokens: 22, outputTokens: 14, costUsd: 0.00001 }, inFlightSpend(events));
 */
export function withInFlight(stored: (Spend & { attempts?: number }) | undefined, running: readonly Spend[]): Spend | undefined {
  if (!running.length) return stored;
  const asMeta = ({ costUsd, attempts: _attempts, ...usage }: Spend & { attempts?: number }): Meta => ({ usage, costUsd });
  return spendOf([...(stored ? [asMeta(stored)] : []), ...running.map(asMeta)]);
}

/** An attempt's meta, as far as spend goes. */
type Meta = { usage?: AgentUsage; costUsd?: number };

/** Tokens and cost summed over `metas` (core/agents `rollUpUsage`, without its count). */
function spendOf(metas: Meta[]): Spend {
  const { attempts: _attempts, ...spend } = rollUpUsage(metas);
  return spend;
}
