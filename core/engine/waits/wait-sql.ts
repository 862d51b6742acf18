/**
 * @module core/engine/waits/wait-sql
 * Statements on `_flow_waits` (one row per waiting node) and `_flow_signals` (deliveries).
 */
import { TABLES } from "../../protocol.js";
import type { SqlExecutor } from "../../store/index.js";
import { json, type WriteBatch } from "../run-sql.js";
import type { WaitKind } from "./spec.js";

/** `closed`: its run was cancelled; nothing can be delivered to it (WAIT_CLOSED). */
export type WaitStatus = "pending" | "resolved" | "settled" | "closed";

export interface WaitRow {
  run_id: string;
  node_id: string;
  iteration: number;
  kind: WaitKind;
  status: WaitStatus;
  name: string | null;
  correlation_id: string | null;
  request_json: string | null;
  deadline_ms: number | string | null;
  resolution_json: string | null;
  resolved_by: string | null;
  created_at_ms: number | string;
  resolved_at_ms: number | string | null;
}

export interface SignalRow {
  delivery_id: string;
  kind: "signal" | "event";
  name: string;
  run_id: string | null;
  correlation_id: string | null;
  payload_json: string;
  consumed_run_id: string | null;
  consumed_node_id: string | null;
  consumed_iteration: number | null;
}

export const waitSql = {
  async get(db: SqlExecutor, runId: string, nodeId: string, iteration: number): Promise<WaitRow | undefined> {
    return (await db.query<WaitRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} WHERE run_id = ? AND node_id = ? AND iteration = ?`, [runId, nodeId, iteration]))[0];
  },
  insert(b: WriteBatch, r: { runId: string; nodeId: string; iteration: number; kind: WaitKind; name: string | null; correlationId: string | null; request: unknown; deadlineMs: number | null; now: number }) {
    b.push(
      `INSERT INTO ${TABLES.waits} (run_id, node_id, iteration, kind, status, name, correlation_id, request_json, deadline_ms, created_at_ms) VALUES (?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [r.runId, r.nodeId, r.iteration, r.kind, r.name, r.correlationId, json(r.request), r.deadlineMs, r.now],
    );
  },
  settle(b: WriteBatch, runId: string, nodeId: string, iteration: number, resolution: unknown, resolvedBy: string | null, now: number) {
    b.push(
      `UPDATE ${TABLES.waits} SET status = 'settled', resolution_json = COALESCE(resolution_json, ?), resolved_by = COALESCE(resolved_by, ?), resolved_at_ms = COALESCE(resolved_at_ms, ?) WHERE run_id = ? AND node_id = ? AND iteration = ?`,
      [json(resolution), resolvedBy, now, runId, nodeId, iteration],
    );
  },
  /** Drops a wait: its node asks afresh when the run reaches it (a reset, a cancelled run resumed). */
  remove(b: WriteBatch, runId: string, nodeId: string, iteration: number) {
    b.push(`DELETE FROM ${TABLES.waits} WHERE run_id = ? AND node_id = ? AND iteration = ?`, [runId, nodeId, iteration]);
  },
  /** Closes the open waits of a cancelled run: deliveries to them are refused (WAIT_CLOSED). */
  close(b: WriteBatch, runId: string, now: number) {
    b.push(`UPDATE ${TABLES.waits} SET status = 'closed', resolved_at_ms = ? WHERE run_id = ? AND status IN ('pending', 'resolved')`, [now, runId]);
  },
  /** Reopens a wait whose delivery was rejected (an invalid human submission). */
  reopen(b: WriteBatch, runId: string, nodeId: string, iteration: number, request: unknown) {
    b.push(`UPDATE ${TABLES.waits} SET status = 'pending', resolution_json = NULL, resolved_by = NULL, resolved_at_ms = NULL, request_json = ? WHERE run_id = ? AND node_id = ? AND iteration = ?`, [
      json(request),
      runId,
      nodeId,
      iteration,
    ]);
  },
  /** Records a delivery on a pending wait; false when it was not pending (already decided, or none). */
  async resolve(db: SqlExecutor, runId: string, nodeId: string, iteration: number, resolution: unknown, resolvedBy: string | null, now: number): Promise<boolean> {
    const n = await db.execute(
      `UPDATE ${TABLES.waits} SET status = 'resolved', resolution_json = ?, resolved_by = ?, resolved_at_ms = ? WHERE run_id = ? AND node_id = ? AND iteration = ? AND status = 'pending'`,
      [json(resolution), resolvedBy, now, runId, nodeId, iteration],
    );
    return n === 1;
  },
};

export const signalSql = {
  /** A delivery; a second delivery with the same id is a no-op. Resolves true when it was new. */
  async insert(db: SqlExecutor, r: { deliveryId: string; kind: "signal" | "event"; name: string; runId: string | null; correlationId: string | null; payload: unknown; now: number }): Promise<boolean> {
    const n = await db.execute(
      `INSERT INTO ${TABLES.signals} (delivery_id, kind, name, run_id, correlation_id, payload_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      [r.deliveryId, r.kind, r.name, r.runId, r.correlationId, JSON.stringify(r.payload ?? null), r.now],
    );
    return n === 1;
  },
  /** Whether a delivery with this id was made already. */
  async exists(db: SqlExecutor, deliveryId: string): Promise<boolean> {
    return (await db.query(`SELECT 1 AS one FROM ${TABLES.signals} WHERE delivery_id = ?`, [deliveryId])).length > 0;
  },
  /** Deliveries for a waiting node: already claimed by it, or open and addressed to its run or correlation id. */
  async candidates(db: SqlExecutor, w: { kind: "signal" | "event"; name: string; runId: string; nodeId: string; iteration: number; correlationId: string | null }): Promise<SignalRow[]> {
    return db.query<SignalRow & Record<string, unknown>>(
      `SELECT * FROM ${TABLES.signals} WHERE kind = ? AND name = ? AND (
         (consumed_run_id = ? AND consumed_node_id = ? AND consumed_iteration = ?)
         OR (consumed_run_id IS NULL AND (run_id = ? OR (run_id IS NULL AND correlation_id IS NOT NULL AND correlation_id = ?)))
       ) ORDER BY created_at_ms, delivery_id LIMIT 20`,
      [w.kind, w.name, w.runId, w.nodeId, w.iteration, w.runId, w.correlationId ?? ""],
    );
  },
  /** Claims a delivery for one node (compare-and-set): only one node ever consumes it. */
  async claim(db: SqlExecutor, deliveryId: string, runId: string, nodeId: string, iteration: number, now: number): Promise<boolean> {
    const n = await db.execute(
      `UPDATE ${TABLES.signals} SET consumed_run_id = ?, consumed_node_id = ?, consumed_iteration = ?, consumed_at_ms = ? WHERE delivery_id = ? AND consumed_run_id IS NULL`,
      [runId, nodeId, iteration, now, deliveryId],
    );
    return n === 1;
  },
};
