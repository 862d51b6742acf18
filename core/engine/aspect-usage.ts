/**
 * @module core/engine/aspect-usage
 * What an `<Aspects>` block reads while it renders: tokens and latency of the attempts of the
 * tasks inside it (docs/components.md, "Aspects"). Kept per node from the attempts' meta
 * (agents report `usage`; a Subflow's attempt carries its child run's as `childUsage`; latency
 * is the last finished attempt's duration), loaded from `_flow_attempts` when a run resumes,
 * so budgets hold across restarts. Tokens are summed over every attempt of a task that
 * recorded usage, the ones time travel set aside included, as `getRunUsage` and the run's
 * cost sum them (`attemptTokens`): a budget reads the numbers the app and the CLI show.
 */
import { TABLES } from "../protocol.js";
import { rollUpUsage } from "../agents/index.js";
import type { AgentUsage } from "../agents/index.js";
import type { StorePort } from "../store/index.js";
import type { PlanTask } from "./plan.js";

/**
 * The tokens one attempt spent, as a token budget (`<Aspects tokenBudget>`) counts them: its
 * agents' total (input + output when no total was reported, as `rollUpUsage` (core/agents) counts it)
 * plus, for a Subflow, its child run's (`childUsage`, which the run's rolled-up usage reaches
 * through the child's own attempts instead).
 * @example
 * attemptTokens({ usage: { inputTokens: 10, outputTokens: 5 } }); // 15
 * attemptTokens({ childRunId: "r1/draft@0", childUsage: { totalTokens: 40, attempts: 2 } }); // 40
 */
function attemptTokens(meta: unknown): number {
  const child = (meta as { childUsage?: AgentUsage } | null | undefined)?.childUsage;
  return (rollUpUsage([meta]).totalTokens ?? 0) + (child?.totalTokens ?? 0);
}

/** Totals of the tasks of one Aspects block. */
export interface AspectTotals {
  /** Tokens of every finished attempt. */
  tokens: number;
  /** Most tokens of one task. */
  maxTaskTokens: number;
  /** Summed duration of the finished attempts (ms). */
  latencyMs: number;
  /** Longest finished attempt (ms). */
  maxTaskLatencyMs: number;
  /** Finished tasks counted. */
  tasks: number;
}

interface NodeUsage {
  tokens: number;
  latencyMs: number;
}

export class AspectUsage {
  private readonly usage = new Map<string, NodeUsage>();
  /** Node key to the Aspects blocks it was seen in (from every plan, so a block that removed its children still counts them). */
  private readonly members = new Map<string, string[]>();
  private readonly warned = new Set<string>();

  /** True the first time a warning's key is seen (a block renders many times; it warns once). */
  firstWarning(key: string): boolean {
    if (this.warned.has(key)) return false;
    this.warned.add(key);
    return true;
  }

  /**
   * Loads the usage of the run's recorded attempts (a resumed run): those that finished, and
   * the cancelled ones with a meta (time travel's set-aside attempts, and one a cancel cut: what
   * its agent had spent); a failed attempt's meta (what its agent spent) is left out, as
   * `record` counts only finished attempts live.
   */
  async load(store: StorePort, runId: string): Promise<void> {
    const rows = await store.query<{ node_id: string; iteration: number; state: string; meta_json: string | null; started_at_ms: number; finished_at_ms: number | null }>(
      `SELECT node_id, iteration, state, meta_json, started_at_ms, finished_at_ms FROM ${TABLES.attempts} WHERE run_id = ? AND (state = 'finished' OR (meta_json IS NOT NULL AND state <> 'failed')) ORDER BY attempt`,
      [runId],
    );
    for (const r of rows) {
      const key = `${r.node_id}@${Number(r.iteration)}`;
      const before = this.usage.get(key);
      const tokens = (before?.tokens ?? 0) + (r.meta_json ? attemptTokens(JSON.parse(r.meta_json)) : 0);
      const latencyMs = r.state === "finished" ? Math.max(0, Number(r.finished_at_ms ?? r.started_at_ms) - Number(r.started_at_ms)) : (before?.latencyMs ?? 0);
      this.usage.set(key, { tokens, latencyMs });
    }
  }

  /**
   * Learns which tasks of a new plan sit in Aspects blocks. Returns true when that adds usage
   * to a block (after a resume): the blocks must render again with it.
   */
  observe(tasks: readonly PlanTask[]): boolean {
    let added = false;
    for (const task of tasks) {
      const aspects = (task.desc as { aspects?: string[] }).aspects;
      if (!aspects || this.members.has(task.key)) continue;
      this.members.set(task.key, aspects);
      if (this.usage.has(task.key)) added = true;
    }
    return added;
  }

  /** A task finished; returns true when it is inside an Aspects block (which then renders again). */
  record(task: PlanTask, meta: unknown, latencyMs: number): boolean {
    this.usage.set(task.key, { tokens: (this.usage.get(task.key)?.tokens ?? 0) + attemptTokens(meta), latencyMs });
    const aspects = (task.desc as { aspects?: string[] }).aspects;
    if (aspects) this.members.set(task.key, aspects);
    return aspects !== undefined;
  }

  /** Totals of the finished tasks of block `aspectsId`. */
  totals(aspectsId: string): AspectTotals {
    const t: AspectTotals = { tokens: 0, maxTaskTokens: 0, latencyMs: 0, maxTaskLatencyMs: 0, tasks: 0 };
    for (const [key, aspects] of this.members) {
      const u = this.usage.get(key);
      if (!u || !aspects.includes(aspectsId)) continue;
      t.tasks++;
      t.tokens += u.tokens;
      t.latencyMs += u.latencyMs;
      t.maxTaskTokens = Math.max(t.maxTaskTokens, u.tokens);
      t.maxTaskLatencyMs = Math.max(t.maxTaskLatencyMs, u.latencyMs);
    }
    return t;
  }
}
