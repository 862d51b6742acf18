/**
 * @module core/engine/travel/intent
 * The intent row of a time travel (`_flow_time_travel`), written before any file moves, and
 * how a pending one is finished. The order is: snapshot the working tree as it is (the
 * `before` pointer) -> intent row `pending` -> restore the files -> one transaction with every
 * row change and the intent `done`. A crash anywhere leaves a pending intent; the next
 * `timeTravel`/`revertToAttempt` of the run, or its resume, completes it (restores again, which
 * is idempotent, then commits), or when the target snapshot cannot be restored puts the files
 * back to `before` and marks the intent `failed`. Files of one point never stay with rows of
 * another. In the engine, not core/time-travel: a resume finishes a pending intent before the
 * run goes on (session-open.ts), and time travel's operations write theirs through the
 * engine's door (docs/architecture.md, "No cycles").
 */
import { attachBinding, type StoreBinding } from "../../binding.js";
import { FlowError } from "../../errors.js";
import { TABLES } from "../../protocol.js";
import type { CrossedEffect, TimeTravelStep } from "../../time-travel/index.js";
import type { FlowEvent } from "../events.js";
import { type AttemptRecord, FlowDb, type NodeRecord } from "../flow-db.js";
import { eventSql, json, nodeChange, outputSql, statusChange, WriteBatch } from "../run-sql.js";
import { type ResetDecision, resetWaits } from "../waits/reset-waits.js";
import { dependentsOf } from "./dependents.js";

/** A stored intent. */
export interface Intent {
  runId: string;
  intentId: string;
  kind: "rewind" | "revert";
  nodeId: string;
  iteration: number;
  attempt: number;
  /** The snapshot to restore; null when files are not restored. */
  pointer: string | null;
  /** The working tree right before the restore (what an undo goes back to). */
  beforePointer: string | null;
  workspace: string | null;
  resetDependents: boolean;
  /** Keep the decisions of reset waits instead of asking again (core/engine/waits/reset-waits.ts). */
  keepDecisions: boolean;
  /** Effects crossed with `force` (they mark the run for attention) and effects reverted. */
  crossed: { forced: CrossedEffect[]; reverted: CrossedEffect[] };
  ownerId: string;
  createdAtMs: number;
}

/** Intents being carried out by this process right now (so they are not "recovered" twice). */
const inFlight = new Set<string>();

/**
 * Writes a pending intent.
 * @example
 * await writeIntent(binding, intent);
 */
export async function writeIntent(binding: StoreBinding, intent: Intent): Promise<void> {
  inFlight.add(intent.intentId);
  await binding.store.execute(
    `INSERT INTO ${TABLES.timeTravel} (run_id, intent_id, kind, status, node_id, iteration, attempt, pointer, before_pointer, options_json, crossed_json, owner_id, created_at_ms) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      intent.runId,
      intent.intentId,
      intent.kind,
      intent.nodeId,
      intent.iteration,
      intent.attempt,
      intent.pointer,
      intent.beforePointer,
      JSON.stringify({ workspace: intent.workspace, resetDependents: intent.resetDependents, keepDecisions: intent.keepDecisions }),
      JSON.stringify(intent.crossed),
      intent.ownerId,
      intent.createdAtMs,
    ],
  );
}

/**
 * Keys (`node@iteration#attempt.seq`) of effects an earlier, finished time travel of the run
 * already forced or reverted: they are not crossed again. With `which: ["reverted"]`, only the
 * effects undone (so no longer in place: a retry is not warned about them).
 * @example
 * const settled = await settledEffectKeys(store, runId);
 * const undone = await settledEffectKeys(store, runId, ["reverted"]);
 */
export async function settledEffectKeys(binding: StoreBinding, runId: string, which: readonly (keyof Intent["crossed"])[] = ["forced", "reverted"]): Promise<Set<string>> {
  const rows = await binding.store.query<{ crossed_json: string | null }>(`SELECT crossed_json FROM ${TABLES.timeTravel} WHERE run_id = ? AND status = 'done'`, [runId]);
  const keys = new Set<string>();
  for (const r of rows) {
    const crossed = r.crossed_json ? (JSON.parse(r.crossed_json) as Intent["crossed"]) : { forced: [], reverted: [] };
    for (const list of which) for (const e of crossed[list]) keys.add(effectKey(e));
  }
  return keys;
}

/** The identity of a recorded tool call. */
export const effectKey = (e: Pick<CrossedEffect, "nodeId" | "iteration" | "attempt" | "seq">): string => `${e.nodeId}@${e.iteration}#${e.attempt}.${e.seq}`;

/**
 * Completes every pending intent of a run left by a process that is gone; throws
 * TIME_TRAVEL_IN_PROGRESS when one belongs to a live process. Returns whether any was found.
 * @example
 * if (await recoverTimeTravel(binding, runId)) console.log("finished an interrupted rewind");
 */
export async function recoverTimeTravel(binding: StoreBinding, runId: string): Promise<boolean> {
  const rows = await binding.store.query<Record<string, unknown>>(`SELECT * FROM ${TABLES.timeTravel} WHERE run_id = ? AND status = 'pending' ORDER BY created_at_ms`, [runId]);
  for (const row of rows) {
    const intent = intentOf(row);
    if (isLive(binding, intent)) {
      throw new FlowError("TIME_TRAVEL_IN_PROGRESS", `Run ${runId} is being rewound by ${intent.ownerId} (intent ${intent.intentId}); wait for it to finish, then try again.`, {
        runId,
        intentId: intent.intentId,
        ownerId: intent.ownerId,
      });
    }
    const outcome = await completeIntent(new FlowDb(attachBinding({}, binding)), intent);
    if (!outcome.ok) binding.env.warn(outcome.error, { runId, intentId: intent.intentId });
  }
  return rows.length > 0;
}

function isLive(binding: StoreBinding, intent: Intent): boolean {
  if (inFlight.has(intent.intentId)) return true;
  const { env } = binding;
  if (intent.ownerId === env.ownerId) return false;
  const alive = env.isOwnerAlive?.(intent.ownerId);
  if (alive !== undefined) return alive;
  return env.clock.now() - intent.createdAtMs < env.claimStaleMs;
}

function intentOf(row: Record<string, unknown>): Intent {
  const options = JSON.parse(String(row.options_json)) as { workspace: string | null; resetDependents: boolean; keepDecisions?: boolean };
  return {
    runId: String(row.run_id),
    intentId: String(row.intent_id),
    kind: row.kind as Intent["kind"],
    nodeId: String(row.node_id),
    iteration: Number(row.iteration),
    attempt: Number(row.attempt),
    pointer: (row.pointer as string | null) ?? null,
    beforePointer: (row.before_pointer as string | null) ?? null,
    workspace: options.workspace,
    resetDependents: options.resetDependents,
    keepDecisions: options.keepDecisions === true,
    crossed: row.crossed_json ? JSON.parse(String(row.crossed_json)) : { forced: [], reverted: [] },
    ownerId: String(row.owner_id ?? ""),
    createdAtMs: Number(row.created_at_ms),
  };
}

/** `kept`: the repositories inside the workspace its restore left as they are (`VcsPort.repositoriesIn`). */
export type IntentOutcome = { ok: true; resetNodes: string[]; decisions: ResetDecision[]; events: FlowEvent[]; kept: string[] } | { ok: false; error: string };

/**
 * Restores the intent's files (when it has a pointer), then commits its row changes and marks
 * it done in one transaction. A restore that fails puts the files back to `before` and marks
 * the intent failed: the run's rows are not touched.
 * @example
 * const outcome = await completeIntent(new FlowDb(api.db), intent, (step) => console.log(step));
 */
export async function completeIntent(db: FlowDb, intent: Intent, checkpoint?: (step: TimeTravelStep) => void | Promise<void>): Promise<IntentOutcome> {
  const { env, store } = db.binding;
  let kept: string[] = [];
  try {
    if (intent.pointer && intent.workspace) {
      if (!env.vcs) {
        throw new FlowError("VCS_FAILED", `Run ${intent.runId} has an unfinished time travel (intent ${intent.intentId}) that must restore files, and this host has no VCS port; finish it from Node (timeTravel or resume).`, {
          runId: intent.runId,
          intentId: intent.intentId,
        });
      }
      try {
        kept = (await env.vcs.restore(intent.workspace, intent.pointer)).repositories ?? [];
      } catch (cause) {
        if (intent.beforePointer) await env.vcs.restore(intent.workspace, intent.beforePointer).catch(() => undefined);
        const error = `Restoring snapshot ${intent.pointer} into ${intent.workspace} failed (${(cause as Error).message}); the working tree was put back as it was and run ${intent.runId} is unchanged.`;
        await store.execute(`UPDATE ${TABLES.timeTravel} SET status = 'failed', error_json = ?, finished_at_ms = ? WHERE run_id = ? AND intent_id = ?`, [
          JSON.stringify({ message: error }),
          env.clock.now(),
          intent.runId,
          intent.intentId,
        ]);
        return { ok: false, error };
      }
      await checkpoint?.("files-restored");
    }
    const outcome = await commitIntent(db, intent, kept);
    await checkpoint?.("committed");
    return outcome;
  } finally {
    inFlight.delete(intent.intentId);
  }
}

/** The row changes of an intent and its `done` mark, in one transaction (SPEC.md state table). */
async function commitIntent(db: FlowDb, intent: Intent, kept: string[]): Promise<IntentOutcome> {
  const { env, store, registry } = db.binding;
  const { runId } = intent;
  const now = env.clock.now();
  const attempts = await db.listAttempts(runId);
  const target = attempts.find((a) => a.nodeId === intent.nodeId && a.iteration === intent.iteration && a.attempt === intent.attempt);
  if (!target) return { ok: false, error: `Attempt ${intent.attempt} of ${intent.nodeId} (iteration ${intent.iteration}) is no longer in run ${runId}.` };
  const batch = new WriteBatch();
  const events: FlowEvent[] = [];
  let seq = await eventSql.lastSeq(store, runId);
  const emit = (e: Record<string, unknown> & { type: FlowEvent["type"] }) => {
    const event = { ...e, runId, timestampMs: now, seq: ++seq } as FlowEvent;
    eventSql.insert(batch, event);
    events.push(event);
  };
  const ref = { nodeId: intent.nodeId, iteration: intent.iteration, attempt: intent.attempt, vcsPointer: intent.pointer, intentId: intent.intentId, ...(kept.length ? { keptRepositories: kept } : {}) };
  const resetNodes: string[] = [];
  let decisions: ResetDecision[] = [];

  if (intent.kind === "rewind") {
    const reset = resetSetOf(await db.listNodes(runId), attempts, intent);
    if (!reset) return { ok: false, error: `Node ${intent.nodeId} (iteration ${intent.iteration}) is not in run ${runId}.` };
    const resetKeys = new Set(reset.map((n) => `${n.nodeId}@${n.iteration}`));
    const cancelled = { code: "TASK_CANCELLED", message: `Cancelled by time travel to ${intent.nodeId} (iteration ${intent.iteration}, attempt ${intent.attempt}).` };
    for (const a of attempts) {
      const sameNode = a.nodeId === intent.nodeId && a.iteration === intent.iteration;
      const later = sameNode ? a.attempt > intent.attempt : intent.resetDependents && a.startedAtMs > target.startedAtMs && resetKeys.has(`${a.nodeId}@${a.iteration}`);
      if (!later || a.state === "cancelled") continue;
      batch.push(`UPDATE ${TABLES.attempts} SET state = 'cancelled', error_json = ?, finished_at_ms = COALESCE(finished_at_ms, ?) WHERE run_id = ? AND node_id = ? AND iteration = ? AND attempt = ?`, [
        json(cancelled),
        now,
        runId,
        a.nodeId,
        a.iteration,
        a.attempt,
      ]);
    }
    decisions = await resetWaits(store, batch, runId, reset, intent.keepDecisions);
    for (const n of reset) {
      const entry = n.outputTable ? registry.entries.get(n.outputTable) : undefined;
      if (entry) outputSql.remove(batch, entry, runId, n.nodeId, n.iteration);
      nodeChange(batch, runId, n.state, { nodeId: n.nodeId, iteration: n.iteration, state: "pending", attempts: n.attempts }, now);
      emit({ type: "TaskReset", nodeId: n.nodeId, iteration: n.iteration, reason: "time-travel" });
      resetNodes.push(n.nodeId);
    }
    const iterations = await loopIterationsAt(db, runId, intent);
    batch.push(`DELETE FROM ${TABLES.frames} WHERE run_id = ? AND created_at_ms > ?`, [runId, target.startedAtMs]);
    // Paused for a person (`pause_reason = 'rewind'`): no Gateway or worker picks a rewound
    // run up; resumeRun, `flow up --resume` or the app's Resume continue it.
    const run = await db.requireRun(runId);
    const rewound = { pause_reason: "rewind", owner_id: null, heartbeat_at_ms: null, output_json: null, error_json: null, finished_at_ms: null };
    batch.push(...statusChange(runId, run.status, "paused", now, iterations ? { ...rewound, iterations_json: JSON.stringify(iterations) } : rewound));
    emit({ type: "TimeTravelFinished", ...ref, resetNodes: [...new Set(resetNodes)], vcsRestored: intent.pointer !== null && intent.workspace !== null, forcedEffects: intent.crossed.forced.length });
  } else {
    batch.push(`DELETE FROM ${TABLES.frames} WHERE run_id = ? AND created_at_ms > ?`, [runId, target.finishedAtMs ?? target.startedAtMs]);
    emit({ type: "RevertFinished", ...ref, forcedEffects: intent.crossed.forced.length });
  }
  if (intent.crossed.forced.length) {
    // A forced crossing marks the run for attention: someone should check what was repeated.
    batch.push(`UPDATE ${TABLES.runs} SET attention_json = ? WHERE run_id = ?`, [
      JSON.stringify({ reason: "time-travel-forced", intentId: intent.intentId, atMs: now, effects: intent.crossed.forced }),
      runId,
    ]);
  }
  batch.push(`UPDATE ${TABLES.timeTravel} SET status = 'done', finished_at_ms = ? WHERE run_id = ? AND intent_id = ?`, [now, runId, intent.intentId]);
  try {
    await batch.commit(store);
  } catch (cause) {
    throw new FlowError("DB_WRITE_FAILED", `Time travel of run ${runId} restored the files but could not commit its rows (${(cause as Error).message}); the next timeTravel or resume of the run finishes it.`, { runId, intentId: intent.intentId }, { cause });
  }
  return { ok: true, resetNodes: [...new Set(resetNodes)], decisions, events, kept };
}

/**
 * The nodes a rewind sets back to `pending`: the target and, with `resetDependents`, what
 * came after it; undefined when the target node or attempt is not in the run.
 * @example
 * const reset = resetSetOf(await db.listNodes(runId), await db.listAttempts(runId), intent);
 */
export function resetSetOf(nodes: NodeRecord[], attempts: AttemptRecord[], intent: Pick<Intent, "nodeId" | "iteration" | "attempt" | "resetDependents">): NodeRecord[] | undefined {
  const targetNode = nodes.find((n) => n.nodeId === intent.nodeId && n.iteration === intent.iteration);
  const target = attempts.find((a) => a.nodeId === intent.nodeId && a.iteration === intent.iteration && a.attempt === intent.attempt);
  if (!targetNode || !target) return undefined;
  return [targetNode, ...(intent.resetDependents ? dependentsOf(nodes, attempts, targetNode, target.startedAtMs) : [])];
}

/**
 * The run's loop counters with the target's loop set back to the target's iteration (or null: unchanged).
 * @example
 * const iterations = await loopIterationsAt(db, runId, { nodeId: "review", iteration: 1 });
 */
export async function loopIterationsAt(db: FlowDb, runId: string, intent: { nodeId: string; iteration: number }): Promise<Record<string, number> | null> {
  const [run, frame] = await Promise.all([db.getRun(runId), db.getFrame(runId)]);
  const loopId = frame?.tasks.find((t) => t.nodeId === intent.nodeId)?.ralphId;
  if (!run || !loopId || (run.iterations[loopId] ?? 0) <= intent.iteration) return null;
  return { ...run.iterations, [loopId]: intent.iteration };
}
