/**
 * @module core/engine/plan
 * The plan: the rendered tree reduced to what scheduling needs. Tasks are leaves; groups say
 * how their children run (`seq`: one after another; `par`: together, with an optional limit;
 * `loop`: like seq, repeated). Built by extract.ts, walked by scheduler.ts.
 */
import type { TaskDescriptor } from "./types.js";

export interface PlanTask {
  kind: "task";
  /** `${nodeId}@${iteration}`: the node key used everywhere in the engine. */
  key: string;
  desc: TaskDescriptor;
  parent: PlanGroup | null;
  index: number;
  done: boolean;
  /** Explicit dependencies (dependsOn, needs, deps) not complete yet. */
  waitingOn: number;
  active: boolean;
  /** An async wait its siblings already went past (scheduler.passThrough). */
  passed?: boolean;
  /** Enclosing parallel groups that limit concurrency, innermost first. */
  limits: PlanGroup[];
  /** Enclosing Saga / TryCatchFinally ids that catch this task's failure, innermost first. */
  scopes: string[];
  /** Its descriptor as the last frame stored it, and the descriptor that was (snapshot.ts `frameTaskOf`). */
  frameTask?: Record<string, unknown>;
  frameTaskFor?: TaskDescriptor;
}

export interface PlanGroup {
  kind: "seq" | "par" | "loop";
  id: string;
  parent: PlanGroup | null;
  index: number;
  children: PlanNode[];
  done: boolean;
  remaining: number;
  cursor: number;
  active: boolean;
  /** `par`: at most this many tasks of the group run at once. */
  maxConcurrency?: number;
  running: number;
  /** `par` with `subtreeConcurrency`: at most this many children (subtrees) started and not complete. */
  subtreeMax?: number;
  loop?: LoopInfo;
}

export interface LoopInfo {
  id: string;
  /** The iteration its tasks' rows are keyed by. */
  iteration: number;
  /**
   * The iteration at which the current pass began: 0 for a top-level loop; for a loop nested
   * in others, where it started in the current iteration of the loops around it.
   */
  start: number;
  /** Iterations of the enclosing loops, by loop id (empty at top level). */
  path: Record<string, number>;
  until: boolean;
  maxIterations: number;
  onMaxReached: "fail" | "return-last";
  /** Start a fresh run (continue-as-new) every this many iterations. */
  continueAsNewEvery?: number;
}

export type PlanNode = PlanTask | PlanGroup;

/** The node key of a task at an iteration. */
export function nodeKey(nodeId: string, iteration: number): string {
  return `${nodeId}@${iteration}`;
}

export function newGroup(kind: PlanGroup["kind"], id: string, parent: PlanGroup | null): PlanGroup {
  return { kind, id, parent, index: 0, children: [], done: false, remaining: 0, cursor: 0, active: false, running: 0 };
}
