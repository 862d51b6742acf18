/**
 * @module core/engine/snapshot
 * The persisted form of a TaskDescriptor in a frame: JSON data only (functions, schemas and
 * agent objects are replaced by what identifies them), every field SPEC.md requires present
 * with its default. Runs once per task per frame, so it copies fields explicitly.
 */
import type { NodeDescriptor } from "./describe-node.js";
import type { PlanTask } from "./plan.js";
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
  "hijack",
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
  // SPEC.md's required fields are always stored, defaults included (frames are deltas, so a
  // default costs nothing after the first frame). JSON has no Infinity: unbounded retries are null.
  out.needsApproval = d.needsApproval;
  out.skipIf = d.skipIf;
  out.continueOnFail = d.continueOnFail;
  out.retries = d.retries === Infinity ? null : d.retries;
  out.timeoutMs = d.timeoutMs;
  out.heartbeatTimeoutMs = d.heartbeatTimeoutMs;
  // Without a retryPolicy the engine waits on its default curve (core/engine/retry.ts), which
  // is no RetryPolicy: a given policy is stored with SPEC.md's defaults filled in, none is omitted.
  if (d.retryPolicy) out.retryPolicy = { backoff: d.retryPolicy.backoff ?? "fixed", initialDelayMs: d.retryPolicy.initialDelayMs ?? 0 };
  if (d.agent) out.agent = (Array.isArray(d.agent) ? d.agent : [d.agent]).map((a) => a.id ?? "agent");
  const wait = (d as NodeDescriptor).wait;
  if (wait) out.wait = wait;
  if (d.cachePolicy) {
    const { by, ...rest } = d.cachePolicy;
    out.cachePolicy = by ? { ...rest, by: "fn" } : rest;
  }
  return out;
}

/**
 * `serializeDescriptor(task.desc)`, made once per descriptor: a task whose descriptor was
 * carried over from the previous render (extract.ts) keeps the previous frame's object, so the
 * frame diff stops there at once.
 * @example
 * const frame = { xml, tasks: extracted.tasks.map(frameTaskOf) };
 */
export function frameTaskOf(task: PlanTask): Record<string, unknown> {
  if (task.frameTaskFor === task.desc && task.frameTask) return task.frameTask;
  task.frameTaskFor = task.desc;
  return (task.frameTask = serializeDescriptor(task.desc));
}
