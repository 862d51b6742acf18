/**
 * @module core/api/cron-store
 * Cron rows (`_flow_crons`, migrations 30 and 31): what `cronList/Create/Delete/Run` and `Gateway.register({ schedule })`
 * write and the Gateway's scheduler fires. A schedule is a cron expression as croner reads it
 * (five fields, or six with seconds first). See docs/hosting.md "Cron".
 */
import { Cron } from "croner";
import type { z } from "zod";
import { FlowError } from "../errors.js";
import type { StorePort } from "../store/index.js";
import { TABLES } from "../protocol.js";
import type { cronRowSchema } from "./results-data.js";

/** A cron row, as the API answers it (`GatewayCronRow`; `cronRowSchema`, core/api/results-data.ts). */
export type CronRow = z.infer<typeof cronRowSchema>;

/** What `upsertCron` writes. */
export interface CronInit {
  cronId: string;
  workflowKey: string;
  schedule: string;
  input?: Record<string, unknown>;
  enabled?: boolean;
  createdBy?: string | null;
}

/**
 * The next firing of a cron expression after `afterMs`; throws INVALID_ARGUMENT for an
 * expression croner cannot read.
 * @example
 * nextFireOf("0 9 * * 1-5", Date.now()); // ms of the next weekday 09:00
 */
export function nextFireOf(schedule: string, afterMs: number): number | null {
  let job: Cron;
  try {
    job = new Cron(schedule, { paused: true });
  } catch (error) {
    throw new FlowError("INVALID_ARGUMENT", `"${schedule}" is not a cron expression (${(error as Error).message}); use five fields, or six with seconds first, e.g. "*/5 * * * *".`, { schedule });
  }
  const next = job.nextRun(new Date(afterMs));
  job.stop();
  return next ? next.getTime() : null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function toCron(r: Record<string, unknown>): CronRow {
  return {
    cronId: String(r.cron_id),
    workflowKey: String(r.workflow_key),
    schedule: String(r.expression),
    input: (r.input_json === null || r.input_json === undefined ? {} : JSON.parse(String(r.input_json))) as Record<string, unknown>,
    enabled: r.enabled === true || Number(r.enabled) === 1,
    createdBy: (r.created_by as string | null) ?? null,
    createdAtMs: Number(r.created_at_ms),
    updatedAtMs: Number(r.updated_at_ms),
    lastFiredAtMs: num(r.last_run_at_ms),
    lastRunId: (r.last_run_id as string | null) ?? null,
    nextFireAtMs: num(r.next_run_at_ms),
  };
}

/**
 * Reads and writes cron rows.
 * @example
 * await cronStore.upsert(store, { cronId: "gateway:nightly", workflowKey: "nightly", schedule: "0 3 * * *" }, Date.now());
 * const due = (await cronStore.list(store)).filter((c) => c.enabled && c.nextFireAtMs! <= Date.now());
 */
export const cronStore = {
  async list(store: StorePort): Promise<CronRow[]> {
    return (await store.query(`SELECT * FROM ${TABLES.crons} ORDER BY cron_id`)).map(toCron);
  },

  async get(store: StorePort, cronId: string): Promise<CronRow | undefined> {
    const rows = await store.query(`SELECT * FROM ${TABLES.crons} WHERE cron_id = ?`, [cronId]);
    return rows[0] && toCron(rows[0]);
  },

  /** Throws CRON_NOT_FOUND when there is no such cron. */
  async require(store: StorePort, cronId: string): Promise<CronRow> {
    const row = await cronStore.get(store, cronId);
    if (!row) throw new FlowError("CRON_NOT_FOUND", `There is no cron "${cronId}"; cronList shows the crons.`, { cronId });
    return row;
  },

  /** Creates or replaces a cron (its firing history is kept); validates the schedule. */
  async upsert(store: StorePort, init: CronInit, nowMs: number): Promise<CronRow> {
    const enabled = init.enabled ?? true;
    const next = nextFireOf(init.schedule, nowMs);
    await store.execute(
      `INSERT INTO ${TABLES.crons} (cron_id, workflow_key, expression, input_json, enabled, created_by, created_at_ms, updated_at_ms, next_run_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (cron_id) DO UPDATE SET workflow_key = excluded.workflow_key, expression = excluded.expression, input_json = excluded.input_json, enabled = excluded.enabled, updated_at_ms = excluded.updated_at_ms, next_run_at_ms = excluded.next_run_at_ms`,
      [init.cronId, init.workflowKey, init.schedule, JSON.stringify(init.input ?? {}), enabled ? 1 : 0, init.createdBy ?? null, nowMs, nowMs, enabled ? next : null],
    );
    return (await cronStore.get(store, init.cronId))!;
  },

  /** Deletes a cron; resolves false when there was none. */
  async delete(store: StorePort, cronId: string): Promise<boolean> {
    return (await store.execute(`DELETE FROM ${TABLES.crons} WHERE cron_id = ?`, [cronId])) > 0;
  },

  /**
   * Records a firing and the next one. With `expectedNextFireAtMs` it is a compare-and-set:
   * it resolves false when another process recorded the firing first (so each firing runs once).
   */
  async recordFiring(store: StorePort, cronId: string, fire: { runId: string; firedAtMs: number; nextFireAtMs: number | null; expectedNextFireAtMs?: number | null }): Promise<boolean> {
    const guard = fire.expectedNextFireAtMs === undefined ? "" : fire.expectedNextFireAtMs === null ? " AND next_run_at_ms IS NULL" : " AND next_run_at_ms = ?";
    const params = [fire.firedAtMs, fire.runId, fire.nextFireAtMs, fire.firedAtMs, cronId, ...(typeof fire.expectedNextFireAtMs === "number" ? [fire.expectedNextFireAtMs] : [])];
    return (await store.execute(`UPDATE ${TABLES.crons} SET last_run_at_ms = ?, last_run_id = ?, next_run_at_ms = ?, updated_at_ms = ? WHERE cron_id = ?${guard}`, params)) > 0;
  },
};
