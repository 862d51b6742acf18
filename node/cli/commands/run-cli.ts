/**
 * @module node/cli/commands/run-cli
 * What the commands acting on one run (`cancel`, `pause`, `resume`, `retry`, `rewind`) share:
 * the run's store and, when known, its workflow. `--workflow <file>` names it; otherwise the
 * store the project resolves is opened and the workflow file the run recorded when it started
 * is loaded from there (so `flow rewind <run> <node>` needs no `--workflow`). See docs/cli.md
 * ("Controlling runs").
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { FlowDb } from "../../../core/engine/index.js";
import type { FlowWorkflow } from "../../../core/engine/index.js";
import { type CliIO, UsageError } from "../command.js";
import { loadWorkflow } from "../load-workflow.js";
import { resolveRunId } from "./run-id.js";
import { type StoreOptions, withStore } from "./wait-cli.js";

/** A run's store and the workflow it runs (undefined when neither given nor recorded). */
export interface RunHandle {
  /** The run's whole id (a shortened one the command was given, resolved: node/cli/commands/run-id.ts). */
  runId: string;
  db: FlowDb;
  workflow: FlowWorkflow | undefined;
  /** The workflow file, as given or recorded. */
  workflowPath: string | undefined;
}

/**
 * The one run id a command acting on a run was given.
 * @example
 * const runId = oneRunId(positionals); // UsageError unless exactly one
 */
export function oneRunId(positionals: string[]): string {
  const [runId, extra] = positionals;
  if (!runId || extra !== undefined) throw new UsageError("give one run id.");
  return runId;
}

/**
 * Runs `fn` on the run `given` names (whole or shortened), with its store and workflow, then
 * closes what it opened.
 * @example
 * await withRun(io, values, given, ({ runId, db, workflow }) => stopRun(db, runId, "cancel", { workflow }));
 */
export async function withRun<T>(io: CliIO, where: StoreOptions, given: string, fn: (run: RunHandle) => Promise<T>): Promise<T> {
  if (where.workflow !== undefined) {
    if (where.db !== undefined) throw new UsageError("give --db or --workflow, not both.");
    const { workflow, path } = await loadWorkflow(where.workflow, io.cwd);
    return withWorkflowDb(workflow, path, given, fn);
  }
  return withStore(io, where, async (db) => {
    const runId = await resolveRunId(db, given);
    const recorded = (await db.requireRun(runId)).workflowPath;
    if (!recorded || !existsSync(recorded)) return fn({ runId, db, workflow: undefined, workflowPath: undefined });
    const { workflow } = await loadWorkflow(recorded, io.cwd);
    return withWorkflowDb(workflow, recorded, runId, fn);
  });
}

/** `fn` on the workflow's own store, with the run `given` names there. */
async function withWorkflowDb<T>(workflow: FlowWorkflow, workflowPath: string, given: string, fn: (run: RunHandle) => Promise<T>): Promise<T> {
  const db = new FlowDb(workflow);
  try {
    return await fn({ runId: await resolveRunId(db, given), db, workflow, workflowPath });
  } finally {
    await db.store.close();
  }
}

/** A script file a workflow can be loaded from, by its extension. */
const SCRIPT = /\.(?:[cm]?[jt]sx?)$/;

/** A workflow to start a new run with, and the words that follow it. */
export interface RunWorkflow {
  workflow: FlowWorkflow;
  workflowPath: string;
  /** The positionals after the workflow file: the run id first (whole: a shortened one resolved). */
  args: string[];
}

/**
 * For the commands that start a new run from a run (`fork`, `replay`): the workflow file given
 * first (a first word that names an existing script), else `--workflow`, else the file the run
 * recorded when it started, as `withRun` finds it. UsageError when none is known.
 * @example
 * await withRunWorkflow(io, values, "fork", positionals, ({ workflow, args: [runId, nodeId] }) => forkRun(workflow, { runId, nodeId }));
 */
export async function withRunWorkflow<T>(io: CliIO, where: StoreOptions, command: string, positionals: string[], fn: (run: RunWorkflow) => Promise<T>): Promise<T> {
  const [first, ...rest] = positionals;
  if (first !== undefined && SCRIPT.test(first) && existsSync(resolve(io.cwd, first))) {
    const { workflow, path } = await loadWorkflow(first, io.cwd);
    // The workflow's own store, which the command goes on to use (not closed here).
    const [given, ...after] = rest;
    return fn({ workflow, workflowPath: path, args: given === undefined ? rest : [await resolveRunId(new FlowDb(workflow), given), ...after] });
  }
  if (!first) throw new UsageError("give a run id.");
  return withRun(io, where, first, ({ runId, workflow, workflowPath }) => {
    if (!workflow || !workflowPath) throw new UsageError(`run ${runId} recorded no workflow file that exists now: give the file first (flow ${command} <workflow file> ${runId} ...) or --workflow <file>.`);
    return fn({ workflow, workflowPath, args: [runId, ...rest] });
  });
}
