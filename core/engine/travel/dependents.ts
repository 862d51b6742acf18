/**
 * @module core/engine/travel/dependents
 * Which nodes go back to `pending` with a target (SPEC.md state table): later iterations,
 * nodes ordered after it, and nodes with an attempt started after the target's start. One
 * rule for `retryTask`, `timeTravel` and `forkRun`.
 */
import type { AttemptRecord, NodeRecord } from "../flow-db.js";

/**
 * The nodes that depend on `target` (itself excluded), given when the target started.
 * @example
 * const later = dependentsOf(await db.listNodes(runId), await db.listAttempts(runId), target, startedAtMs);
 */
export function dependentsOf(nodes: readonly NodeRecord[], attempts: readonly AttemptRecord[], target: NodeRecord, sinceMs: number): NodeRecord[] {
  const startedAfter = new Set(attempts.filter((a) => a.startedAtMs > sinceMs).map((a) => `${a.nodeId}@${a.iteration}`));
  return nodes.filter(
    (n) =>
      n !== target &&
      (n.iteration > target.iteration || (target.ordinal !== null && n.ordinal !== null && n.ordinal > target.ordinal) || startedAfter.has(`${n.nodeId}@${n.iteration}`)),
  );
}
