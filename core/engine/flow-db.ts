/**
 * @module core/engine/flow-db
 * `FlowDb`: the read side of a workflow's store (runs, nodes, attempts, events, frames), built
 * from a workflow's `db` handle. Hosting surfaces, the CLI and time travel read through it.
 */
import { TABLES } from "../protocol.js";
import { buildTranscripts, rollUpUsage, type TranscriptAttempt } from "../agents/index.js";
import type { AgentUsage } from "../agents/index.js";
import type { OutputTarget, RowOf, SchemaMap } from "../components/index.js";
import { FlowError, type FlowErrorJson } from "../errors.js";
import { decodeRow } from "../schema/index.js";
import type { SchemaRegistry } from "../schema/index.js";
import { quoteIdent } from "../store/index.js";
import type { StorePort } from "../store/index.js";
import { bindingOf, type StoreBinding } from "../binding.js";
import type { FlowEvent } from "./events.js";
import { replayFrames } from "./frames.js";
import { type RunningSpend, spendByEvents } from "./attempt-spend.js";
import { eventOf, nodeFields, num, parse, toRun } from "./row-fields.js";
import type { RunRow } from "./run-sql.js";
import type { AttemptState, GraphSnapshot, NodeState, PauseReason, RunStatus } from "./types.js";

/** A run as stored. */
export interface RunRecord {
  runId: string;
  parentRunId: string | null;
  workflowName: string | null;
  workflowHash: string | null;
  status: RunStatus;
  input: unknown;
  output: unknown;
  error: FlowErrorJson | null;
  iterations: Record<string, number>;
  annotations: Record<string, string | number | boolean> | null;
  ownerId: string | null;
  heartbeatAtMs: number | null;
  /** The directory the run works in (recorded when it started; every resume uses it). */
  rootDir: string | null;
  /** The workflow file the run was started from, when known (CLI commands load it by run id). */
  workflowPath: string | null;
  nextRunId: string | null;
  /** Why a `paused` run is paused (null otherwise, and for runs paused before it was recorded). */
  pauseReason: PauseReason | null;
  createdAtMs: number;
  updatedAtMs: number;
  finishedAtMs: number | null;
}

/** Tokens and cost of a run's agent attempts (`FlowDb.getRunUsage`): `attempts` counts those with usage. */
export interface RunUsage {
  total: AgentUsage & { attempts: number };
  /** By task id; a child run's tasks as `<nodeId>@<iteration>/<child nodeId>`. */
  byNode: Record<string, AgentUsage & { attempts: number }>;
}

export interface NodeRecord {
  nodeId: string;
  iteration: number;
  state: NodeState;
  ordinal: number | null;
  label: string | null;
  outputTable: string | null;
  attempts: number;
  error: FlowErrorJson | null;
  updatedAtMs: number;
}

export interface AttemptRecord {
  nodeId: string;
  iteration: number;
  attempt: number;
  state: AttemptState;
  startedAtMs: number;
  finishedAtMs: number | null;
  error: FlowErrorJson | null;
  meta: Record<string, unknown> | null;
  vcsPointer: string | null;
}


/**
 * Reads a workflow's store. `S`, the workflow's schema map, types `listOutputs` by key.
 * @example
 * const db = new FlowDb(api.db);
 * for (const run of await db.listRuns({ limit: 10 })) console.log(run.runId, run.status);
 */
export class FlowDb<S extends SchemaMap = SchemaMap> {
  readonly store: StorePort;
  readonly registry: SchemaRegistry;
  /** @internal */
  readonly binding: StoreBinding;

  constructor(db: unknown) {
    this.binding = bindingOf(db, "db handle");
    this.store = this.binding.store;
    this.registry = this.binding.registry;
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    const rows = await this.store.query<RunRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.runs} WHERE run_id = ?`, [runId]);
    return rows[0] && toRun(rows[0]);
  }

  /** Runs, newest first. */
  async listRuns(filter: { limit?: number; status?: RunStatus } = {}): Promise<RunRecord[]> {
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
    const rows = filter.status
      ? await this.store.query<RunRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.runs} WHERE status = ? ORDER BY created_at_ms DESC LIMIT ?`, [filter.status, limit])
      : await this.store.query<RunRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.runs} ORDER BY created_at_ms DESC LIMIT ?`, [limit]);
    return rows.map(toRun);
  }

  async listNodes(runId: string): Promise<NodeRecord[]> {
    const rows = await this.store.query(`SELECT * FROM ${TABLES.nodes} WHERE run_id = ? ORDER BY iteration, ordinal`, [runId]);
    return rows.map((r) => nodeFields(r) as NodeRecord);
  }

  async listAttempts(runId: string, nodeId?: string): Promise<AttemptRecord[]> {
    const rows = nodeId
      ? await this.store.query(`SELECT * FROM ${TABLES.attempts} WHERE run_id = ? AND node_id = ? ORDER BY started_at_ms, attempt`, [runId, nodeId])
      : await this.store.query(`SELECT * FROM ${TABLES.attempts} WHERE run_id = ? ORDER BY started_at_ms, attempt`, [runId]);
    return rows.map((r) => ({
      nodeId: String(r.node_id),
      iteration: Number(r.iteration),
      attempt: Number(r.attempt),
      state: r.state as AttemptState,
      startedAtMs: Number(r.started_at_ms),
      finishedAtMs: num(r.finished_at_ms),
      error: parse(r.error_json),
      meta: parse(r.meta_json),
      vcsPointer: (r.vcs_pointer as string | null) ?? null,
    }));
  }

  /** Events in seq order, after `afterSeq` (exclusive). */
  async listEvents(runId: string, opts: { afterSeq?: number; limit?: number } = {}): Promise<FlowEvent[]> {
    const rows = await this.store.query(`SELECT * FROM ${TABLES.events} WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?`, [runId, opts.afterSeq ?? 0, opts.limit ?? 100_000]);
    return rows.map(eventOf);
  }

  /**
   * A task's agent transcript, per attempt (docs/agents.md, "Transcripts"): read from the
   * run's `Agent*` events, so it is the transcript so far while the agent works.
   */
  async getTranscript(runId: string, nodeId: string): Promise<TranscriptAttempt[]> {
    const rows = await this.store.query(`SELECT * FROM ${TABLES.events} WHERE run_id = ? AND (type LIKE 'Agent%' OR type = 'TaskCancelled') ORDER BY seq`, [runId]);
    return buildTranscripts(rows.map(eventOf), nodeId);
  }

  /**
   * Tokens and cost of a run's agent attempts, its child runs (Subflows, `${runId}/...`)
   * included, in total and per task (docs/agents.md, "Cost").
   * @example
   * const { total, byNode } = await db.getRunUsage(runId); // total.costUsd, byNode.fix.outputTokens
   */
  async getRunUsage(runId: string): Promise<RunUsage> {
    const prefix = `${runId}/`;
    // `<id>/` up to `<id>0` ("0" sorts right after "/") holds exactly the child runs' ids: a
    // range of the primary key, where a substr() test read every attempt of the store.
    const rows = await this.store.query<{ run_id: string; node_id: string; meta_json: string | null }>(
      `SELECT run_id, node_id, meta_json FROM ${TABLES.attempts} WHERE (run_id = ? OR (run_id > ? AND run_id < ?)) AND meta_json IS NOT NULL`,
      [runId, prefix, `${runId}0`],
    );
    const metas = rows.map((r) => ({ node: r.run_id === runId ? r.node_id : `${r.run_id.slice(prefix.length)}/${r.node_id}`, meta: parse<unknown>(r.meta_json) }));
    const byNode: Record<string, AgentUsage & { attempts: number }> = {};
    const groups = new Map<string, unknown[]>();
    for (const m of metas) groups.set(m.node, [...(groups.get(m.node) ?? []), m.meta]);
    for (const [node, list] of groups) {
      const u = rollUpUsage(list);
      if (u.attempts) byNode[node] = u;
    }
    return { total: rollUpUsage(metas.map((m) => m.meta)), byNode };
  }

  /**
   * What the run's attempts still in progress have spent so far, which `getRunUsage` counts only
   * once they end (their meta): from their `AgentStepUsage` and `AgentGenerationFinished` events
   * (core/agents `EventSpend`); those without spend yet are left out. The run's own attempts, not
   * its child runs'.
   * @example
   * await db.getRunningSpend(runId); // [{ nodeId: "fix", iteration: 0, attempt: 2, inputTokens: 1200, outputTokens: 40, totalTokens: 1240, costUsd: 0.0125 }]
   */
  async getRunningSpend(runId: string): Promise<RunningSpend[]> {
    const running = await this.store.query<{ node_id: string; iteration: unknown; attempt: unknown }>(`SELECT node_id, iteration, attempt FROM ${TABLES.attempts} WHERE run_id = ? AND state = 'in-progress'`, [runId]);
    return spendByEvents(this.store, runId, running.map((r) => ({ nodeId: r.node_id, iteration: Number(r.iteration), attempt: Number(r.attempt) })));
  }

  /** How many events the run has recorded (seq runs from 1 without gaps, so also its last seq). */
  async countEvents(runId: string): Promise<number> {
    const rows = await this.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${TABLES.events} WHERE run_id = ?`, [runId]);
    return Number(rows[0]?.n ?? 0);
  }

  /** A frame (default: the latest), rebuilt from its keyframe and deltas. */
  async getFrame(runId: string, frameNo?: number): Promise<GraphSnapshot | undefined> {
    const target = frameNo ?? Number((await this.store.query<{ n: unknown }>(`SELECT MAX(frame_no) AS n FROM ${TABLES.frames} WHERE run_id = ?`, [runId]))[0]?.n ?? 0);
    if (!target) return undefined;
    const rows = await this.store.query(
      `SELECT frame_no, kind, data_json FROM ${TABLES.frames} WHERE run_id = ? AND frame_no <= ? AND frame_no >= (SELECT COALESCE(MAX(frame_no), 0) FROM ${TABLES.frames} WHERE run_id = ? AND kind = 'key' AND frame_no <= ?) ORDER BY frame_no`,
      [runId, target, runId, target],
    );
    if (rows.length === 0 || Number(rows[rows.length - 1]!.frame_no) !== target) return undefined;
    const v = replayFrames(rows as unknown as Array<{ kind: "key" | "delta"; data_json: string }>).value as { xml: GraphSnapshot["xml"]; tasks: GraphSnapshot["tasks"] };
    return { runId, frameNo: target, xml: v.xml, tasks: v.tasks };
  }

  /**
   * Output rows of a table for a run (decoded, with runId/nodeId/iteration), typed by the
   * table's schema: pass the schema (`outputs.review`), or its key on a `FlowDb<typeof schemas>`.
   * @example
   * const rows = await new FlowDb(api.db).listOutputs(runId, outputs.review); // { score: number, ... }[]
   */
  async listOutputs<O extends OutputTarget<S>>(runId: string, table: O): Promise<RowOf<S, O>[]> {
    const entry = this.registry.resolve(table, "listOutputs");
    const rows = await this.store.query(`SELECT * FROM ${quoteIdent(entry.tableName)} WHERE run_id = ? ORDER BY iteration, node_id`, [runId]);
    return rows.map((r) => ({ ...decodeRow(entry.columns, r), runId, nodeId: String(r.node_id), iteration: Number(r.iteration) }) as RowOf<S, O>);
  }

  /** Throws RUN_NOT_FOUND when the run does not exist. */
  async requireRun(runId: string): Promise<RunRecord> {
    const run = await this.getRun(runId);
    if (!run) throw new FlowError("RUN_NOT_FOUND", `Run ${runId} does not exist.`, { runId });
    return run;
  }
}

