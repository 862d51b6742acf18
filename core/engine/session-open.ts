/**
 * @module core/engine/session-open
 * Starting a run: a new run is inserted with this process as its owner; a resumed run is
 * claimed (compare-and-set on owner and heartbeat), then its state is rebuilt from the
 * database alone: nodes, output rows, loop iterations, event seq and the last frame.
 * Attempts left in progress by a dead process are recorded as interrupted and run again.
 */
import { TABLES } from "../protocol.js";
import { FlowError } from "../errors.js";
import { recoverTimeTravel } from "./travel/intent.js";
import { absoluteDir } from "./travel/snapshots.js";
import { decodeRow } from "../schema/index.js";
import type { StoreBinding } from "../binding.js";
import type { EventInit, FlowEvent } from "./events.js";
import { FrameEncoder, replayFrames } from "./frames.js";
import { assertInputFits } from "./input.js";
import { OutputIndex, type OutputRow } from "./output-index.js";
import { nodeKey } from "./plan.js";
import { spendByEvents, spendMeta } from "./attempt-spend.js";
import { attemptSql, eventSql, frameSql, nodeChange, nodeSql, outputSql, type RunRow, runSql, WriteBatch } from "./run-sql.js";
import type { NodeInfo, SessionStart } from "./session.js";
import { isExecuting } from "./status.js";
import type { RunOptions, RunResult } from "./types.js";

export type Opened = { kind: "session"; start: SessionStart } | { kind: "done"; result: RunResult };

export interface OpenInput {
  binding: StoreBinding;
  opts: RunOptions;
  workflowName: string | null;
  workflowHash: string;
  /** The file the workflow was loaded from (recorded, so commands find it by the run id). */
  workflowPath: string | null;
}

/** The directory a new run works in (`RunOptions.rootDir`, else the process's), absolute. */
function rootDirOf(opts: RunOptions, cwd: string | undefined): string {
  return absoluteDir(opts.rootDir ?? cwd ?? ".", cwd);
}

/** Opens a new run or claims and loads an existing one. */
export async function openRun(input: OpenInput): Promise<Opened> {
  const { binding, opts } = input;
  const runId = opts.runId ?? binding.env.newId();
  let existing = await runSql.get(binding.store, runId);
  // A time travel interrupted by a crash is finished before the run goes on (docs/time-travel.md).
  if (existing && opts.resume && (await recoverTimeTravel(binding, runId))) existing = await runSql.get(binding.store, runId);
  if (existing && !opts.resume) {
    throw new FlowError("RUN_EXISTS", `Run ${runId} already exists (status ${existing.status}); pass resume: true to continue it.`, { runId, status: existing.status });
  }
  if (!existing && opts.resume) throw new FlowError("RUN_NOT_FOUND", `Run ${runId} does not exist, so it cannot be resumed.`, { runId });
  return existing ? resumeRun(input, existing) : createRun(input, runId);
}

function eventWriter(runId: string, batch: WriteBatch, now: () => number, seq: { n: number }, events: FlowEvent[]) {
  return (init: EventInit) => {
    const e = { ...init, runId, timestampMs: now(), seq: ++seq.n } as FlowEvent;
    eventSql.insert(batch, e);
    events.push(e);
  };
}

async function createRun(input: OpenInput, runId: string): Promise<Opened> {
  const { binding, opts } = input;
  const { registry, env, store } = binding;
  if (opts.input === undefined) throw new FlowError("INPUT_INVALID", `Run ${runId} needs an input (RunOptions.input), even if it is {}.`, { runId });
  assertInputFits(registry.input, opts.input);
  const now = env.clock.now();
  const batch = new WriteBatch();
  const events: FlowEvent[] = [];
  const seq = { n: 0 };
  const emit = eventWriter(runId, batch, () => env.clock.now(), seq, events);
  const iterations = seedIterations(opts);
  runSql.insert(batch, {
    runId,
    parentRunId: opts.parentRunId ?? null,
    workflowName: input.workflowName,
    workflowHash: input.workflowHash,
    input: opts.input,
    iterations,
    annotations: opts.annotations,
    auth: opts.auth ?? undefined,
    config: opts.config,
    ownerId: env.ownerId,
    now,
    workspaceDir: rootDirOf(opts, env.cwd),
    workflowPath: input.workflowPath,
  });
  if (registry.input) outputSql.insertInput(batch, store.dialect, registry.input, runId, opts.input as Record<string, unknown>);
  emit({ type: "RunStarted", workflowName: input.workflowName, workflowHash: input.workflowHash, parentRunId: opts.parentRunId ?? null });
  const index = new OutputIndex();
  const nodes = new Map<string, NodeInfo>();
  seedOutputs(input, runId, batch, index, nodes, now);
  return {
    kind: "session",
    start: { runId, workflowName: input.workflowName, input: opts.input, auth: opts.auth, iterations, nodes, index, seq: seq.n, frameNo: 0, frames: new FrameEncoder(), batch, events, checkRemoved: false, workflowHash: input.workflowHash, scopes: {}, rootDir: rootDirOf(opts, env.cwd) },
  };
}

function seedIterations(opts: RunOptions): Record<string, number> {
  const seeds = opts.initialIterations;
  if (!seeds) return {};
  return seeds instanceof Map ? Object.fromEntries(seeds) : { ...seeds };
}

/** `initialOutputs`: rows written as finished nodes, so their tasks do not run. */
function seedOutputs(input: OpenInput, runId: string, batch: WriteBatch, index: OutputIndex, nodes: Map<string, NodeInfo>, now: number): void {
  const { registry, store } = input.binding;
  for (const [table, rows] of Object.entries(input.opts.initialOutputs ?? {})) {
    const entry = registry.resolve(table, "initialOutputs");
    for (const raw of rows) {
      const { nodeId, iteration = 0, runId: _r, ...fields } = raw as { nodeId?: unknown; iteration?: number; runId?: unknown };
      if (typeof nodeId !== "string") throw new FlowError("INVALID_ARGUMENT", `initialOutputs.${table}: every row needs a nodeId.`, { table });
      const parsed = entry.schema.safeParse(fields);
      if (!parsed.success) throw new FlowError("INVALID_ARGUMENT", `initialOutputs.${table} row for "${nodeId}" does not match its schema: ${parsed.error.message}`, { table, nodeId });
      const row = parsed.data as Record<string, unknown>;
      outputSql.upsert(batch, store.dialect, entry, runId, nodeId, iteration, row);
      index.set(entry.key, { ...row, runId, nodeId, iteration } as OutputRow);
      nodes.set(nodeKey(nodeId, iteration), { nodeId, iteration, state: "finished", outputTable: entry.key, continueOnFail: false, attempts: 0, failures: 0 });
      nodeChange(batch, runId, null, { nodeId, iteration, state: "finished", outputTable: entry.key }, now);
    }
  }
}

async function resumeRun(input: OpenInput, row: RunRow): Promise<Opened> {
  const { binding, opts } = input;
  const { env, store, registry } = binding;
  const runId = row.run_id;
  const status = row.status;
  if (status === "finished" || status === "continued") {
    // A finished run is read, never replayed.
    const result: RunResult = { runId, status };
    if (row.output_json !== null) result.output = JSON.parse(row.output_json);
    if (row.next_run_id) result.nextRunId = row.next_run_id;
    return { kind: "done", result };
  }
  const workflowChanged = row.workflow_hash !== input.workflowHash;
  if (workflowChanged && opts.onWorkflowChange === "refuse") {
    throw new FlowError("WORKFLOW_CHANGED", `Run ${runId} was started by a different version of its workflow (hash ${row.workflow_hash}, now ${input.workflowHash}); refusing to resume.`, {
      runId,
      previousHash: row.workflow_hash,
      workflowHash: input.workflowHash,
    });
  }
  // The run works where it started, whoever resumes it from wherever; an explicit `rootDir`
  // moves it there (`flow up --resume --root-dir <dir>`).
  const rootDir = opts.rootDir !== undefined || !row.workspace_dir ? rootDirOf(opts, env.cwd) : row.workspace_dir;
  if (env.directoryExists?.(rootDir) === false) {
    throw new FlowError("RUN_WORKSPACE_MISSING", `Run ${runId} works in ${rootDir}, which no longer exists. Restore the directory, or resume with rootDir (flow up --resume --root-dir <dir>) to move the run to another one.`, { runId, rootDir });
  }
  const previousOwner = row.owner_id;
  const takeover = await claim(input, row);

  const batch = new WriteBatch();
  const events: FlowEvent[] = [];
  const seq = { n: await eventSql.lastSeq(store, runId) };
  const emit = eventWriter(runId, batch, () => env.clock.now(), seq, events);
  const now = env.clock.now();
  emit({ type: "RunResumed", previousStatus: status, takeover, previousOwnerId: previousOwner });
  if (rootDir !== row.workspace_dir) batch.push(`UPDATE ${TABLES.runs} SET workspace_dir = ? WHERE run_id = ?`, [rootDir, runId]);
  if (input.workflowPath && input.workflowPath !== row.workflow_path) batch.push(`UPDATE ${TABLES.runs} SET workflow_path = ? WHERE run_id = ?`, [input.workflowPath, runId]);

  if (workflowChanged) {
    env.warn(`Run ${runId}: the workflow changed since the run started; resuming with the new code. Finished tasks keep their outputs; tasks the new tree no longer has are cancelled.`, {
      previousHash: row.workflow_hash,
      workflowHash: input.workflowHash,
    });
    emit({ type: "WorkflowChanged", previousHash: row.workflow_hash, workflowHash: input.workflowHash });
    runSql.workflowHash(batch, runId, input.workflowHash);
  }

  const nodes = new Map<string, NodeInfo>();
  const order = new Map<string, number>();
  for (const n of await nodeSql.list(store, runId)) {
    const key = nodeKey(n.node_id, Number(n.iteration));
    nodes.set(key, { nodeId: n.node_id, iteration: Number(n.iteration), state: n.state, outputTable: n.output_table, continueOnFail: false, attempts: Number(n.attempts), failures: 0 });
    order.set(key, Number(n.updated_at_ms));
  }
  const interrupted = (await attemptSql.interrupted(store, runId)).map((a) => ({ nodeId: a.node_id, iteration: Number(a.iteration), attempt: Number(a.attempt) }));
  // What their agents' calls had spent (the events the dead process flushed) is their meta, as for a cut attempt.
  const spent = await spendByEvents(store, runId, interrupted);
  for (const a of interrupted) {
    const meta = spent.find((s) => s.nodeId === a.nodeId && s.iteration === a.iteration && s.attempt === a.attempt);
    attemptSql.settle(batch, runId, a.nodeId, a.iteration, a.attempt, "cancelled", now, { error: { code: "TASK_CANCELLED", message: "Interrupted: the process running this attempt stopped." }, ...(meta ? { meta: spendMeta(meta) } : {}) });
    emit({ type: "TaskCancelled", nodeId: a.nodeId, iteration: a.iteration, attempt: a.attempt, reason: "interrupted" });
  }
  for (const n of nodes.values()) {
    if (n.state === "in-progress" || n.state === "failed" || n.state === "cancelled") {
      if (n.state !== "in-progress") emit({ type: "TaskReset", nodeId: n.nodeId, iteration: n.iteration, reason: "resume" });
      nodeChange(batch, runId, n.state, { nodeId: n.nodeId, iteration: n.iteration, state: "pending", attempts: n.attempts }, now);
      n.state = "pending";
    }
  }

  const index = new OutputIndex();
  const loaded: Array<[string, OutputRow, number]> = [];
  for (const entry of registry.entries.values()) {
    if (entry.isInput) continue;
    for (const r of await outputSql.list(store, entry, runId)) {
      const nodeId = String(r.node_id);
      const iteration = Number(r.iteration);
      loaded.push([entry.key, { ...decodeRow(entry.columns, r), runId, nodeId, iteration }, order.get(nodeKey(nodeId, iteration)) ?? 0]);
    }
  }
  loaded.sort((a, b) => a[2] - b[2]);
  for (const [key, r] of loaded) index.set(key, r);

  return {
    kind: "session",
    start: {
      runId,
      workflowName: row.workflow_name,
      input: row.input_json === null ? {} : JSON.parse(row.input_json),
      auth: row.auth_json === null ? null : JSON.parse(row.auth_json),
      iterations: row.iterations_json === null ? {} : JSON.parse(row.iterations_json),
      nodes,
      index,
      seq: seq.n,
      ...(await lastFrame(input, runId)),
      batch,
      events,
      checkRemoved: true,
      // A resume refused before it committed gives the run back as it was; a caller that
      // claimed the run itself (resumeClaim) says what was there before its own claim.
      claimedFrom: {
        status,
        ownerId: opts.resumeClaim?.restoreRuntimeOwnerId !== undefined ? opts.resumeClaim.restoreRuntimeOwnerId : previousOwner,
        heartbeatAtMs:
          opts.resumeClaim?.restoreHeartbeatAtMs !== undefined ? opts.resumeClaim.restoreHeartbeatAtMs : row.heartbeat_at_ms === null ? null : Number(row.heartbeat_at_ms),
        updatedAtMs: Number(row.updated_at_ms),
      },
      workflowHash: input.workflowHash,
      scopes: row.scopes_json ? JSON.parse(row.scopes_json) : {},
      rootDir,
    },
  };
}

/**
 * Claims a stored run for this process. A run a live process executes (running, or waiting for
 * quota) is refused (unless `force`); a run whose owner is gone (stale heartbeat, or a dead pid
 * on this host) is taken over. Returns whether it was a takeover.
 */
async function claim(input: OpenInput, row: RunRow): Promise<boolean> {
  const { binding, opts } = input;
  const { env, store, activeRuns } = binding;
  const runId = row.run_id;
  if (activeRuns.has(runId)) {
    throw new FlowError("RUN_ALREADY_RUNNING", `Run ${runId} is already running in this process.`, { runId });
  }
  const now = env.clock.now();
  const owner = row.owner_id;
  const heartbeat = row.heartbeat_at_ms === null ? null : Number(row.heartbeat_at_ms);
  let expect = { ownerId: owner, heartbeatAtMs: heartbeat };
  if (opts.resumeClaim) {
    expect = { ownerId: opts.resumeClaim.claimOwnerId, heartbeatAtMs: opts.resumeClaim.claimHeartbeatAtMs };
  } else if (isExecuting(row.status) && owner && owner !== env.ownerId && !opts.force) {
    const age = heartbeat === null ? Infinity : now - heartbeat;
    const dead = env.isOwnerAlive?.(owner) === false;
    if (age < env.claimStaleMs && !dead) {
      throw new FlowError(
        "RUN_ALREADY_RUNNING",
        `Run ${runId} is running in another process (${owner}, heartbeat ${Math.round(age / 1000)} s ago). It becomes resumable when its heartbeat is older than ${env.claimStaleMs / 1000} s; pass force: true to take it now.`,
        { runId, ownerId: owner, heartbeatAgeMs: age },
      );
    }
  }
  if (!(await runSql.claim(store, runId, row.status, expect, env.ownerId, now))) {
    throw new FlowError("RUN_ALREADY_RUNNING", `Run ${runId} was claimed by another process at the same moment.`, { runId });
  }
  return isExecuting(row.status) && owner !== null && owner !== env.ownerId;
}

async function lastFrame(input: OpenInput, runId: string): Promise<{ frameNo: number; frames: FrameEncoder }> {
  const rows = await frameSql.tail(input.binding.store, runId);
  return { frameNo: rows.length ? Number(rows[rows.length - 1]!.frame_no) : 0, frames: replayFrames(rows).encoder };
}
