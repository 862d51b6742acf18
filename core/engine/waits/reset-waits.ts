/**
 * @module core/engine/waits/reset-waits
 * What a reset (time travel, `retryTask`) does to the waits of the nodes it sets back to
 * `pending`: an Approval, ApprovalGate, `needsApproval`, HumanTask, Signal or WaitForEvent is
 * asked again unless the caller keeps earlier decisions (`keepDecisions`). Asking again deletes
 * the wait row, so the node records a new request (`ApprovalRequested`) when the run reaches
 * it, and leaves a signal or event it took spent (its claim no longer names the node), so
 * only a new delivery settles it. Timers are not decisions: a fired timer stays fired.
 * See docs/time-travel.md "Decisions" and docs/waiting.md.
 */
import { TABLES } from "../../protocol.js";
import type { SqlExecutor } from "../../store/index.js";
import { dependentsOf } from "../travel/dependents.js";
import type { FlowDb, NodeRecord } from "../flow-db.js";
import type { WriteBatch } from "../run-sql.js";
import type { WaitKind } from "./spec.js";
import { type WaitRow, waitSql } from "./wait-sql.js";

/**
 * A decision or delivery a reset met: asked again (`ask-again`) or kept (`keep`).
 * @example
 * const d: ResetDecision = { nodeId: "ship", iteration: 0, kind: "approval", decision: { approved: true }, decidedBy: "ana", action: "ask-again" };
 */
export interface ResetDecision {
  nodeId: string;
  iteration: number;
  kind: Exclude<WaitKind, "timer">;
  /** What was decided or delivered (an approval's decision, a submission, a signal's data). */
  decision: Record<string, unknown> | null;
  decidedBy: string | null;
  action: "ask-again" | "keep";
}

/**
 * The decided waits among `nodes` (node id and iteration), and what a reset does to them.
 * @example
 * const decisions = await decisionsOf(store, runId, [{ nodeId: "ship", iteration: 0 }], false);
 */
export async function decisionsOf(db: SqlExecutor, runId: string, nodes: ReadonlyArray<{ nodeId: string; iteration: number }>, keep: boolean): Promise<ResetDecision[]> {
  return (await waitsOf(db, runId, nodes))
    .filter((w) => w.status !== "pending" && w.status !== "closed")
    .map((w) => ({
      nodeId: w.node_id,
      iteration: Number(w.iteration),
      kind: w.kind as ResetDecision["kind"],
      decision: w.resolution_json ? (JSON.parse(w.resolution_json) as Record<string, unknown>) : null,
      decidedBy: w.resolved_by,
      action: keep ? "keep" : "ask-again",
    }));
}

/**
 * Adds to `batch` the reset of the waits of `nodes`; answers the decisions met. A wait still
 * pending (or closed by a cancel) is always dropped: the node asks afresh, with new deadlines.
 * @example
 * const decisions = await resetWaits(store, batch, runId, resetNodes, opts.keepDecisions === true);
 */
export async function resetWaits(db: SqlExecutor, batch: WriteBatch, runId: string, nodes: ReadonlyArray<{ nodeId: string; iteration: number }>, keep: boolean): Promise<ResetDecision[]> {
  const decisions = await decisionsOf(db, runId, nodes, keep);
  for (const w of await waitsOf(db, runId, nodes)) {
    const decided = w.status !== "pending" && w.status !== "closed";
    if (keep && decided) continue;
    waitSql.remove(batch, runId, w.node_id, Number(w.iteration));
    if (w.kind === "signal" || w.kind === "event") {
      // Spent, not reopened: the delivery stays consumed by the run but no node owns it now.
      batch.push(`UPDATE ${TABLES.signals} SET consumed_node_id = NULL WHERE consumed_run_id = ? AND consumed_node_id = ? AND consumed_iteration = ?`, [runId, w.node_id, w.iteration]);
    }
  }
  return decisions;
}

/**
 * What a reset of `target` (from `sinceMs`, the start the dependents are measured from) would
 * ask again or keep, without changing anything: for the rewind and retry dialogs.
 * @example
 * const decisions = await previewDecisions(db, runId, target, startedAtMs, true, false);
 */
export async function previewDecisions(db: FlowDb, runId: string, target: NodeRecord, sinceMs: number, resetDependents: boolean, keep: boolean): Promise<ResetDecision[]> {
  const nodes = resetDependents ? [target, ...dependentsOf(await db.listNodes(runId), await db.listAttempts(runId), target, sinceMs)] : [target];
  return decisionsOf(db.store, runId, nodes, keep);
}

async function waitsOf(db: SqlExecutor, runId: string, nodes: ReadonlyArray<{ nodeId: string; iteration: number }>): Promise<WaitRow[]> {
  const keys = new Set(nodes.map((n) => `${n.nodeId}@${n.iteration}`));
  const rows = await db.query<WaitRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} WHERE run_id = ? AND kind <> 'timer' ORDER BY created_at_ms, node_id, iteration`, [runId]);
  return rows.filter((w) => keys.has(`${w.node_id}@${Number(w.iteration)}`));
}
