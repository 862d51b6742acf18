/**
 * @module core/engine/continue-as-new
 * Continue-as-new: a run ends with status `continued` and a fresh run takes over with a clean
 * history (no events, frames or attempts of its predecessor), starting from the latest row of
 * each node when outputs are carried. The next run is written in the same transaction that
 * ends this one, with no owner, so that `runWorkflow(..., { runId: nextRunId, resume: true })`
 * (or a Gateway) claims it at once.
 */
import { TABLES } from "../protocol.js";
import type { SchemaRegistry } from "../schema/index.js";
import type { Dialect } from "../store/index.js";
import type { FlowEvent } from "./events.js";
import type { OutputIndex } from "./output-index.js";
import { eventSql, json, nodeChange, outputSql, RELEASED, statusChange, type WriteBatch } from "./run-sql.js";
import type { RunStatus } from "./types.js";

export interface Continuation {
  batch: WriteBatch;
  dialect: Dialect;
  registry: SchemaRegistry;
  index: OutputIndex;
  runId: string;
  /** The status the run ends from (its session's). */
  from: RunStatus;
  nextRunId: string;
  workflowName: string | null;
  workflowHash: string;
  input: unknown;
  iterations: Record<string, number>;
  carryOutputs: boolean;
  auth: unknown;
  now: number;
}

/** Writes the next run (row, input, carried outputs, first event) and links this run to it. */
export function writeContinuation(c: Continuation): void {
  const { batch, nextRunId, now } = c;
  batch.push(
    // The next run works where this one did (its workspace and workflow file carry over).
    `INSERT INTO ${TABLES.runs} (run_id, parent_run_id, workflow_name, workflow_hash, status, input_json, iterations_json, auth_json, config_json, created_at_ms, updated_at_ms, workspace_dir, workflow_path) SELECT ?, NULL, ?, ?, 'running', ?, ?, ?, ?, ?, ?, workspace_dir, workflow_path FROM ${TABLES.runs} WHERE run_id = ?`,
    [nextRunId, c.workflowName, c.workflowHash, json(c.input), json(c.iterations), json(c.auth ?? undefined), json({ continuedFrom: c.runId }), now, now, c.runId],
  );
  const inputTable = c.registry.input;
  if (inputTable) outputSql.insertInput(batch, c.dialect, inputTable, nextRunId, c.input as Record<string, unknown>);
  if (c.carryOutputs) {
    for (const entry of c.registry.entries.values()) {
      if (entry.isInput) continue;
      const latest = new Map<string, Record<string, unknown> & { nodeId: string; iteration: number }>();
      for (const row of c.index.all(entry.key)) {
        const seen = latest.get(row.nodeId);
        if (!seen || row.iteration > seen.iteration) latest.set(row.nodeId, row);
      }
      for (const row of latest.values()) {
        const { runId: _r, nodeId, iteration, ...fields } = row;
        outputSql.upsert(batch, c.dialect, entry, nextRunId, nodeId, iteration, fields);
        nodeChange(batch, nextRunId, null, { nodeId, iteration, state: "finished", outputTable: entry.key }, now);
      }
    }
  }
  const started: FlowEvent = { type: "RunStarted", runId: nextRunId, timestampMs: now, seq: 1, workflowName: c.workflowName, workflowHash: c.workflowHash, parentRunId: null };
  eventSql.insert(batch, started);
  batch.push(...statusChange(c.runId, c.from, "continued", now, { ...RELEASED, next_run_id: nextRunId, finished_at_ms: now }));
}
