/**
 * @module core/api/run-rows
 * The one mapping of a `_flow_runs` row to the run row a console shows
 * (`GatewayRunSummaryRow`), whoever reads the row: the Gateway's read model
 * (core/api/read-model.ts) over its store, the browser worker's (the same handler over
 * PGlite), and a team workspace's Electric `runs` shape (sync/shape-rows.ts), so the three
 * workspace kinds cannot drift (docs/architecture.md "One row, one mapper"). The columns
 * become a `RunRecord` in `toRun` (core/engine/flow-db.ts), the record a row here; what
 * depends on where the row is read is the `RunRowContext`: which workflow key a run has and
 * whether its owner is alive.
 */
import { type RunRecord, toRun } from "../engine/flow-db.js";
import { ownerStateOf } from "../engine/run-control.js";
import type { RunRow } from "../engine/run-sql.js";
import type { RunAuthContext } from "../engine/types.js";
import type { RuntimeEnv } from "../engine/world.js";
import { ANNOTATIONS } from "./contract.js";
import type { GatewayRunSummaryRow } from "./read-model.js";

/** A `_flow_runs` row as stored (`SELECT *`) or as a shape serves it (the columns `TEAM_SHAPES.runs` names). */
export type RunColumns = RunRow & Record<string, unknown>;

/**
 * What a run row depends on besides its columns.
 * @example
 * const ctx: RunRowContext = { workflowKeyOf: (run) => annotatedWorkflowKey(run) ?? null, env: createDefaultEnv() };
 */
export interface RunRowContext {
  /** The key of the run's workflow where the row is read (null when not known there). */
  workflowKeyOf(run: RunRecord): string | null | undefined;
  /** The clock and claim settings `owner` is judged with (core/engine/run-control.ts `ownerStateOf`). */
  env: Pick<RuntimeEnv, "clock" | "claimStaleMs" | "isOwnerAlive">;
}

/**
 * The workflow key the host recorded on a run when it launched it (`ANNOTATIONS.workflow`), if any.
 * @example
 * annotatedWorkflowKey(run); // "release"
 */
export function annotatedWorkflowKey(run: Pick<RunRecord, "annotations">): string | undefined {
  const key = run.annotations?.[ANNOTATIONS.workflow];
  return typeof key === "string" ? key : undefined;
}

/**
 * The run row of a stored run (`auth`: the run's `auth_json`, parsed).
 * @example
 * const row = runSummaryOf(await db.requireRun("r1"), null, { workflowKeyOf: (r) => host.workflowKeyOf(r), env });
 */
export function runSummaryOf(run: RunRecord, auth: RunAuthContext | null, ctx: RunRowContext): GatewayRunSummaryRow {
  const { [ANNOTATIONS.workflow]: _w, [ANNOTATIONS.startedBy]: startedBy, ...annotations } = run.annotations ?? {};
  return {
    runId: run.runId,
    workflowKey: ctx.workflowKeyOf(run) ?? null,
    workflowName: run.workflowName,
    status: run.status,
    owner: ownerStateOf(ctx.env, run),
    parentRunId: run.parentRunId,
    nextRunId: run.nextRunId,
    error: run.error,
    triggeredBy: auth?.triggeredBy ?? null,
    startedBy: typeof startedBy === "string" ? (JSON.parse(startedBy) as Record<string, unknown>) : null,
    annotations,
    input: run.input,
    createdAtMs: run.createdAtMs,
    updatedAtMs: run.updatedAtMs,
    finishedAtMs: run.finishedAtMs,
    pauseReason: run.pauseReason,
  };
}

/**
 * The run row of a `_flow_runs` row's columns.
 * @example
 * const [row] = await store.query(`SELECT * FROM _flow_runs WHERE run_id = ?`, ["r1"]);
 * runRowOf(row, ctx).status; // "finished"
 */
export function runRowOf(columns: RunColumns, ctx: RunRowContext): GatewayRunSummaryRow {
  return runSummaryOf(toRun(columns), runAuthOf(columns), ctx);
}

/**
 * The `auth_json` column of a run, parsed.
 * @example
 * runAuthOf(row)?.triggeredBy; // "ana"
 */
export function runAuthOf(columns: Pick<RunRow, "auth_json">): RunAuthContext | null {
  const v = columns.auth_json;
  return v === null || v === undefined ? null : (JSON.parse(String(v)) as RunAuthContext | null);
}

/**
 * The key of a row that is one iteration of a node (`GatewayRunNode.key`).
 * @example
 * nodeKey({ nodeId: "ship", iteration: 0 }); // "ship#0"
 */
export function nodeKey(row: { nodeId: string; iteration: number }): string {
  return `${row.nodeId}#${row.iteration}`;
}

/**
 * The key of a row of a node iteration of a run (approvals, prompts, tickets).
 * @example
 * runNodeKey({ runId: "r1", nodeId: "ship", iteration: 0 }); // "r1/ship#0"
 */
export function runNodeKey(row: { runId: string; nodeId: string; iteration: number }): string {
  return `${row.runId}/${nodeKey(row)}`;
}
