/**
 * @module core/engine/run-sql
 * Every statement the engine writes or reads about a run, in one place. Writes are collected
 * in a WriteBatch and committed in one transaction per scheduling step (DESIGN.md: settling a
 * task is one transaction with a bounded number of rows).
 */
import { TABLES } from "../protocol.js";
import { quoteIdent } from "../store/index.js";
import type { Dialect, SqlExecutor, SqlValue, StorePort } from "../store/index.js";
import { encodeValue } from "../schema/index.js";
import type { TableEntry } from "../schema/index.js";
import type { FlowEvent } from "./events.js";
import { assertNodeTransition, assertTransition, EXECUTING_STATUSES, type RunStopRequest } from "./status.js";
import type { AttemptState, NodeState, PauseReason, RunStatus } from "./types.js";

/** Statements to commit together. */
export class WriteBatch {
  readonly ops: Array<[string, SqlValue[]]> = [];
  push(sql: string, params: SqlValue[]): void {
    this.ops.push([sql, params]);
  }
  get size(): number {
    return this.ops.length;
  }
  /** Commits every statement in one transaction and empties the batch (kept when refused). */
  async commit(store: StorePort): Promise<void> {
    if (this.ops.length === 0) return;
    // A refused batch keeps its statements, so the caller can repair it and commit again.
    const ops = this.ops.slice();
    if (store.executeBatch) await store.executeBatch(ops);
    else {
      await store.transaction(async (tx) => {
        for (const [sql, params] of ops) await tx.execute(sql, params);
      });
    }
    this.ops.splice(0, ops.length);
  }
}

export interface RunRow {
  run_id: string;
  parent_run_id: string | null;
  workflow_name: string | null;
  workflow_hash: string | null;
  status: RunStatus;
  input_json: string | null;
  output_json: string | null;
  error_json: string | null;
  iterations_json: string | null;
  annotations_json: string | null;
  auth_json: string | null;
  config_json: string | null;
  flags_json: string | null;
  scopes_json?: string | null;
  workspace_dir?: string | null;
  workflow_path?: string | null;
  requested_state?: string | null;
  owner_id: string | null;
  heartbeat_at_ms: number | string | null;
  next_run_id: string | null;
  created_at_ms: number | string;
  updated_at_ms: number | string;
  finished_at_ms: number | string | null;
  pause_reason?: string | null;
}

export interface NodeRow {
  node_id: string;
  iteration: number;
  state: NodeState;
  attempts: number;
  ordinal: number | null;
  output_table: string | null;
  updated_at_ms: number | string;
}

/** What a resume's claim replaced on the run row. */
export interface ClaimedFrom {
  status: RunStatus;
  ownerId: string | null;
  heartbeatAtMs: number | null;
  updatedAtMs: number;
}

/** What another process may ask of a running run (status.ts). */
export type { RunStopRequest };

export const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/** A column written with a status change: a value, or an SQL expression of one parameter. */
export type StatusColumn = SqlValue | { sql: string; param: SqlValue };

/**
 * The one statement that changes a run's status, wherever it changes (a session's endings,
 * a resume's claim and its undo, retryTask, continue-as-new, time travel). `from -> to` is
 * checked against the table in status.ts first: an illegal move throws INVALID_TRANSITION
 * and nothing is written. `set` names the other columns written with it, `guard` adds
 * conditions (a compare-and-set); `updated_at_ms` is `at`.
 * @example
 * batch.push(...statusChange("r1", "running", "paused", now, { pause_reason: "person" }));
 */
export function statusChange(runId: string, from: RunStatus, to: RunStatus, at: number, set: Record<string, StatusColumn> = {}, guard?: { sql: string; params: SqlValue[] }): [string, SqlValue[]] {
  assertTransition(runId, from, to);
  let sql = `UPDATE ${TABLES.runs} SET status = ?, updated_at_ms = ?`;
  const params: SqlValue[] = [to, at];
  for (const [column, value] of Object.entries(set)) {
    const expr = value !== null && typeof value === "object" && "sql" in value;
    sql += `, ${column} = ${expr ? value.sql : "?"}`;
    params.push(expr ? value.param : (value as SqlValue));
  }
  params.push(runId, ...(guard?.params ?? []));
  return [`${sql} WHERE run_id = ?${guard ? ` AND ${guard.sql}` : ""}`, params];
}

/** The claim given up with a status change: no owner, no heartbeat, no pending stop request. */
export const RELEASED = { owner_id: null, heartbeat_at_ms: null, requested_state: null } as const;

export const runSql = {
  insert(b: WriteBatch, r: { runId: string; parentRunId: string | null; workflowName: string | null; workflowHash: string; input: unknown; iterations: Record<string, number>; annotations?: unknown; auth?: unknown; config?: unknown; ownerId: string; now: number; workspaceDir: string | null; workflowPath: string | null }) {
    b.push(
      `INSERT INTO ${TABLES.runs} (run_id, parent_run_id, workflow_name, workflow_hash, status, input_json, iterations_json, annotations_json, auth_json, config_json, owner_id, heartbeat_at_ms, created_at_ms, updated_at_ms, workspace_dir, workflow_path) VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.runId, r.parentRunId, r.workflowName, r.workflowHash, json(r.input), json(r.iterations), json(r.annotations), json(r.auth), json(r.config), r.ownerId, r.now, r.now, r.now, r.workspaceDir, r.workflowPath],
    );
  },
  /**
   * A session's status change (statusChange): output kept unless given, the error replaced,
   * `finished_at_ms` set when `finished`; `pauseReason` is kept with `paused` only.
   */
  status(b: WriteBatch, runId: string, from: RunStatus, to: RunStatus, now: number, extra: { output?: unknown; error?: unknown; finished?: boolean; releaseOwner?: boolean; pauseReason?: PauseReason } = {}) {
    b.push(
      ...statusChange(runId, from, to, now, {
        output_json: { sql: "COALESCE(?, output_json)", param: json(extra.output) },
        error_json: json(extra.error) ?? null,
        finished_at_ms: { sql: "COALESCE(?, finished_at_ms)", param: extra.finished ? now : null },
        pause_reason: to === "paused" ? (extra.pauseReason ?? "person") : null,
        ...(extra.releaseOwner ? RELEASED : {}),
      }),
    );
  },
  iterations(b: WriteBatch, runId: string, iterations: Record<string, number>, now: number) {
    b.push(`UPDATE ${TABLES.runs} SET iterations_json = ?, updated_at_ms = ? WHERE run_id = ?`, [json(iterations), now, runId]);
  },
  workflowHash(b: WriteBatch, runId: string, hash: string) {
    b.push(`UPDATE ${TABLES.runs} SET workflow_hash = ? WHERE run_id = ?`, [hash, runId]);
  },
  async get(db: SqlExecutor, runId: string): Promise<RunRow | undefined> {
    return (await db.query<RunRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.runs} WHERE run_id = ?`, [runId]))[0];
  },
  /** Takes a claim of a run in status `from` if it is still what the caller saw (compare-and-set). */
  async claim(db: SqlExecutor, runId: string, from: RunStatus, expect: { ownerId: string | null; heartbeatAtMs: number | null }, ownerId: string, now: number): Promise<boolean> {
    const claimed = { sql: "COALESCE(owner_id, '') = ? AND COALESCE(heartbeat_at_ms, 0) = ?", params: [expect.ownerId ?? "", expect.heartbeatAtMs ?? 0] };
    return (await db.execute(...statusChange(runId, from, "running", now, { owner_id: ownerId, heartbeat_at_ms: now, requested_state: null }, claimed))) === 1;
  },
  /** Gives a claim back, restoring what it replaced (a resume that refused to go on). */
  async unclaim(db: SqlExecutor, runId: string, ownerId: string, previous: ClaimedFrom): Promise<void> {
    await db.execute(...statusChange(runId, "running", previous.status, previous.updatedAtMs, { owner_id: previous.ownerId, heartbeat_at_ms: previous.heartbeatAtMs }, { sql: "owner_id = ?", params: [ownerId] }));
  },
  /**
   * Renews the claim; answers false when another process took it, else what another process
   * asked of the run meanwhile (`requested_state`: cancel, pause) or null.
   */
  async heartbeat(db: SqlExecutor, runId: string, ownerId: string, now: number): Promise<false | { requested: RunStopRequest | null }> {
    if ((await db.execute(`UPDATE ${TABLES.runs} SET heartbeat_at_ms = ? WHERE run_id = ? AND owner_id = ?`, [now, runId, ownerId])) !== 1) return false;
    const [row] = await db.query<{ requested_state: string | null }>(`SELECT requested_state FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
    const requested = row?.requested_state;
    return { requested: requested === "cancel" || requested === "pause" ? requested : null };
  },
  /** Asks the process that executes a run (`running`, or waiting for quota) to cancel or pause it (read by its heartbeat). */
  async requestStop(db: SqlExecutor, runId: string, request: RunStopRequest, now: number): Promise<boolean> {
    return (await db.execute(`UPDATE ${TABLES.runs} SET requested_state = ?, updated_at_ms = ? WHERE run_id = ? AND status IN (${EXECUTING_STATUSES.map(() => "?").join(", ")})`, [request, now, runId, ...EXECUTING_STATUSES])) === 1;
  },
};

/** A node row as `nodeChange` writes it: its state, and the columns written with it. */
export interface NodeWrite {
  nodeId: string;
  iteration: number;
  state: NodeState;
  ordinal?: number;
  label?: string | null;
  outputTable?: string;
  attempts?: number;
  error?: unknown;
}

/**
 * The one statement that writes a node's (task's) state, wherever it changes (a render's new
 * tasks, an attempt's start and end, a wait, a resume's or retryTask's or time travel's reset,
 * a seeded or carried output). `from -> n.state` is checked against the node table in
 * status.ts first (`from` null: the row is new): an illegal move throws INVALID_TRANSITION
 * and nothing is added to the batch.
 * @example
 * nodeChange(batch, "r1", "in-progress", { nodeId: "a", iteration: 0, state: "finished", attempts: 1 }, now);
 */
export function nodeChange(b: WriteBatch, runId: string, from: NodeState | null, n: NodeWrite, now: number): void {
  assertNodeTransition({ runId, nodeId: n.nodeId, iteration: n.iteration }, from, n.state);
  b.push(
    `INSERT INTO ${TABLES.nodes} (run_id, node_id, iteration, state, ordinal, label, output_table, attempts, error_json, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (run_id, node_id, iteration) DO UPDATE SET state = excluded.state, ordinal = COALESCE(excluded.ordinal, ${TABLES.nodes}.ordinal), label = COALESCE(excluded.label, ${TABLES.nodes}.label), output_table = COALESCE(excluded.output_table, ${TABLES.nodes}.output_table), attempts = excluded.attempts, error_json = excluded.error_json, updated_at_ms = excluded.updated_at_ms`,
    [runId, n.nodeId, n.iteration, n.state, n.ordinal ?? null, n.label ?? null, n.outputTable ?? null, n.attempts ?? 0, json(n.error), now],
  );
}

export const nodeSql = {
  async list(db: SqlExecutor, runId: string): Promise<NodeRow[]> {
    return db.query<NodeRow & Record<string, unknown>>(`SELECT node_id, iteration, state, attempts, ordinal, output_table, updated_at_ms FROM ${TABLES.nodes} WHERE run_id = ?`, [runId]);
  },
};

export const attemptSql = {
  start(b: WriteBatch, runId: string, nodeId: string, iteration: number, attempt: number, now: number) {
    b.push(`INSERT INTO ${TABLES.attempts} (run_id, node_id, iteration, attempt, state, started_at_ms) VALUES (?, ?, ?, ?, 'in-progress', ?)`, [runId, nodeId, iteration, attempt, now]);
  },
  settle(b: WriteBatch, runId: string, nodeId: string, iteration: number, attempt: number, state: AttemptState, now: number, extra: { error?: unknown; meta?: unknown; vcsPointer?: string | null; vcsStartPointer?: string } = {}) {
    b.push(`UPDATE ${TABLES.attempts} SET state = ?, finished_at_ms = ?, error_json = ?, meta_json = ?, vcs_pointer = ?, vcs_start_pointer = COALESCE(?, vcs_start_pointer) WHERE run_id = ? AND node_id = ? AND iteration = ? AND attempt = ?`, [
      state,
      now,
      json(extra.error),
      json(extra.meta),
      extra.vcsPointer ?? null,
      extra.vcsStartPointer ?? null,
      runId,
      nodeId,
      iteration,
      attempt,
    ]);
  },
  /** Attempts left `in-progress` by a process that is gone. */
  async interrupted(db: SqlExecutor, runId: string): Promise<Array<{ node_id: string; iteration: number; attempt: number }>> {
    return db.query(`SELECT node_id, iteration, attempt FROM ${TABLES.attempts} WHERE run_id = ? AND state = 'in-progress'`, [runId]);
  },
};

export const eventSql = {
  insert(b: WriteBatch, e: FlowEvent) {
    const { type, runId, timestampMs, seq, ...payload } = e;
    b.push(`INSERT INTO ${TABLES.events} (run_id, seq, type, timestamp_ms, payload_json) VALUES (?, ?, ?, ?, ?)`, [runId, seq!, type, timestampMs, JSON.stringify(payload)]);
  },
  async lastSeq(db: SqlExecutor, runId: string): Promise<number> {
    const r = await db.query<{ s: number | string | null }>(`SELECT MAX(seq) AS s FROM ${TABLES.events} WHERE run_id = ?`, [runId]);
    return Number(r[0]?.s ?? 0);
  },
};

export const frameSql = {
  insert(b: WriteBatch, runId: string, frameNo: number, kind: "key" | "delta", json: string, now: number) {
    b.push(`INSERT INTO ${TABLES.frames} (run_id, frame_no, kind, data_json, created_at_ms) VALUES (?, ?, ?, ?, ?)`, [runId, frameNo, kind, json, now]);
  },
  /** Frames from the last keyframe on, to rebuild the latest frame. */
  async tail(db: SqlExecutor, runId: string): Promise<Array<{ frame_no: number; kind: "key" | "delta"; data_json: string }>> {
    return db.query(
      `SELECT frame_no, kind, data_json FROM ${TABLES.frames} WHERE run_id = ? AND frame_no >= (SELECT COALESCE(MAX(frame_no), 0) FROM ${TABLES.frames} WHERE run_id = ? AND kind = 'key') ORDER BY frame_no`,
      [runId, runId],
    );
  },
};

export const cacheSql = {
  async get(db: SqlExecutor, key: string, now: number): Promise<{ output_json: string } | undefined> {
    return (await db.query<{ output_json: string }>(`SELECT output_json FROM ${TABLES.cache} WHERE cache_key = ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)`, [key, now]))[0];
  },
  put(b: WriteBatch, key: string, scope: string, nodeId: string, table: string, row: unknown, now: number, ttlMs: number | undefined) {
    b.push(
      `INSERT INTO ${TABLES.cache} (cache_key, scope, node_id, output_table, output_json, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (cache_key) DO UPDATE SET output_json = excluded.output_json, created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms`,
      [key, scope, nodeId, table, JSON.stringify(row), now, ttlMs === undefined ? null : now + ttlMs],
    );
  },
};

const upsertCache = new WeakMap<TableEntry, string>();

/** Output rows of user tables. */
export const outputSql = {
  upsert(b: WriteBatch, dialect: Dialect, entry: TableEntry, runId: string, nodeId: string, iteration: number, row: Record<string, unknown>) {
    let sql = upsertCache.get(entry);
    if (!sql) {
      const cols = ["run_id", "node_id", "iteration", ...entry.columns.map((c) => c.column)].map(quoteIdent);
      const updates = entry.columns.map((c) => `${quoteIdent(c.column)} = excluded.${quoteIdent(c.column)}`);
      sql = `INSERT INTO ${quoteIdent(entry.tableName)} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")}) ON CONFLICT (run_id, node_id, iteration) DO ${updates.length ? `UPDATE SET ${updates.join(", ")}` : "NOTHING"}`;
      upsertCache.set(entry, sql);
    }
    b.push(sql, [runId, nodeId, iteration, ...entry.columns.map((c) => encodeValue(c, row[c.field], dialect))]);
  },
  remove(b: WriteBatch, entry: TableEntry, runId: string, nodeId: string, iteration: number) {
    b.push(`DELETE FROM ${quoteIdent(entry.tableName)} WHERE run_id = ? AND node_id = ? AND iteration = ?`, [runId, nodeId, iteration]);
  },
  async list(db: SqlExecutor, entry: TableEntry, runId: string): Promise<Record<string, unknown>[]> {
    return db.query(`SELECT * FROM ${quoteIdent(entry.tableName)} WHERE run_id = ?`, [runId]);
  },
  insertInput(b: WriteBatch, dialect: Dialect, entry: TableEntry, runId: string, input: Record<string, unknown>) {
    const cols = ["run_id", ...entry.columns.map((c) => c.column)].map(quoteIdent);
    b.push(`INSERT INTO ${quoteIdent(entry.tableName)} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, [
      runId,
      ...entry.columns.map((c) => encodeValue(c, input[c.field], dialect)),
    ]);
  },
};
