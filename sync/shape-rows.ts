/**
 * @module sync/shape-rows
 * Shape rows (the tables' snake_case columns, as Electric sends them) turned into the data
 * layer's row types, so a multiplayer collection holds exactly what a local one holds
 * (docs/multiplayer.md "Rows in every mode"). Electric sends partial rows — an update carries
 * the primary key and the changed columns, a delete the key alone — so each mapping sets only
 * the fields whose columns are present, and TanStack DB merges them into the stored row.
 * `int8` columns arrive as numbers (the shape parser below), JSON text columns are parsed.
 */
import type { GatewayApprovalRow, GatewayRunSummaryRow } from "../core/data/index.js";
import { runNodeKey } from "../core/data/index.js";
import { ANNOTATIONS } from "../core/api/index.js";

/** A row as a shape stream delivers it (after `SHAPE_PARSER`). */
export type ShapeRow = Record<string, unknown>;

/**
 * The parser of every shape: epoch-ms and other `int8` columns as numbers, like the domain
 * API's rows (the client's default would make them BigInt).
 * @example
 * new ShapeStream({ url, parser: SHAPE_PARSER });
 */
export const SHAPE_PARSER = { int8: (value: string) => Number(value) };

const json = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : (v ?? null));

/** Annotations the host records, kept out of `annotations` (core/api/read-model.ts HOST_ANNOTATIONS). */
const WORKFLOW_ANNOTATION = ANNOTATIONS.workflow;
const STARTED_BY_ANNOTATION = ANNOTATIONS.startedBy;

/**
 * A `_flow_runs` shape row (whole or partial) as a `GatewayRunSummaryRow` (whole or partial).
 * @example
 * runFromShape({ run_id: "r1", status: "finished" }); // { runId: "r1", status: "finished" }
 */
export function runFromShape(row: ShapeRow): Partial<GatewayRunSummaryRow> {
  const out: Partial<GatewayRunSummaryRow> & Record<string, unknown> = {};
  const has = (c: string) => Object.hasOwn(row, c);
  if (has("run_id")) {
    out.runId = row.run_id as string;
    // The shape serves neither claims nor attempts: a replicated row knows no owner and no usage
    // (docs/multiplayer.md "Rows"); the run page reads both from the member's Gateway.
    out.owner = null;
    out.usage = null;
  }
  if (has("workflow_name")) out.workflowName = (row.workflow_name as string | null) ?? null;
  if (has("status")) out.status = row.status as GatewayRunSummaryRow["status"];
  // The column is written with every status change (null unless paused), as the API reads it.
  if (has("pause_reason")) out.pauseReason = (row.pause_reason as GatewayRunSummaryRow["pauseReason"]) ?? null;
  if (has("parent_run_id")) out.parentRunId = (row.parent_run_id as string | null) ?? null;
  if (has("next_run_id")) out.nextRunId = (row.next_run_id as string | null) ?? null;
  if (has("error_json")) out.error = json(row.error_json) as GatewayRunSummaryRow["error"];
  if (has("input_json")) out.input = json(row.input_json);
  if (has("auth_json")) out.triggeredBy = ((json(row.auth_json) as { triggeredBy?: string } | null)?.triggeredBy as string | undefined) ?? null;
  if (has("annotations_json")) {
    const { [WORKFLOW_ANNOTATION]: workflow, [STARTED_BY_ANNOTATION]: startedBy, [ANNOTATIONS.cancelledBy]: _cancelledBy, ...annotations } = (json(row.annotations_json) ?? {}) as Record<string, string | number | boolean>;
    out.workflowKey = typeof workflow === "string" ? workflow : null;
    out.startedBy = typeof startedBy === "string" ? (JSON.parse(startedBy) as Record<string, unknown>) : null;
    out.annotations = annotations;
  }
  if (has("created_at_ms")) out.createdAtMs = Number(row.created_at_ms);
  if (has("updated_at_ms")) out.updatedAtMs = Number(row.updated_at_ms);
  if (has("finished_at_ms")) out.finishedAtMs = row.finished_at_ms === null ? null : Number(row.finished_at_ms);
  return out;
}

/**
 * A `_flow_waits` shape row (a pending approval or human task) as a `GatewayApprovalRow`.
 * @example
 * approvalFromShape({ run_id: "r1", node_id: "ship", iteration: 0 }).key; // "r1/ship#0"
 */
export function approvalFromShape(row: ShapeRow): Partial<GatewayApprovalRow> {
  const out: Partial<GatewayApprovalRow> = {};
  const has = (c: string) => Object.hasOwn(row, c);
  if (has("run_id")) out.runId = row.run_id as string;
  if (has("node_id")) out.nodeId = row.node_id as string;
  if (has("iteration")) out.iteration = Number(row.iteration);
  if (out.runId !== undefined && out.nodeId !== undefined && out.iteration !== undefined) out.key = runNodeKey({ runId: out.runId, nodeId: out.nodeId, iteration: out.iteration });
  if (has("kind")) out.kind = row.kind as GatewayApprovalRow["kind"];
  if (has("request_json")) out.request = (json(row.request_json) ?? {}) as Record<string, unknown>;
  if (has("created_at_ms")) out.createdAtMs = Number(row.created_at_ms);
  if (has("deadline_ms")) out.deadlineMs = row.deadline_ms === null ? null : Number(row.deadline_ms);
  return out;
}
