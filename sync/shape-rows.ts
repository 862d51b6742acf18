/**
 * @module sync/shape-rows
 * Shape rows (the tables' snake_case columns, as Electric sends them) turned into the data
 * layer's row types, so a multiplayer collection holds exactly what a local one holds
 * (docs/multiplayer.md "Rows in every mode"). Electric sends partial rows — an update carries
 * the primary key and the changed columns, a delete the key alone — so each mapping sets only
 * the fields whose columns are present, and TanStack DB merges them into the stored row.
 * Every row is mapped by the Gateway read model's own mapper (core/api/run-rows.ts,
 * core/api/node-rows.ts over core/engine/row-fields.ts), so a shape adds nothing by hand.
 * `int8` columns arrive as numbers (the shape parser below), JSON text columns are parsed.
 */
import type { GatewayApprovalRow, GatewayRunNode, GatewayRunSummaryRow } from "../core/data/index.js";
import { annotatedWorkflowKey, approvalRowOf, nodeRowOf, type RunRowContext, runRowOf } from "../core/api/wire/index.js";
import { nodeFields, pendingApprovalFields } from "../core/engine/rows/index.js";

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
 * recorded, else the key of the workspace's workflow of the run's name (as a Gateway knows a
 * run another process started, core/api/local-host.ts `workflowKeyOf`). The shape serves no
 * claims: a replicated row knows no owner (docs/multiplayer.md "Rows").
 * @example
 * const ctx = shapeRowContext((name) => workflows.find((w) => w.name === name)?.key);
 */
export function shapeRowContext(workflowKeyOfName: (name: string) => string | undefined = () => undefined): RunRowContext {
  return {
    workflowKeyOf: (run) => annotatedWorkflowKey(run) ?? (run.workflowName === null ? undefined : workflowKeyOfName(run.workflowName)),
    ownerOf: () => null,
  };
}

/**
 * A `_flow_runs` shape row (whole or partial) as a `GatewayRunSummaryRow` (whole or partial),
 * by the mapper the Gateway's read model uses (core/api/run-rows.ts).
 * @example
 * runFromShape({ run_id: "r1", status: "finished" }); // { runId: "r1", status: "finished", owner: null, usage: null }
 */
export function runFromShape(row: ShapeRow, ctx: RunRowContext = shapeRowContext()): Partial<GatewayRunSummaryRow> {
  const out = runRowOf(row, ctx);
  // Nor does it serve attempts: the run page reads usage from the member's Gateway.
  if (Object.hasOwn(row, "run_id")) out.usage = null;
  return out;
}

/**
 * A `_flow_waits` shape row (a pending approval or human task, whole or partial) as a
 * `GatewayApprovalRow`, by the mapper `listApprovals` answers with (core/engine
 * `pendingApprovalFields`, core/api `approvalRowOf`).
 * @example
 * approvalFromShape({ run_id: "r1", node_id: "ship", iteration: 0 }).key; // "r1/ship#0"
 */
export function approvalFromShape(row: ShapeRow): Partial<GatewayApprovalRow> {
  return approvalRowOf(pendingApprovalFields(row));
}

/** A node row of the workspace's `nodes` shape: the run's node row and the run it belongs to. */
export type ShapeNodeRow = Partial<GatewayRunNode> & { runId?: string };

/**
 * A `_flow_nodes` shape row (whole or partial) as the node row a run's `getRun` gives
 * (core/api `nodeRowOf`), with its `runId`. The shape serves no attempts (its `attempts`
 * column is a count): the row has none, the run page reads them from the member's Gateway.
 * @example
 * nodeFromShape({ run_id: "r1", node_id: "ship", iteration: 0, state: "finished" }); // { key: "ship#0", runId: "r1", nodeId: "ship", iteration: 0, state: "finished" }
 */
export function nodeFromShape(row: ShapeRow): ShapeNodeRow {
  const out: ShapeNodeRow = nodeRowOf(nodeFields(row));
  if (Object.hasOwn(row, "run_id")) out.runId = String(row.run_id);
  return out;
}
