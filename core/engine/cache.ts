/**
 * @module core/engine/cache
 * Task output caching (SPEC.md `CachePolicy`). A key hashes the scope, the node, the output
 * table's columns, the policy's version/key/`by(ctx)` and what the task would run (prompt,
 * static row or function source), so editing a task invalidates its entries.
 */
import type { CachePolicy } from "../components/index.js";
import { sha256Hex, stableStringify } from "../util/index.js";
import type { TaskDescriptor } from "./types.js";

export interface CacheScopeIds {
  runId: string;
  workflowName: string;
}

/** The cache key of a task, and the scope it is stored under. */
export function cacheKeyOf(desc: TaskDescriptor, policy: CachePolicy, ids: CacheScopeIds, ctx: unknown, tableSignature: string): { key: string; scope: string } {
  const scopeKind = policy.scope ?? "run";
  const scope = scopeKind === "global" ? "global" : scopeKind === "workflow" ? `workflow:${ids.workflowName}` : `run:${ids.runId}`;
  const by = policy.by ? policy.by(ctx) : undefined;
  const material = stableStringify({
    scope,
    nodeId: desc.nodeId,
    table: tableSignature,
    version: policy.version,
    key: policy.key,
    by,
    prompt: desc.prompt,
    payload: desc.staticPayload,
    fn: desc.computeFn?.toString(),
    iteration: scopeKind === "run" ? desc.iteration : undefined,
  });
  return { key: sha256Hex(material), scope };
}
