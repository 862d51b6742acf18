/**
 * @module core/api/read-model
 * The rows the domain API answers (`GatewayRunSummaryRow`, `GatewayRunRow`, ...), shaped for a
 * console: a run list with cursor paging, a run with its nodes, attempts and latest frame.
 * The fields are documented in docs/hosting.md "Rows".
 */
import { rollUpUsage } from "../agents/index.js";
import { bindingOf, ownerStateOf, type RunRecord, workflowNameOf } from "../engine/index.js";
import { toRun } from "../engine/internal.js";
import type { FlowWorkflow, RunAuthContext, RunStatus } from "../engine/index.js";
import type { RunRow } from "../engine/internal.js";
import { FlowError } from "../errors.js";
import { z } from "zod";
import type { GatewayHost } from "./host.js";
import { ANNOTATIONS } from "./contract.js";
import { type GatewayRunNode, nodeRowOf } from "./node-rows.js";
import type { runPageSchema, runRowSchema, runSummaryRowSchema, runUsageSummarySchema, workflowRowSchema } from "./results.js";
import { type RunRowContext, runAuthColumn, runRowOf, runSummaryOf } from "./run-rows.js";
import { usageMetasOf } from "./usage-metas.js";
import { TABLES } from "../protocol.js";

/** A run in a list (declared by its schema, core/api/results.ts `runSummaryRowSchema`). */
export type GatewayRunSummaryRow = z.infer<typeof runSummaryRowSchema>;

/** A run's agents' tokens and cost in a run row (`getRunUsage` has them per task). */
export type RunUsageSummary = z.infer<typeof runUsageSummarySchema>;

/** A run with everything a run page shows (`runRowSchema`). */
export type GatewayRunRow = z.infer<typeof runRowSchema>;

/** A registered workflow (`workflowRowSchema`). */
export type GatewayWorkflowRow = z.infer<typeof workflowRowSchema>;

/** A page of runs (`runPageSchema`). */
export type RunPage = z.infer<typeof runPageSchema>;

/** The filter of run lists. */
export interface RunFilter {
  status?: RunStatus;
  /** A workflow key (or workflow name). */
  workflow?: string;
  /** Default 50, at most 500. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

/**
 * The summary row of a stored run (core/api/run-rows.ts maps it, as every reader of runs).
 * @example
 * const row = summaryRow(host, await host.db.requireRun("r1"));
 */
export function summaryRow(host: GatewayHost, run: RunRecord, auth?: RunAuthContext | null): GatewayRunSummaryRow {
  return runSummaryOf(run, auth ?? null, hostRowContext(host)) as GatewayRunSummaryRow;
}

/**
 * Where a host reads its runs: the key it serves a run's workflow under, the owner judged by its clock and claims.
 * @example
 * runRowOf(columns, hostRowContext(host));
 */
export function hostRowContext(host: GatewayHost): RunRowContext {
  return { workflowKeyOf: (run) => host.workflowKeyOf(run as RunRecord), ownerOf: (run) => ownerStateOf(host.db.binding.env, run as RunRecord) };
}

/**
 * Runs, newest first, filtered and paged by an opaque cursor.
 * @example
 * const { runs, nextCursor } = await listRunRows(host, { status: "failed", limit: 20 });
 */
export async function listRunRows(host: GatewayHost, filter: RunFilter = {}): Promise<RunPage> {
  const limit = Math.max(1, Math.min(filter.limit ?? 50, 500));
  const where: string[] = [];
  const params: Array<string | number> = [];
  if (filter.status) {
    where.push("status = ?");
    params.push(filter.status);
  }
  if (filter.workflow) {
    const w = workflowRunFilter(host, filter.workflow);
    where.push(w.sql);
    params.push(...w.params);
  }
  if (filter.cursor) {
    const [ms, runId] = decodeCursor(filter.cursor);
    where.push("(created_at_ms < ? OR (created_at_ms = ? AND run_id < ?))");
    params.push(ms, ms, runId);
  }
  // One query for the page (10,000 runs load in 20 pages: docs/performance.md "Live collections").
  const rows = await host.db.store.query<RunRow & Record<string, unknown>>(
    `SELECT * FROM ${TABLES.runs} ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at_ms DESC, run_id DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const ctx = hostRowContext(host);
  const runs = rows.slice(0, limit).map((r) => runRowOf(r, ctx) as GatewayRunSummaryRow);
  const usage = await runUsages(host, runs.map((r) => r.runId));
  for (const r of runs) r.usage = usage.get(r.runId) ?? null;
  const last = runs[runs.length - 1];
  return { runs, nextCursor: rows.length > limit && last ? encodeCursor(last.createdAtMs, last.runId) : null };
}

/**
 * The SQL condition on `_flow_runs` that selects the runs of a workflow key: annotated with the
 * key by the host that launched them, or of the served workflow's name (runs `flow up` started).
 * @example
 * const w = workflowRunFilter(host, "assistant");
 * await host.db.store.query(`SELECT run_id FROM _flow_runs WHERE ${w.sql}`, w.params);
 */
export function workflowRunFilter(host: GatewayHost, workflow: string): { sql: string; params: string[] } {
  const served = host.listWorkflows().find((w) => w.key === workflow)?.workflow;
  const name = served ? workflowNameOf(served, bindingOf(served)) : null;
  const escaped = JSON.stringify({ [ANNOTATIONS.workflow]: workflow }).slice(1, -1).replace(/[\\%_]/g, (c) => `\\${c}`);
  return { sql: `(annotations_json LIKE ? ESCAPE '\\' OR workflow_name = ?)`, params: [`%${escaped}%`, name ?? workflow] };
}

/**
 * A run with its nodes, attempts, latest frame number and last event seq; RUN_NOT_FOUND when unknown.
 * @example
 * const run = await runRow(host, "r1");
 * for (const node of run.nodes) console.log(node.nodeId, node.state, node.attempts.length);
 */
export async function runRow(host: GatewayHost, runId: string): Promise<GatewayRunRow> {
  const db = host.db;
  const { run, auth } = await storedRun(host, runId);
  const [nodes, attempts, frame, seq, usage] = await Promise.all([
    db.listNodes(runId),
    db.listAttempts(runId),
    db.store.query(`SELECT MAX(frame_no) AS n FROM ${TABLES.frames} WHERE run_id = ?`, [runId]),
    db.store.query(`SELECT MAX(seq) AS n FROM ${TABLES.events} WHERE run_id = ?`, [runId]),
    runUsages(host, [runId]),
  ]);
  return {
    ...summaryRow(host, run, auth),
    usage: usage.get(runId) ?? null,
    output: run.output,
    auth,
    nodes: nodes.map((n) => nodeRowOf(n, attempts) as GatewayRunNode),
    frameNo: Number(frame[0]?.n ?? 0),
    lastSeq: Number(seq[0]?.n ?? 0),
  };
}

/**
 * The summary row of one run (what a run list shows; two reads, no nodes): the data layer's
 * refresh of a changed run. RUN_NOT_FOUND when unknown.
 * @example
 * const row = await runSummary(host, "r1"); // { runId, status, workflowKey, ... }
 */
export async function runSummary(host: GatewayHost, runId: string): Promise<GatewayRunSummaryRow> {
  const [{ run, auth }, usage] = await Promise.all([storedRun(host, runId), runUsages(host, [runId])]);
  return { ...summaryRow(host, run, auth), usage: usage.get(runId) ?? null };
}

/** Tokens and cost of runs' agent attempts, each run's child runs included; runs without usage are absent. */
async function runUsages(host: GatewayHost, runIds: readonly string[]): Promise<Map<string, RunUsageSummary>> {
  const out = new Map<string, RunUsageSummary>();
  for (const [id, list] of await usageMetasOf(host, runIds)) {
    const { inputTokens, outputTokens, totalTokens, costUsd, attempts } = rollUpUsage(list);
    if (attempts) out.set(id, { attempts, ...(inputTokens !== undefined ? { inputTokens } : {}), ...(outputTokens !== undefined ? { outputTokens } : {}), ...(totalTokens !== undefined ? { totalTokens } : {}), ...(costUsd !== undefined ? { costUsd } : {}) });
  }
  return out;
}

async function storedRun(host: GatewayHost, runId: string): Promise<{ run: RunRecord; auth: RunAuthContext | null }> {
  const [row] = await host.db.store.query<RunRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
  if (!row) throw new FlowError("RUN_NOT_FOUND", `Run ${runId} does not exist.`, { runId });
  return { run: toRun(row), auth: runAuthColumn(row) };
}

/**
 * The row of a registered workflow, with its input JSON Schema.
 * @example
 * host.listWorkflows().map(({ key, workflow }) => workflowRow(key, workflow));
 */
export function workflowRow(key: string, workflow: FlowWorkflow): GatewayWorkflowRow {
  const registry = workflow.schemaRegistry ?? {};
  const input = registry.input?.schema;
  return {
    key,
    name: workflowNameOf(workflow, bindingOf(workflow)),
    description: workflow.description ?? null,
    inputSchema: input ? (z.toJSONSchema(input as z.ZodType, { unrepresentable: "any" }) as Record<string, unknown>) : null,
    outputs: Object.keys(registry).filter((k) => k !== "input"),
  };
}

function encodeCursor(ms: number, runId: string): string {
  return `${ms}~${runId}`;
}

function decodeCursor(cursor: string): [number, string] {
  const at = cursor.indexOf("~");
  const ms = Number(cursor.slice(0, at));
  if (at < 1 || !Number.isFinite(ms)) throw new FlowError("INVALID_ARGUMENT", `"${cursor}" is not a run-list cursor; pass the nextCursor of the previous page.`, { cursor });
  return [ms, cursor.slice(at + 1)];
}
