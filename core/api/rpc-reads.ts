/**
 * @module core/api/rpc-reads
 * Read RPC methods: getRun, listRuns, listWorkflows, getNodeOutput, getNodeDiff, getFileDiff and getRunDiff
 * (what an attempt or a run changed in its workspace, from time travel's snapshots),
 * whatHappened, listPrompts, getRunUsage and getTranscript (agents' tokens, cost and transcripts). Rows are those of core/api/read-model.ts.
 */
import { z } from "zod";
import type { TranscriptAttempt } from "../agents/index.js";
import { FlowDb, type RunUsage } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { quoteIdent } from "../store/index.js";
import { attemptDiff, attemptFileDiff, type FileDiff, runDiff, type WorkspaceDiff } from "../time-travel/index.js";
import type { GatewayHost } from "./host.js";
import { type GatewayPromptRow, promptRowsOf } from "./node-rows.js";
import { type GatewayRunRow, type GatewayWorkflowRow, listRunRows, type RunPage, runRow, workflowRow } from "./read-model.js";
import { runPageSchema, runRowSchema, workflowRowSchema } from "./results.js";
import { fileDiffSchema, nodeOutputResultSchema, promptRowSchema, runUsageSchema, transcriptAttemptSchema, whatHappenedSchema, workspaceDiffSchema } from "./results-reads.js";
import type { RpcMethod } from "./rpc-types.js";
import { type WhatHappened, whatHappened } from "./what-happened.js";

const RUN_STATUSES = ["running", "waiting-approval", "waiting-event", "waiting-timer", "waiting-quota", "paused", "finished", "continued", "failed", "cancelled"] as const;

const listRunsParams = z.object({
  status: z.enum(RUN_STATUSES).optional(),
  workflow: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(500).optional(),
  cursor: z.string().min(1).optional(),
});

const runIdParams = z.object({ runId: z.string().min(1) });

/** A task's output row (`row` null while the task has none; `nodeOutputResultSchema`). */
export type NodeOutputResult = z.infer<typeof nodeOutputResultSchema>;

async function nodeOutput(host: GatewayHost, p: { runId: string; nodeId: string; iteration?: number | undefined }): Promise<NodeOutputResult> {
  const run = await host.db.requireRun(p.runId);
  const nodes = (await host.db.listNodes(p.runId)).filter((n) => n.nodeId === p.nodeId);
  const node = p.iteration === undefined ? nodes.sort((a, b) => b.iteration - a.iteration)[0] : nodes.find((n) => n.iteration === p.iteration);
  if (!node) throw new FlowError("NODE_NOT_FOUND", `Run ${p.runId} has no node "${p.nodeId}"${p.iteration === undefined ? "" : ` at iteration ${p.iteration}`}; getRun lists its nodes.`, { runId: p.runId, nodeId: p.nodeId });
  const base = { runId: p.runId, nodeId: node.nodeId, iteration: node.iteration, table: node.outputTable };
  if (!node.outputTable) return { ...base, row: null };
  const key = host.workflowKeyOf(run);
  const db = key ? new FlowDb((await host.resolveWorkflow(key)).workflow) : host.db;
  if (db.registry.entries.size > 0 && [...db.registry.entries.values()].some((e) => e.tableName === node.outputTable || e.key === node.outputTable)) {
    const row = (await db.listOutputs(p.runId, node.outputTable)).find((r) => r.nodeId === node.nodeId && r.iteration === node.iteration);
    return { ...base, row: row ?? null };
  }
  const [raw] = await db.store.query(`SELECT * FROM ${quoteIdent(node.outputTable)} WHERE run_id = ? AND node_id = ? AND iteration = ?`, [p.runId, node.nodeId, node.iteration]);
  return { ...base, row: raw ?? null };
}

async function prompts(host: GatewayHost, p: { runId?: string | undefined; limit?: number | undefined }): Promise<GatewayPromptRow[]> {
  const runIds = p.runId ? [(await host.db.requireRun(p.runId)).runId] : (await host.db.listRuns({ limit: p.limit ?? 20 })).map((r) => r.runId);
  const rows: GatewayPromptRow[] = [];
  for (const runId of runIds) rows.push(...promptRowsOf(await host.db.getFrame(runId)));
  return rows;
}

export const READ_METHODS = {
  getRun: { scope: "run:read", params: runIdParams, result: runRowSchema, handler: (p, _c, host) => runRow(host, p.runId) } as RpcMethod<{ runId: string }, GatewayRunRow>,
  listRuns: { scope: "run:read", params: listRunsParams, result: runPageSchema, handler: (p, _c, host) => listRunRows(host, p) } as RpcMethod<z.infer<typeof listRunsParams>, RunPage>,
  listWorkflows: {
    scope: "run:read",
    params: z.object({}),
    result: z.array(workflowRowSchema),
    handler: async (_p, _c, host) => host.listWorkflows().map((w) => workflowRow(w.key, w.workflow)),
  } as RpcMethod<Record<string, never>, GatewayWorkflowRow[]>,
  getNodeOutput: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1), nodeId: z.string().min(1), iteration: z.number().int().min(0).optional() }),
    result: nodeOutputResultSchema,
    handler: (p, _c, host) => nodeOutput(host, p),
  } as RpcMethod<{ runId: string; nodeId: string; iteration?: number | undefined }, NodeOutputResult>,
  getNodeDiff: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1), nodeId: z.string().min(1), iteration: z.number().int().min(0).optional(), attempt: z.number().int().min(1).optional() }),
    result: workspaceDiffSchema,
    handler: async (p, _c, host) => attemptDiff(host.db, { runId: (await host.db.requireRun(p.runId)).runId, nodeId: p.nodeId, ...(p.iteration !== undefined ? { iteration: p.iteration } : {}), ...(p.attempt !== undefined ? { attempt: p.attempt } : {}) }),
  } as RpcMethod<{ runId: string; nodeId: string; iteration?: number | undefined; attempt?: number | undefined }, WorkspaceDiff>,
  /** How a task attempt changed one file: its unified diff (docs/time-travel.md, "Diffs"). */
  getFileDiff: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1), nodeId: z.string().min(1), path: z.string().min(1), iteration: z.number().int().min(0).optional(), attempt: z.number().int().min(1).optional() }),
    result: fileDiffSchema,
    handler: async (p, _c, host) =>
      attemptFileDiff(host.db, { runId: (await host.db.requireRun(p.runId)).runId, nodeId: p.nodeId, path: p.path, ...(p.iteration !== undefined ? { iteration: p.iteration } : {}), ...(p.attempt !== undefined ? { attempt: p.attempt } : {}) }),
  } as RpcMethod<{ runId: string; nodeId: string; path: string; iteration?: number | undefined; attempt?: number | undefined }, FileDiff>,
  getRunDiff: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1), toWorkingTree: z.boolean().optional() }),
    result: workspaceDiffSchema,
    handler: async (p, _c, host) => runDiff(host.db, { runId: (await host.db.requireRun(p.runId)).runId, ...(p.toWorkingTree ? { toWorkingTree: true } : {}) }),
  } as RpcMethod<{ runId: string; toWorkingTree?: boolean | undefined }, WorkspaceDiff>,
  whatHappened: { scope: "run:read", params: runIdParams, result: whatHappenedSchema, handler: (p, _c, host) => whatHappened(host.db, p.runId) } as RpcMethod<{ runId: string }, WhatHappened>,
  /** Tokens and cost of a run's agents, its child runs included, in total and per task (docs/agents.md, "Cost"). */
  getRunUsage: {
    scope: "run:read",
    params: runIdParams,
    result: runUsageSchema,
    handler: async (p, _c, host) => host.db.getRunUsage((await host.db.requireRun(p.runId)).runId),
  } as RpcMethod<{ runId: string }, RunUsage>,
  /** A task's agent transcript so far, per attempt (docs/agents.md, "Transcripts"). */
  getTranscript: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1), nodeId: z.string().min(1) }),
    result: z.array(transcriptAttemptSchema),
    handler: async (p, _c, host) => host.db.getTranscript((await host.db.requireRun(p.runId)).runId, p.nodeId),
  } as RpcMethod<{ runId: string; nodeId: string }, TranscriptAttempt[]>,
  listPrompts: {
    scope: "run:read",
    params: z.object({ runId: z.string().min(1).optional(), limit: z.number().int().min(1).max(200).optional() }),
    result: z.array(promptRowSchema),
    handler: (p, _c, host) => prompts(host, p),
  } as RpcMethod<{ runId?: string | undefined; limit?: number | undefined }, GatewayPromptRow[]>,
} satisfies Record<string, RpcMethod<any, any>>;
