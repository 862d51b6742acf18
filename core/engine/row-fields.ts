/**
 * @module core/engine/row-fields
 * The one reading of `_flow_nodes`, `_flow_waits` and `_flow_events` columns into their
 * record fields, and of `_flow_runs` into `RunRecord` (`toRun`, `runFields`): each field names
 * the column it is read from and how. A stored row (`SELECT *`) gives every field; a partial
 * row (an Electric update carries the primary key and the changed columns) gives the fields
 * of its columns only. The Gateway's read model (and so the browser worker, which serves the
 * same handler over PGlite) and a team workspace's shapes (sync/shape-rows.ts) both read
 * columns here, so the workspace kinds cannot drift (docs/architecture.md "One row, one mapper").
 */
import type { FlowEvent } from "./events.js";
import type { NodeRecord, RunRecord } from "./flow-db.js";
import type { RunRow } from "./run-sql.js";
import type { NodeState, PauseReason } from "./types.js";
import type { PendingApproval } from "./waits/deliver.js";
import type { WaitKind } from "./waits/spec.js";
import type { WaitStatus } from "./waits/wait-sql.js";

/** Columns of a stored row, or the columns a shape message carries. */
export type Columns = Record<string, unknown>;

/** A nullable number column (`int8` may arrive as text). */
export const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
/** A nullable JSON text column (a shape may deliver it parsed already). */
export const parse = <T>(v: unknown): T => (v === null || v === undefined ? (null as T) : typeof v === "string" ? (JSON.parse(v) as T) : (v as T));

type FieldTable<T> = { [K in keyof T]-?: readonly [column: string, read: (r: Columns) => T[K]] };

function fieldsOf<T>(table: FieldTable<T>, r: Columns): Partial<T> {
  const out: Partial<T> = {};
  for (const field of Object.keys(table) as Array<keyof T>) {
    const [column, read] = table[field];
    if (Object.hasOwn(r, column)) out[field] = read(r);
  }
  return out;
}

const NODE_FIELDS: FieldTable<NodeRecord> = {
  nodeId: ["node_id", (r) => String(r.node_id)],
  iteration: ["iteration", (r) => Number(r.iteration)],
  state: ["state", (r) => r.state as NodeState],
  ordinal: ["ordinal", (r) => num(r.ordinal)],
  label: ["label", (r) => (r.label as string | null) ?? null],
  outputTable: ["output_table", (r) => (r.output_table as string | null) ?? null],
  attempts: ["attempts", (r) => Number(r.attempts)],
  error: ["error_json", (r) => parse(r.error_json)],
  updatedAtMs: ["updated_at_ms", (r) => Number(r.updated_at_ms)],
};

/**
 * The `NodeRecord` fields of a `_flow_nodes` row's columns (all of them for a stored row).
 * @example
 * nodeFields({ run_id: "r1", node_id: "ship", iteration: 0, state: "finished" }); // { nodeId: "ship", iteration: 0, state: "finished" }
 */
export function nodeFields(r: Columns): Partial<NodeRecord> {
  return fieldsOf(NODE_FIELDS, r);
}

/** A wait as its row stores it: `_flow_waits` columns read (the API's `WaitInfo`). */
export interface WaitFields {
  runId: string;
  nodeId: string;
  iteration: number;
  kind: WaitKind;
  status: WaitStatus;
  /** A signal's id or an event's name (null for other kinds). */
  name: string | null;
  correlationId: string | null;
  /**
   * What the wait asks for: an approval's `request`, `mode`, `options`, `allowedScopes`,
   * `allowedUsers`; a signal's or event's payload `schema`; a human task's `prompt` and
   * `outputTable`, with `schema` (the JSON Schema of its row) when this host serves its workflow.
   */
  request: Record<string, unknown>;
  /** What was delivered (an approval's decision with `decidedBy`), null while pending. */
  resolution: Record<string, unknown> | null;
  resolvedBy: string | null;
  createdAtMs: number;
  resolvedAtMs: number | null;
  deadlineMs: number | null;
}

const WAIT_FIELDS: FieldTable<WaitFields> = {
  runId: ["run_id", (r) => String(r.run_id)],
  nodeId: ["node_id", (r) => String(r.node_id)],
  iteration: ["iteration", (r) => Number(r.iteration)],
  kind: ["kind", (r) => r.kind as WaitKind],
  status: ["status", (r) => r.status as WaitStatus],
  name: ["name", (r) => (r.name as string | null) ?? null],
  correlationId: ["correlation_id", (r) => (r.correlation_id as string | null) ?? null],
  request: ["request_json", (r) => parse<Record<string, unknown> | null>(r.request_json) ?? {}],
  resolution: ["resolution_json", (r) => parse<Record<string, unknown> | null>(r.resolution_json)],
  resolvedBy: ["resolved_by", (r) => (r.resolved_by as string | null) ?? null],
  createdAtMs: ["created_at_ms", (r) => Number(r.created_at_ms)],
  resolvedAtMs: ["resolved_at_ms", (r) => num(r.resolved_at_ms)],
  deadlineMs: ["deadline_ms", (r) => num(r.deadline_ms)],
};

/**
 * The fields of a `_flow_waits` row's columns (all of them for a stored row).
 * @example
 * waitFields({ run_id: "r1", node_id: "ship", iteration: 0, request_json: '{"title":"Ship?"}' }).request; // { title: "Ship?" }
 */
export function waitFields(r: Columns): Partial<WaitFields> {
  return fieldsOf(WAIT_FIELDS, r);
}

const APPROVAL_FIELDS = ["runId", "nodeId", "iteration", "kind", "request", "createdAtMs", "deadlineMs"] as const satisfies ReadonlyArray<keyof PendingApproval>;

/**
 * The `PendingApproval` fields of a `_flow_waits` row of kind `approval` or `human` (those of
 * its columns present, for a partial row).
 * @example
 * pendingApprovalFields({ run_id: "r1", node_id: "ship", iteration: 0, kind: "approval" }).kind; // "approval"
 */
export function pendingApprovalFields(r: Columns): Partial<PendingApproval> {
  const wait = waitFields(r);
  const out: Record<string, unknown> = {};
  for (const field of APPROVAL_FIELDS) if (Object.hasOwn(wait, field)) out[field] = wait[field];
  return out as Partial<PendingApproval>;
}

/**
 * The event of a stored `_flow_events` row, with its `seq`.
 * @example
 * const events = (await store.query(`SELECT * FROM _flow_events WHERE run_id = ?`, [runId])).map(eventOf);
 */
export function eventOf(r: Columns): FlowEvent & { seq: number } {
  return { ...parse<Record<string, unknown> | null>(r.payload_json), type: r.type, runId: String(r.run_id), timestampMs: Number(r.timestamp_ms), seq: Number(r.seq) } as FlowEvent & { seq: number };
}

/**
 * The RunRecord of a `_flow_runs` row (`SELECT *`).
 * @example
 * const runs = (await store.query(`SELECT * FROM _flow_runs WHERE status = ?`, ["failed"])).map(toRun);
 */
export function toRun(r: RunRow & Record<string, unknown>): RunRecord {
  const out: Record<string, unknown> = {};
  for (const [field, [, read]] of RUN_FIELDS) out[field] = read(r);
  return out as unknown as RunRecord;
}

/**
 * The `RunRecord` fields of the columns a partial `_flow_runs` row carries (an Electric
 * update names the primary key and the changed columns), read as `toRun` reads them, so
 * every reader of run rows maps columns one way (core/api/run-rows.ts).
 * @example
 * runFields({ run_id: "r1", status: "finished" }); // { runId: "r1", status: "finished" }
 */
export function runFields(r: Partial<RunRow> & Record<string, unknown>): Partial<RunRecord> {
  const out: Record<string, unknown> = {};
  for (const [field, [column, read]] of RUN_FIELDS) if (Object.hasOwn(r, column)) out[field] = read(r);
  return out as Partial<RunRecord>;
}

type RunColumnsIn = Partial<RunRow> & Record<string, unknown>;

/** Each `RunRecord` field: the column it is read from and how. */
const RUN_FIELDS = Object.entries({
  runId: ["run_id", (r) => r.run_id],
  parentRunId: ["parent_run_id", (r) => r.parent_run_id ?? null],
  workflowName: ["workflow_name", (r) => r.workflow_name ?? null],
  workflowHash: ["workflow_hash", (r) => r.workflow_hash ?? null],
  status: ["status", (r) => r.status],
  input: ["input_json", (r) => parse(r.input_json)],
  output: ["output_json", (r) => parse(r.output_json)],
  error: ["error_json", (r) => parse(r.error_json)],
  iterations: ["iterations_json", (r) => parse<Record<string, number> | null>(r.iterations_json) ?? {}],
  annotations: ["annotations_json", (r) => parse(r.annotations_json)],
  ownerId: ["owner_id", (r) => r.owner_id ?? null],
  heartbeatAtMs: ["heartbeat_at_ms", (r) => num(r.heartbeat_at_ms)],
  rootDir: ["workspace_dir", (r) => r.workspace_dir ?? null],
  workflowPath: ["workflow_path", (r) => r.workflow_path ?? null],
  nextRunId: ["next_run_id", (r) => r.next_run_id ?? null],
  // Written with every status change; a row without its status (an update of a paused run's
  // reason alone) is a paused run's.
  pauseReason: ["pause_reason", (r) => (r.status === undefined || r.status === "paused" ? ((r.pause_reason as PauseReason | null | undefined) ?? null) : null)],
  createdAtMs: ["created_at_ms", (r) => Number(r.created_at_ms)],
  updatedAtMs: ["updated_at_ms", (r) => Number(r.updated_at_ms)],
  finishedAtMs: ["finished_at_ms", (r) => num(r.finished_at_ms)],
} satisfies { [K in keyof RunRecord]: [keyof RunRow, (r: RunColumnsIn) => RunRecord[K] | undefined] }) as Array<[keyof RunRecord, [string, (r: RunColumnsIn) => unknown]]>;
