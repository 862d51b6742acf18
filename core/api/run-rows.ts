/**
 * @module core/api/run-rows
 * The one mapping of `_flow_runs` columns to the run row a console shows
 * (`GatewayRunSummaryRow`), whoever reads them: the Gateway's read model over its store
 * (core/api/read-model.ts; the browser worker serves the same handler over PGlite), a team
 * workspace's Electric `runs` shape (sync/shape-rows.ts), and the optimistic row of a launch
 * (core/data/writes.ts), so the workspace kinds cannot drift (docs/architecture.md "One row,
 * one mapper"). Columns become `RunRecord` fields in core/engine/flow-db.ts (`runFields`);
 * fields become the row here. A partial row (an Electric update carries the key and the
 * changed columns) maps to the fields of those columns only; TanStack DB merges them into
 * the stored row. What depends on where a row is read is the `RunRowContext`: which key the
 * run's workflow has there, and whether the run's owner is alive.
 */
import type { RunAuthContext, RunRecord } from "../engine/index.js";
import type { RunRow } from "../engine/internal.js";
import { runFields } from "../engine/rows/index.js";
import { ANNOTATIONS } from "./contract.js";
import type { GatewayRunSummaryRow } from "./read-model.js";

/** A `_flow_runs` row as stored (`SELECT *`), or the columns a shape message carries. */
export type RunColumns = Partial<RunRow> & Record<string, unknown>;

/**
 * What a run row depends on besides its columns.
 * @example
 * const ctx: RunRowContext = { workflowKeyOf: (run) => annotatedWorkflowKey(run) ?? null, ownerOf: () => null };
 */
export interface RunRowContext {
  /** The key of the run's workflow where the row is read (null or undefined: not known there). */
  workflowKeyOf(run: Pick<RunRecord, "annotations" | "workflowName" | "input">): string | null | undefined;
  /** Whether the process executing the run is there (`GatewayRunSummaryRow.owner`). */
  ownerOf(run: Partial<RunRecord>): GatewayRunSummaryRow["owner"];
}

/**
 * The workflow key the host recorded on a run when it launched it (`ANNOTATIONS.workflow`), if any.
 * @example
 * annotatedWorkflowKey({ annotations: { "flow:workflow": "release" } }); // "release"
 */
export function annotatedWorkflowKey(run: Pick<RunRecord, "annotations">): string | undefined {
  const key = run.annotations?.[ANNOTATIONS.workflow];
  return typeof key === "string" ? key : undefined;
}

/**
 * The run row of a `_flow_runs` row's columns: whole for a stored row, the fields of the
 * columns present for a partial one.
 * @example
 * const [cols] = await store.query(`SELECT * FROM _flow_runs WHERE run_id = ?`, ["r1"]);
 * runRowOf(cols, ctx).status; // "finished"
 */
export function runRowOf(columns: RunColumns, ctx: RunRowContext): Partial<GatewayRunSummaryRow> {
  return runSummaryOf(runFields(columns), Object.hasOwn(columns, "auth_json") ? runAuthColumn(columns) : undefined, ctx);
}

/**
 * The run row of a stored run's fields (`auth`: its parsed `auth_json`; undefined when not
 * known, which leaves `triggeredBy` out). Whole fields give a whole row.
 * @example
 * const row = runSummaryOf(await db.requireRun("r1"), null, ctx) as GatewayRunSummaryRow;
 */
export function runSummaryOf(run: Partial<RunRecord>, auth: RunAuthContext | null | undefined, ctx: RunRowContext): Partial<GatewayRunSummaryRow> {
  const out: Partial<GatewayRunSummaryRow> = {};
  const has = (field: keyof RunRecord) => Object.hasOwn(run, field);
  if (has("runId")) out.runId = run.runId!;
  if (has("annotations")) {
    const { [ANNOTATIONS.workflow]: _w, [ANNOTATIONS.startedBy]: startedBy, [ANNOTATIONS.cancelledBy]: _c, ...annotations } = run.annotations ?? {};
    out.workflowKey = ctx.workflowKeyOf({ annotations: run.annotations ?? null, workflowName: run.workflowName ?? null, input: run.input }) ?? null;
    out.startedBy = typeof startedBy === "string" ? (JSON.parse(startedBy) as Record<string, unknown>) : null;
    out.annotations = annotations;
  }
  if (has("workflowName")) out.workflowName = run.workflowName!;
  if (has("status")) {
    out.status = run.status!;
    out.owner = ctx.ownerOf(run);
  }
  if (has("parentRunId")) out.parentRunId = run.parentRunId!;
  if (has("nextRunId")) out.nextRunId = run.nextRunId!;
  if (has("error")) out.error = run.error!;
  if (auth !== undefined) out.triggeredBy = auth?.triggeredBy ?? null;
  if (has("input")) out.input = run.input;
  if (has("createdAtMs")) out.createdAtMs = run.createdAtMs!;
  if (has("updatedAtMs")) out.updatedAtMs = run.updatedAtMs!;
  if (has("finishedAtMs")) out.finishedAtMs = run.finishedAtMs!;
  if (has("pauseReason")) out.pauseReason = run.pauseReason!;
  return out;
}

/**
 * The `auth_json` column of a run, parsed.
 * @example
 * runAuthColumn({ auth_json: '{"triggeredBy":"ana"}' })?.triggeredBy; // "ana"
 */
export function runAuthColumn(columns: Pick<RunColumns, "auth_json">): RunAuthContext | null {
  const v = columns.auth_json;
  return v === null || v === undefined ? null : typeof v === "string" ? (JSON.parse(v) as RunAuthContext | null) : (v as RunAuthContext);
}
