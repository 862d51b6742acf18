/**
 * @module core/engine/snapshot
 * The persisted form of a TaskDescriptor in a frame: JSON data only (functions, schemas and
 * agent objects are replaced by what identifies them), default values left out to keep frames
 * small. Runs once per task per frame, so it copies fields explicitly rather than iterating.
 */
import type { NodeDescriptor } from "./describe-node.js";
import type { TaskDescriptor } from "./types.js";

const COPIED = [
  "ralphId",
  "iterationPath",
  "dependsOn",
  "needs",
  "forkSource",
  "worktreeId",
  "worktreePath",
  "worktreeBranch",
  "worktreeBaseBranch",
  "parallelGroupId",
  "parallelMaxConcurrency",
  "subtreeGroupId",
  "subtreeChildKey",
  "subtreeMax",
  "waitAsync",
  "approvalMode",
  "approvalOnDeny",
  "approvalOptions",
  "approvalAllowedScopes",
  "approvalAllowedUsers",
  "approvalAutoApprove",
  "retryPolicy",
  "onHijackExit",
  "prompt",
  "staticPayload",
  "label",
  "meta",
  "depsNodes",
  "allowTools",
] as const satisfies ReadonlyArray<keyof TaskDescriptor>;

/** JSON-safe descriptor for frames (SPEC.md `GraphSnapshot.tasks`). */
export function serializeDescriptor(d: TaskDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = {
    nodeId: d.nodeId,
    ordinal: d.ordinal,
    iteration: d.iteration,
    outputTable: d.outputTable,
    outputTableName: d.outputTableName,
    kind: (d as NodeDescriptor).wait?.kind ?? (d.agent ? "agent" : d.computeFn ? "compute" : "static"),
  };
  for (const k of COPIED) if (d[k] !== undefined) out[k] = d[k];
  if (d.needsApproval) out.needsApproval = true;
  if (d.skipIf) out.skipIf = true;
  if (d.continueOnFail) out.continueOnFail = true;
  if (d.retries !== Infinity) out.retries = d.retries;
  if (d.timeoutMs !== null) out.timeoutMs = d.timeoutMs;
  if (d.heartbeatTimeoutMs !== null) out.heartbeatTimeoutMs = d.heartbeatTimeoutMs;
  if (d.agent) out.agent = (Array.isArray(d.agent) ? d.agent : [d.agent]).map((a) => a.id ?? "agent");
  const wait = (d as NodeDescriptor).wait;
  if (wait) out.wait = wait;
  if (d.cachePolicy) {
    const { by, ...rest } = d.cachePolicy;
    out.cachePolicy = by ? { ...rest, by: "fn" } : rest;
  }
  return out;
}
