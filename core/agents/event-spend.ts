/**
 * @module core/agents/event-spend
 * What agents' calls spent, read from a run's events as they come: each generation's whole once
 * it ended with one (`AgentGenerationFinished`), else what its model steps reported so far
 * (`AgentStepUsage`: an SDK tool loop runs many steps in one call, and a call cut mid-loop
 * reports no whole). The same sum the store keeps per attempt (run-agent's tally), live: `flow
 * up`'s closing line and the console's run header read it.
 */
import type { FlowEvent } from "../engine/index.js";
import type { AgentUsage } from "./types.js";
import { rollUpUsage } from "./usage.js";

/** Tokens and cost. */
export type Spend = AgentUsage & { costUsd?: number };

/** A generation's spend as an attempt meta holds it. */
type Meta = { usage?: AgentUsage; costUsd?: number };

/**
 * Spend by attempt, from the events given to `observe`.
 * @example
 * const spend = new EventSpend();
 * for (const e of events) spend.observe(e);
 * spend.total(); // { inputTokens: 1840, outputTokens: 64, totalTokens: 1904, costUsd: 0.0132 }
 */
export class EventSpend {
  /** Per attempt (`node\0iteration\0attempt`), per generation: its steps' spend, and its whole once it ended with one. */
  private readonly attempts = new Map<string, Map<number, { steps: Meta[]; whole?: Meta }>>();

  /** Takes one event; those that say nothing of spend are passed over. */
  observe(e: FlowEvent): void {
    if (e.type === "AgentStepUsage") this.generation(e).steps.push({ usage: e.usage, costUsd: e.costUsd });
    else if (e.type === "AgentGenerationFinished" && (e.usage || e.costUsd !== undefined)) this.generation(e).whole = { usage: e.usage, costUsd: e.costUsd };
  }

  /** Forgets an attempt's spend (`attempt` undefined: every attempt of the task). */
  drop(ref: { nodeId: string; iteration: number; attempt?: number }): void {
    const task = taskKey(ref);
    if (ref.attempt !== undefined) this.attempts.delete(`${task}${ref.attempt}`);
    else for (const key of this.attempts.keys()) if (key.startsWith(task)) this.attempts.delete(key);
  }

  /** Each attempt's spend, in the order their first spend came. */
  perAttempt(): Spend[] {
    return [...this.attempts.values()].map(generationsSpend);
  }

  /**
   * One attempt's spend; undefined before any.
   * @example
   * spend.of({ nodeId: "fix", iteration: 0, attempt: 2 }); // { inputTokens: 1200, outputTokens: 40, totalTokens: 1240 }
   */
  of(ref: { nodeId: string; iteration: number; attempt: number }): Spend | undefined {
    const gens = this.attempts.get(`${taskKey(ref)}${ref.attempt}`);
    return gens && generationsSpend(gens);
  }

  /** Every attempt's spend together; undefined before any. */
  total(): Spend | undefined {
    return this.attempts.size ? sumSpend(this.perAttempt()) : undefined;
  }

  private generation(e: { nodeId: string; iteration: number; attempt: number; generation: number }) {
    const key = `${taskKey(e)}${e.attempt}`;
    const gens = this.attempts.get(key) ?? new Map<number, { steps: Meta[]; whole?: Meta }>();
    this.attempts.set(key, gens);
    const g = gens.get(e.generation) ?? { steps: [] };
    gens.set(e.generation, g);
    return g;
  }
}

/**
 * Spends added up (a stored total with `attempts` counts only its tokens and cost).
 * @example
 * sumSpend([{ inputTokens: 5, costUsd: 0.01 }, { inputTokens: 2 }]); // { inputTokens: 7, totalTokens: 7, costUsd: 0.01 }
 */
export function sumSpend(spends: readonly (Spend & { attempts?: number })[]): Spend {
  return spendOf(spends.map(({ costUsd, attempts: _attempts, ...usage }) => ({ usage, costUsd })));
}

/**
 * A stored total (attempts that ended) with what attempts still running have spent so far added;
 * undefined where neither has anything. The console's run header and `flow runs` show it.
 * @example
 * withInFlight({ inputTokens: 22, outputTokens: 14, costUsd: 0.00001 }, runningSpends);
 */
export function withInFlight(stored: (Spend & { attempts?: number }) | undefined, running: readonly Spend[]): Spend | undefined {
  if (!running.length) return stored;
  return sumSpend(stored ? [stored, ...running] : running);
}

/** An attempt's generations: each one's whole where it ended with one, else its steps. */
function generationsSpend(gens: Map<number, { steps: Meta[]; whole?: Meta }>): Spend {
  return spendOf([...gens.values()].flatMap((g) => (g.whole ? [g.whole] : g.steps)));
}

function taskKey(ref: { nodeId: string; iteration: number }): string {
  return `${ref.nodeId}\u0000${ref.iteration}\u0000`;
}

/** Tokens and cost summed over metas (`rollUpUsage`, without its count). */
function spendOf(metas: Meta[]): Spend {
  const { attempts: _attempts, ...spend } = rollUpUsage(metas);
  return spend;
}
