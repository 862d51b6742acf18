/**
 * @module core/api/workflow-usage
 * Agents' tokens and cost of one workflow over time (`GET /v1/api/workflows/:workflow/usage`,
 * docs/agents.md "Cost"): the runs of the workflow started in the last `days` days (UTC), each
 * run's usage rolled up with its child runs' (Subflows run under `<runId>/...`, as `getRunUsage`
 * counts them), summed per day of the run's start. Child runs are counted in their parent's
 * workflow, never as runs of their own. Numbers are those of `rollUpUsage`, which the run
 * header, the runs list and `<Aspects tokenBudget>` read too.
 */
import { rollUpUsage } from "../agents/index.js";
import type { z } from "zod";
import { TABLES } from "../protocol.js";
import { usageMetasOf } from "./usage-metas.js";
import type { workflowUsageSchema } from "./results-reads.js";
import type { GatewayHost } from "./host.js";
import { workflowRunFilter } from "./read-model.js";

const DAY_MS = 86_400_000;

/** The longest window `days` may ask for. */
export const WORKFLOW_USAGE_MAX_DAYS = 366;

/**
 * One day of a workflow's usage.
 * @example
 * const d: WorkflowUsageDay = { day: "2026-11-26", startMs: 1795651200000, runs: 3, attempts: 4, totalTokens: 5120, costUsd: 0.0123 };
 */
export type WorkflowUsageDay = WorkflowUsage["byDay"][number];

/**
 * A workflow's usage: every day of the window (oldest first, days without runs included) and
 * the total (`workflowUsageSchema`, core/api/results-reads.ts).
 * @example
 * const u = await data.api.getWorkflowUsage("assistant", { days: 7 }); // u.byDay.length === 7
 */
export type WorkflowUsage = z.infer<typeof workflowUsageSchema>;

/**
 * Reads a workflow's usage per day.
 * @example
 * const usage = await workflowUsage(host, "assistant", { days: 30, nowMs: Date.now() });
 */
export async function workflowUsage(host: GatewayHost, workflow: string, opts: { days: number; nowMs: number }): Promise<WorkflowUsage> {
  const days = Math.max(1, Math.min(WORKFLOW_USAGE_MAX_DAYS, Math.floor(opts.days)));
  const firstDay = Math.floor(opts.nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const filter = workflowRunFilter(host, workflow);
  const runs = await host.db.store.query<{ run_id: string; created_at_ms: unknown }>(
    `SELECT run_id, created_at_ms FROM ${TABLES.runs} WHERE parent_run_id IS NULL AND created_at_ms >= ? AND ${filter.sql}`,
    [firstDay, ...filter.params],
  );
  const dayOf = new Map(runs.map((r) => [r.run_id, Math.floor((Number(r.created_at_ms) - firstDay) / DAY_MS)]));
  const metas: unknown[][] = Array.from({ length: days }, () => []);
  // The window's runs are top-level (`parent_run_id IS NULL`): their child runs' attempts count for them.
  for (const [runId, list] of await usageMetasOf(host, [...dayOf.keys()])) metas[dayOf.get(runId)!]!.push(...list);
  const runsPerDay = new Array<number>(days).fill(0);
  for (const day of dayOf.values()) runsPerDay[day]!++;
  const byDay = metas.map((list, i): WorkflowUsageDay => {
    const startMs = firstDay + i * DAY_MS;
    return { ...rollUpUsage(list), day: new Date(startMs).toISOString().slice(0, 10), startMs, runs: runsPerDay[i]! };
  });
  return { workflow, days, total: { ...rollUpUsage(metas.flat()), runs: dayOf.size }, byDay };
}
