/**
 * @module core/engine/snapshot
 * The persisted form of a TaskDescriptor in a frame: JSON data only (functions, schemas and
 * agent objects are replaced by what identifies them), default values left out to keep frames
 * small.
 */
import type { TaskDescriptor } from "./types.js";

/** JSON-safe descriptor for frames (SPEC.md `GraphSnapshot.tasks`). */
export function serializeDescriptor(d: TaskDescriptor): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined || typeof v === "function") continue;
    if (k === "outputSchema" || k === "computeFn") continue;
    if (k === "agent") {
      const agents = Array.isArray(v) ? v : [v];
      out.agent = agents.map((a: { id?: string }) => a.id ?? "agent");
      continue;
    }
    if (k === "cachePolicy") {
      const { by, ...rest } = v as Record<string, unknown>;
      out.cachePolicy = { ...rest, ...(by ? { by: "fn" } : {}) };
      continue;
    }
    if (v === false && (k === "needsApproval" || k === "skipIf" || k === "continueOnFail")) continue;
    if (v === null && (k === "timeoutMs" || k === "heartbeatTimeoutMs")) continue;
    if (k === "retries" && v === Infinity) continue;
    out[k] = v;
  }
  if (d.computeFn) out.kind = d.agent ? "agent" : "compute";
  else out.kind = d.agent ? "agent" : "static";
  return out;
}
