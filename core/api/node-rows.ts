/**
 * @module core/api/node-rows
 * The rows of a run's node iterations a console shows — its nodes (`GatewayRunNode`), pending
 * approvals and human tasks (`GatewayApprovalRow`), agent prompts (`GatewayPromptRow`) and
 * events (`GatewayRunEventRow`) — each typed once and built in one place, whoever reads them:
 * the Gateway's read model (the browser worker serves the same handler over PGlite), the data
 * layer's collections and a team workspace's Electric shapes (sync/shape-rows.ts). Columns
 * become fields in core/engine/row-fields.ts; fields become rows, with their keys, here
 * (docs/architecture.md "One row, one mapper").
 */
import type { z } from "zod";
import type { AttemptRecord, FlowEvent, GraphSnapshot, NodeRecord, PendingApproval } from "../engine/index.js";
import type { runNodeSchema } from "./results.js";
import type { promptRowSchema } from "./results-reads.js";

/** A node iteration of a run, with its attempts, keyed `<nodeId>#<iteration>` within its run (declared by core/api/results.ts `runNodeSchema`). */
export type GatewayRunNode = z.infer<typeof runNodeSchema>;

/**
 * A pending approval or human task (`runId`, `nodeId`, `iteration`, `kind`, `request`, `createdAtMs`, `deadlineMs`), keyed `<runId>/<nodeId>#<iteration>`.
 * @example
 * cols.approvals.toArray.map((a: GatewayApprovalRow) => `${a.runId} ${a.nodeId}`);
 */
export type GatewayApprovalRow = PendingApproval & { key: string };

/** A prompt a task of a run's latest frame gives its agent, keyed `<runId>/<nodeId>#<iteration>` (declared by core/api/results-reads.ts `promptRowSchema`). */
export type GatewayPromptRow = z.infer<typeof promptRowSchema>;

/**
 * One event of a run's log: the `FlowEvent` (`type`, `runId`, `timestampMs`, fields of its type) with its `seq` (the key).
 * @example
 * cols.runEvents(runId).toArray.map((e: GatewayRunEventRow) => `${e.seq} ${e.type}`);
 */
export type GatewayRunEventRow = FlowEvent & { seq: number };

/**
 * The key of a row that is one iteration of a node.
 * @example
 * nodeKey({ nodeId: "ship", iteration: 0 }); // "ship#0"
 */
export function nodeKey(row: { nodeId: string; iteration: number }): string {
  return `${row.nodeId}#${row.iteration}`;
}

/**
 * The key of a row of a node iteration of a run.
 * @example
 * runNodeKey({ runId: "r1", nodeId: "ship", iteration: 0 }); // "r1/ship#0"
 */
export function runNodeKey(row: { runId: string; nodeId: string; iteration: number }): string {
  return `${row.runId}/${nodeKey(row)}`;
}

/**
 * The node row of a node's fields (core/engine `nodeFields`), with its attempts when known:
 * whole fields and attempts give a whole row, a partial row the fields it carries (and its
 * key once `nodeId` and `iteration` are there).
 * @example
 * const nodes = (await db.listNodes(runId)).map((n) => nodeRowOf(n, attempts) as GatewayRunNode);
 */
export function nodeRowOf(node: Partial<NodeRecord>, attempts?: readonly AttemptRecord[]): Partial<GatewayRunNode> {
  const out: Partial<GatewayRunNode> = {};
  if (node.nodeId !== undefined && node.iteration !== undefined) out.key = nodeKey({ nodeId: node.nodeId, iteration: node.iteration });
  if (Object.hasOwn(node, "nodeId")) out.nodeId = node.nodeId!;
  if (Object.hasOwn(node, "iteration")) out.iteration = node.iteration!;
  if (Object.hasOwn(node, "state")) out.state = node.state!;
  if (Object.hasOwn(node, "label")) out.label = node.label!;
  if (Object.hasOwn(node, "outputTable")) out.outputTable = node.outputTable!;
  if (Object.hasOwn(node, "error")) out.error = node.error!;
  if (Object.hasOwn(node, "updatedAtMs")) out.updatedAtMs = node.updatedAtMs!;
  if (attempts) out.attempts = attempts.filter((a) => a.nodeId === node.nodeId && a.iteration === node.iteration);
  return out;
}

/**
 * The approval row of a pending approval's fields (core/engine `pendingApprovalFields`, or
 * `listPendingApprovals`), keyed once `runId`, `nodeId` and `iteration` are there.
 * @example
 * approvalRowOf({ runId: "r1", nodeId: "ship", iteration: 0 }).key; // "r1/ship#0"
 */
export function approvalRowOf(approval: Partial<PendingApproval>): Partial<GatewayApprovalRow> {
  const { runId, nodeId, iteration } = approval;
  return runId !== undefined && nodeId !== undefined && iteration !== undefined ? { ...approval, key: runNodeKey({ runId, nodeId, iteration }) } : { ...approval };
}

/**
 * The prompt rows of a run's latest graph snapshot: one per task that gives its agent a prompt.
 * @example
 * promptRowsOf(await db.getFrame(runId)).map((p) => p.prompt);
 */
export function promptRowsOf(frame: Pick<GraphSnapshot, "runId" | "tasks"> | null | undefined): GatewayPromptRow[] {
  const rows: GatewayPromptRow[] = [];
  for (const t of frame?.tasks ?? []) {
    if (typeof t.prompt !== "string" || t.prompt.length === 0) continue;
    const at = { runId: frame!.runId, nodeId: t.nodeId, iteration: t.iteration };
    rows.push({ key: runNodeKey(at), ...at, label: t.label ?? null, prompt: t.prompt });
  }
  return rows;
}
