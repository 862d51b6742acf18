/**
 * @module core/time-travel/fork
 * `forkRun` and `replayRun` (docs/time-travel.md "Fork and replay"): a new run that starts
 * from a task attempt of an existing run, seeded with the outputs of everything that finished
 * before that attempt started (`initialOutputs`, `initialIterations`), so only the task and
 * what came after it run. The original run is only read. A fork may edit the input; a replay
 * keeps it. Both work where the original run worked (its recorded directory) unless their
 * options give a `rootDir`: forked from another directory, a run still edits its own files.
 */
import type { SchemaMap } from "../components/index.js";
import { attachBinding, bindingOf, dependentsOf, FlowDb, runWorkflow } from "../engine/index.js";
import { loopIterationsAt } from "../engine/internal.js";
import type { FlowWorkflow, RunOptions, RunResult } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { type FlowDbLike, flowDbOf } from "./adapter.js";

/**
 * Where a fork starts: a task attempt of an existing run (attempt omitted: the latest).
 * @example
 * const point: ForkPoint = { runId: "r1", nodeId: "review", iteration: 0 };
 */
export interface ForkPoint {
  runId: string;
  nodeId: string;
  /** Default 0. */
  iteration?: number;
  attempt?: number;
}

/**
 * What a fork starts with: the run options that seed it.
 * @example
 * const plan = await planFork(new FlowDb(api.db), { runId: "r1", nodeId: "review" });
 * await runWorkflow(workflow, { ...plan, runId: "r1-fork" });
 */
export interface ForkPlan {
  input: Record<string, unknown>;
  initialOutputs: Record<string, Array<Record<string, unknown>>>;
  initialIterations: Record<string, number>;
  /** `flow.forkedFrom` (`<run>:<node>@<iteration>#<attempt>`) to merge into the new run's annotations. */
  annotations: Record<string, string>;
  /** Node ids that will run again (the fork point and what came after it). */
  rerun: string[];
  /** The directory the original run worked in, where the new run works too (omitted when it recorded none). */
  rootDir?: string;
}

/**
 * Options of `forkRun`: the fork point, an optional edited input and the new run's options.
 * @example
 * const opts: ForkRunOptions = { runId: "r1", nodeId: "review", input: { topic: "edited" }, newRunId: "r1-b" };
 */
export interface ForkRunOptions extends ForkPoint, Omit<RunOptions, "runId" | "resume" | "input" | "initialOutputs" | "initialIterations" | "initialIteration"> {
  /** The new run's input (default: the original run's input). */
  input?: Record<string, unknown>;
  /** The new run's id (default: a fresh id). */
  newRunId?: string;
}

/**
 * The seed of a fork from an attempt of a run, read from the store (nothing is written).
 * @example
 * const plan = await planFork(new FlowDb(api.db), { runId, nodeId: "b" });
 * console.log(plan.rerun); // ["b", "c"]
 */
export async function planFork(adapter: FlowDbLike, point: ForkPoint): Promise<ForkPlan> {
  const db = flowDbOf(adapter);
  const { runId, nodeId } = point;
  const iteration = point.iteration ?? 0;
  const run = await db.requireRun(runId);
  const nodes = await db.listNodes(runId);
  const attempts = await db.listAttempts(runId);
  const target = nodes.find((n) => n.nodeId === nodeId && n.iteration === iteration);
  const own = attempts.filter((a) => a.nodeId === nodeId && a.iteration === iteration);
  const attempt = point.attempt === undefined ? own.sort((a, b) => b.attempt - a.attempt)[0] : own.find((a) => a.attempt === point.attempt);
  if (!target || !attempt) {
    throw new FlowError("NODE_NOT_FOUND", `Run ${runId} has no attempt of ${nodeId} (iteration ${iteration}${point.attempt === undefined ? "" : `, attempt ${point.attempt}`}) to fork from.`, { runId, nodeId, iteration });
  }
  const rerun = new Set([target, ...dependentsOf(nodes, attempts, target, attempt.startedAtMs)].map((n) => `${n.nodeId}@${n.iteration}`));
  const initialOutputs: ForkPlan["initialOutputs"] = {};
  for (const entry of db.registry.entries.values()) {
    if (entry.isInput) continue;
    const rows = (await db.listOutputs(runId, entry.key)).filter((r) => !rerun.has(`${String(r.nodeId)}@${Number(r.iteration)}`)).map(({ runId: _r, ...row }) => row);
    if (rows.length) initialOutputs[entry.key] = rows;
  }
  return {
    input: (run.input ?? {}) as Record<string, unknown>,
    initialOutputs,
    initialIterations: (await loopIterationsAt(db, runId, { nodeId, iteration })) ?? run.iterations,
    annotations: { "flow.forkedFrom": `${runId}:${nodeId}@${iteration}#${attempt.attempt}` },
    rerun: [...new Set([...rerun].map((k) => k.slice(0, k.lastIndexOf("@"))))],
    ...(run.rootDir ? { rootDir: run.rootDir } : {}),
  };
}

/**
 * The directory a run forked or replayed from `runId` works in: `explicit` when given, else
 * the one the original run recorded (`recorded`), which must still exist (RUN_WORKSPACE_MISSING,
 * as for a resume); undefined where there is neither (the new run's default applies).
 * @example
 * const rootDir = forkRootDir(binding.env, "r1", plan.rootDir, undefined);
 */
export function forkRootDir(env: { directoryExists?(path: string): boolean }, runId: string, recorded: string | undefined, explicit: string | undefined): string | undefined {
  if (explicit !== undefined || recorded === undefined) return explicit;
  if (env.directoryExists?.(recorded) === false) {
    throw new FlowError("RUN_WORKSPACE_MISSING", `Run ${runId} worked in ${recorded}, which no longer exists. Restore the directory, or give the new run a rootDir (flow fork/replay --root-dir <dir>) to work elsewhere.`, { runId, rootDir: recorded });
  }
  return recorded;
}

/**
 * Runs a new run from a task attempt of an existing one: the outputs from before the attempt
 * are seeded, the task and what came after it run, optionally on an edited input. The
 * original run is untouched.
 * @example
 * const forked = await forkRun(workflow, { runId, nodeId: "b", input: { x: 10 } });
 * console.log(forked.runId, forked.status);
 */
export async function forkRun<S extends SchemaMap>(workflow: FlowWorkflow<S>, opts: ForkRunOptions): Promise<RunResult> {
  const { runId, nodeId, iteration, attempt, newRunId, input, ...runOptions } = opts;
  const binding = bindingOf(workflow);
  const plan = await planFork(new FlowDb(attachBinding({}, binding)), { runId, nodeId, ...(iteration !== undefined ? { iteration } : {}), ...(attempt !== undefined ? { attempt } : {}) });
  const rootDir = forkRootDir(binding.env, runId, plan.rootDir, runOptions.rootDir);
  return runWorkflow(workflow, {
    ...(runOptions as RunOptions),
    ...(rootDir !== undefined ? { rootDir } : {}),
    ...(newRunId ? { runId: newRunId } : {}),
    input: (input ?? plan.input) as never,
    initialOutputs: plan.initialOutputs,
    initialIterations: plan.initialIterations,
    annotations: { ...runOptions.annotations, ...plan.annotations },
  });
}

/**
 * Re-runs a finished run from a task (default: its first task, i.e. everything) as a new run
 * with the same input.
 * @example
 * const again = await replayRun(workflow, { runId, nodeId: "review" });
 */
export async function replayRun<S extends SchemaMap>(workflow: FlowWorkflow<S>, opts: Omit<ForkRunOptions, "input" | "nodeId"> & { nodeId?: string }): Promise<RunResult> {
  const binding = bindingOf(workflow);
  const db = new FlowDb(attachBinding({}, binding));
  const run = await db.requireRun(opts.runId);
  if (run.status !== "finished") {
    throw new FlowError("INVALID_ARGUMENT", `Run ${opts.runId} is ${run.status}; only a finished run is replayed (resume it, or fork it with forkRun).`, { runId: opts.runId, status: run.status });
  }
  if (opts.nodeId) return forkRun(workflow, { ...opts, nodeId: opts.nodeId });
  const { runId, newRunId, iteration: _i, attempt: _a, ...runOptions } = opts;
  const rootDir = forkRootDir(binding.env, runId, run.rootDir ?? undefined, runOptions.rootDir);
  return runWorkflow(workflow, {
    ...(runOptions as RunOptions),
    ...(rootDir !== undefined ? { rootDir } : {}),
    ...(newRunId ? { runId: newRunId } : {}),
    input: run.input as never,
    annotations: { ...runOptions.annotations, "flow.replayOf": runId },
  });
}
