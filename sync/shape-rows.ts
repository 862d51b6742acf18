/**
 * @module sync/shape-rows
 * Shape rows (the tables' snake_case columns, as Electric sends them) turned into the data
 * layer's row types by the same mappers the domain API reads its store with
 * (core/api/run-rows.ts `runRowOf`, core/engine/waits/deliver.ts `pendingApprovalOf`), so a
 * multiplayer collection holds exactly what a local one holds (docs/multiplayer.md "Rows in
 * every mode"). The proxy asks Electric for whole rows (`replica=full`, sync/sync-proxy.ts):
 * every insert, update and delete carries every column the shape serves, which is what a
 * mapper of whole rows needs. `int8` columns arrive as numbers (the shape parser below).
 */
import { annotatedWorkflowKey, type RunColumns, type RunRowContext, runNodeKey, runRowOf } from "../core/api/run-rows.js";
import type { GatewayApprovalRow, GatewayRunSummaryRow } from "../core/data/rows.js";
import { pendingApprovalOf } from "../core/engine/waits/deliver.js";
import type { WaitRow } from "../core/engine/waits/wait-sql.js";
import { createDefaultEnv } from "../core/engine/world.js";

/** A row as a shape stream delivers it (after `SHAPE_PARSER`). */
export type ShapeRow = Record<string, unknown>;

/**
 * The parser of every shape: epoch-ms and other `int8` columns as numbers, like the domain
 * API's rows (the client's default would make them BigInt).
 * @example
 * new ShapeStream({ url, parser: SHAPE_PARSER });
 */
export const SHAPE_PARSER = { int8: (value: string) => Number(value) };

/**
 * Where a browser reads a workspace's run rows: the workflow key the launching Gateway
 * recorded, else the key of a workflow of `workflowKeyOfName` (the workspace's workflows by
 * name, as a Gateway recognises a run another process started); `owner` judged with this
 * browser's clock and the default claim settings (30 s), without a process check.
 * @example
 * const ctx = shapeRowContext((name) => workflows.find((w) => w.name === name)?.key);
 */
export function shapeRowContext(workflowKeyOfName: (name: string) => string | undefined = () => undefined): RunRowContext {
  return {
    workflowKeyOf: (run) => annotatedWorkflowKey(run) ?? (run.workflowName === null ? undefined : workflowKeyOfName(run.workflowName)),
    env: createDefaultEnv(),
  };
}

/**
 * A `_flow_runs` shape row as a `GatewayRunSummaryRow`.
 * @example
 * runFromShape(row, shapeRowContext()).status; // "finished"
 */
export function runFromShape(row: ShapeRow, ctx: RunRowContext = shapeRowContext()): GatewayRunSummaryRow {
  return runRowOf(row as RunColumns, ctx);
}

/**
 * A `_flow_waits` shape row (a pending approval or human task) as a `GatewayApprovalRow`.
 * @example
 * approvalFromShape({ run_id: "r1", node_id: "ship", iteration: 0, ... }).key; // "r1/ship#0"
 */
export function approvalFromShape(row: ShapeRow): GatewayApprovalRow {
  const approval = pendingApprovalOf(row as unknown as WaitRow);
  return { ...approval, key: runNodeKey(approval) };
}
