/**
 * @module core/time-travel/time-travel
 * `timeTravel` and `revertToAttempt` (SPEC.md "Time travel" and its state table;
 * docs/time-travel.md). Both check the run and the target attempt, report the side effects
 * they cross (throwing TIME_TRAVEL_SIDE_EFFECT_BLOCKED unless `force`), run the known
 * compensations, then go through a crash-safe intent (core/engine/travel/intent.ts): snapshot of
 * the tree as it is, intent row, file restore, one transaction for the rows.
 */
import { effectKey, ownerStateOf, recoverTimeTravel, settledEffectKeys } from "../engine/index.js";
import { completeIntent, intentRef, resetSetOf, writeIntent } from "../engine/internal.js";
import type { FlowDb, FlowEvent } from "../engine/index.js";
import type { Intent, ResetDecision } from "../engine/internal.js";
import { FlowError } from "../errors.js";
import { plural } from "../util/index.js";
import { type FlowDbLike, flowDbOf } from "./adapter.js";
import { compensate, effectBoundary } from "./effects.js";
import type { EffectBoundaryReport, RevertOptions, RevertResult, TimeTravelOptions, TimeTravelResult } from "./types.js";
import { TABLES } from "../protocol.js";


/** What both operations share: the resolved target and how it ended. */
type Travel = { ok: true; pointer: string | null; restored: boolean; kept: string[]; resetNodes: string[]; decisions: ResetDecision[]; report: EffectBoundaryReport } | { ok: false; pointer: string | null; error: string; report: EffectBoundaryReport };

/** The `keptRepositories` field of a result, where a restore left any. */
const keptOf = (t: Travel) => (t.ok && t.kept.length ? { keptRepositories: t.kept } : {});

const emptyReport = (): EffectBoundaryReport => ({ blocking: [], revertible: [], warnings: [] });

/**
 * Rolls a run back to a task attempt: the files the attempt started from are restored
 * (`restoreVcs`), later attempts are cancelled and their rows deleted, later frames discarded,
 * the target (and, with `resetDependents`, what came after it) set to `pending`, and the run
 * left `running` for the caller to resume.
 * @example
 * const r = await timeTravel(new FlowDb(api.db), { runId, nodeId: "review" });
 * if (r.success) await runWorkflow(workflow, { runId, resume: true }); // re-runs only what was reset
 */
export async function timeTravel(adapter: FlowDbLike, opts: TimeTravelOptions): Promise<TimeTravelResult> {
  const t = await travel(flowDbOf(adapter), "rewind", { ...opts, iteration: opts.iteration ?? 0 }, opts.restoreVcs !== false, opts.resetDependents !== false);
  if (!t.ok) return { success: false, ...(t.pointer ? { vcsPointer: t.pointer } : {}), vcsRestored: false, resetNodes: [], effectBoundary: t.report, error: t.error };
  return { success: true, ...(t.pointer ? { vcsPointer: t.pointer } : {}), vcsRestored: t.restored, ...keptOf(t), resetNodes: t.resetNodes, decisions: t.decisions, effectBoundary: t.report };
}

/**
 * Restores only the files of an attempt (the tree right after it) and discards later frames;
 * no node, attempt or run status changes.
 * @example
 * const r = await revertToAttempt(new FlowDb(api.db), { runId, nodeId: "review", iteration: 0, attempt: 1 });
 * if (!r.success) console.error(r.error);
 */
export async function revertToAttempt(adapter: FlowDbLike, opts: RevertOptions): Promise<RevertResult> {
  const t = await travel(flowDbOf(adapter), "revert", opts, true, false);
  return { success: t.ok, ...(t.pointer ? { vcsPointer: t.pointer } : {}), ...keptOf(t), effectBoundary: t.report, ...(t.ok ? {} : { error: t.error }) };
}

/**
 * The snapshot a rewind to the attempt (the tree it started from) or a revert (the tree right
 * after it) restores, and the workspace the run recorded; null where there is none.
 */
async function snapshotOf(db: FlowDb, kind: "rewind" | "revert", at: { runId: string; nodeId: string; iteration: number; attempt: number }): Promise<{ pointer: string | null; workspace: string | null }> {
  const [row] = await db.store.query<{ vcs_pointer: string | null; vcs_start_pointer: string | null }>(
    `SELECT vcs_pointer, vcs_start_pointer FROM ${TABLES.attempts} WHERE run_id = ? AND node_id = ? AND iteration = ? AND attempt = ?`,
    [at.runId, at.nodeId, at.iteration, at.attempt],
  );
  const [run] = await db.store.query<{ workspace_dir: string | null }>(`SELECT workspace_dir FROM ${TABLES.runs} WHERE run_id = ?`, [at.runId]);
  return { pointer: (kind === "rewind" ? row?.vcs_start_pointer : row?.vcs_pointer) ?? null, workspace: run?.workspace_dir ?? null };
}

/**
 * The repositories inside the run's workspace that a rewind to the attempt would leave as they
 * are (`VcsPort.repositoriesKeptBy`), for a rewind's preview; none where the attempt has no
 * snapshot, the host no port that can tell, or the port cannot answer (the rewind itself then
 * says what is wrong).
 * @example
 * await keptByRewind(db, { runId: "r1", nodeId: "build", iteration: 0, attempt: 1 }); // ["deps/lib"]
 */
export async function keptByRewind(db: FlowDb, at: { runId: string; nodeId: string; iteration: number; attempt: number }): Promise<string[]> {
  const vcs = db.binding.env.vcs;
  if (!vcs?.repositoriesKeptBy) return [];
  const { pointer, workspace } = await snapshotOf(db, "rewind", at);
  return pointer && workspace ? vcs.repositoriesKeptBy(workspace, pointer).catch(() => []) : [];
}

async function travel(
  db: FlowDb,
  kind: "rewind" | "revert",
  opts: (TimeTravelOptions | RevertOptions) & { iteration: number },
  restore: boolean,
  resetDependents: boolean,
): Promise<Travel> {
  const { env, store } = db.binding;
  const { runId, nodeId, iteration } = opts;
  const fail = (error: string, pointer: string | null = null, report = emptyReport()): Travel => ({ ok: false, pointer, error, report });
  await recoverTimeTravel(db.binding, runId);
  const run = await db.getRun(runId);
  if (!run) return fail(`Run ${runId} does not exist.`);
  if (db.binding.activeRuns.has(runId)) return fail(`Run ${runId} is running in this process; pause or cancel it before going back in time.`);
  const now = env.clock.now();
  // A live process executes it (running, or waiting for quota in that process).
  if (run.ownerId !== env.ownerId && ownerStateOf(env, run) === "live") return fail(`Run ${runId} is ${run.status} in another process (${run.ownerId}); pause or cancel it before going back in time.`);

  const attempts = (await db.listAttempts(runId, nodeId)).filter((a) => a.iteration === iteration);
  const target = opts.attempt === undefined ? attempts.sort((a, b) => b.attempt - a.attempt)[0] : attempts.find((a) => a.attempt === opts.attempt);
  const what = `${nodeId} (iteration ${iteration}${opts.attempt === undefined ? "" : `, attempt ${opts.attempt}`})`;
  if (!target) return fail(`Run ${runId} has no attempt of ${what}.`);
  const { pointer, workspace } = await snapshotOf(db, kind, { runId, nodeId, iteration, attempt: target.attempt });
  if (restore) {
    const edge = kind === "rewind" ? "it started from" : "right after it";
    if (!pointer) return fail(`Attempt ${target.attempt} of ${nodeId} (iteration ${iteration}) in run ${runId} has no snapshot of the tree ${edge}: its workspace was not a git repository, snapshots were off, or it did not succeed. Pass restoreVcs: false to reset the rows only.`);
    if (!workspace) return fail(`Run ${runId} recorded no workspace to restore ${pointer} into.`, pointer);
    if (!env.vcs) return fail(`This host has no VCS port, so snapshot ${pointer} cannot be restored; run time travel from Node.`, pointer);
  }

  if (kind === "rewind") {
    // Rows of reset nodes are deleted by table: a store opened without the workflow's schemas
    // (an empty registry) cannot do that, so it is refused before anything changes.
    const reset = resetSetOf(await db.listNodes(runId), await db.listAttempts(runId), { nodeId, iteration, attempt: target.attempt, resetDependents }) ?? [];
    const unknown = reset.filter((n) => n.outputTable && !db.registry.entries.has(n.outputTable)).map((n) => n.outputTable);
    if (!reset.length) return fail(`Node ${nodeId} (iteration ${iteration}) is not in run ${runId}.`, pointer);
    if (unknown.length) return fail(`This store handle does not know the output table(s) ${[...new Set(unknown)].join(", ")} of the nodes to reset; open it through the workflow (FlowDb of its api.db, or --workflow <file> in the CLI).`, pointer);
  }
  const settled = await settledEffectKeys(db.binding, runId);
  const crossed = await effectBoundary(store, {
    runId,
    sinceMs: kind === "rewind" ? target.startedAtMs : (target.finishedAtMs ?? target.startedAtMs),
    inclusive: kind === "rewind",
    restoresFiles: restore,
    noRevert: opts.noRevert === true,
    compensations: opts.compensations ?? {},
  });
  const report: EffectBoundaryReport = {
    blocking: crossed.blocking.filter((e) => !settled.has(effectKey(e))),
    revertible: crossed.revertible.filter((e) => !settled.has(effectKey(e))),
    warnings: crossed.warnings,
  };
  if (report.blocking.length && !opts.force) {
    throw new FlowError(
      "TIME_TRAVEL_SIDE_EFFECT_BLOCKED",
      `Going back to ${what} in run ${runId} crosses ${plural(report.blocking.length, "side effect")} that cannot be undone (${[...new Set(report.blocking.map((e) => e.toolName))].join(", ")}); pass force: true to cross them anyway (the run is then marked for attention), or give compensations.`,
      { runId, nodeId, iteration, attempt: target.attempt, effectBoundary: report as unknown as Record<string, unknown> },
    );
  }
  if (opts.noRevert !== true) {
    try {
      await compensate(report, opts.compensations ?? {});
    } catch (error) {
      return fail(`A compensation failed before any file or row changed: ${(error as Error).message}`, pointer, report);
    }
  }

  const intentId = env.newId();
  const ref = { nodeId, iteration, attempt: target.attempt, vcsPointer: restore ? pointer : null, intentId };
  opts.onProgress?.({ type: kind === "rewind" ? "TimeTravelStarted" : "RevertStarted", runId, timestampMs: now, ...ref } as FlowEvent);
  let before: string | null = null;
  if (restore) {
    try {
      before = await env.vcs!.snapshot(workspace!, intentRef(runId, intentId), `flow ${runId}: working tree before time travel ${intentId}`);
    } catch (error) {
      return fail(`Could not snapshot the working tree of ${workspace} before restoring (${(error as Error).message}); nothing changed.`, pointer, report);
    }
  }
  const intent: Intent = {
    runId,
    intentId,
    kind,
    nodeId,
    iteration,
    attempt: target.attempt,
    pointer: restore ? pointer : null,
    beforePointer: before,
    workspace: restore ? workspace : null,
    resetDependents,
    keepDecisions: (opts as TimeTravelOptions).keepDecisions === true,
    crossed: { forced: report.blocking, reverted: report.revertible },
    ownerId: env.ownerId,
    createdAtMs: now,
  };
  await writeIntent(db.binding, intent);
  await opts.checkpoint?.("intent-written");
  const outcome = await completeIntent(db, intent, opts.checkpoint);
  if (!outcome.ok) return fail(outcome.error, pointer, report);
  for (const e of outcome.events) opts.onProgress?.(e);
  return { ok: true, pointer, restored: restore, kept: outcome.kept, resetNodes: outcome.resetNodes, decisions: outcome.decisions, report };
}
