/**
 * @module core/engine/nested-loops
 * Loops inside loops (docs/components.md, "Nested loops"). Output rows are keyed by
 * (runId, nodeId, iteration) and that key does not change: a task's iteration is the one of
 * its innermost loop, and a nested loop keeps counting on across the passes of the loops around
 * it instead of starting again at 0. So every (node, iteration) of a run is unique, `ctx.latest`
 * still finds the newest row, and the primary key (an `int` on PostgreSQL) needs no encoding.
 * Where each pass began is kept in the run's iterations map under `<loopId>#start`; each
 * level's iteration of a task is in its descriptor's `iterationPath` (frames) and in the
 * `LoopIteration` event of the loop that advanced. The key itself is `passStartKey`
 * (core/protocol.ts), which the library components read too.
 */
import { passStartKey } from "../protocol.js";
import type { PlanGroup } from "./plan.js";

function isInside(g: PlanGroup, outer: PlanGroup): boolean {
  for (let p = g.parent; p; p = p.parent) if (p === outer) return true;
  return false;
}

/**
 * The loop `outer` goes to its next iteration: every loop inside it starts a new pass at the
 * iteration after its last one (so rows of the new pass never overwrite those of the last).
 */
export function startInnerPasses(outer: PlanGroup, loops: readonly PlanGroup[], iterations: Record<string, number>): void {
  for (const g of loops) {
    if (!isInside(g, outer)) continue;
    const next = g.loop!.iteration + 1;
    iterations[g.loop!.id] = next;
    iterations[passStartKey(g.loop!.id)] = next;
  }
}

/**
 * The loop whose iteration `ctx.iteration` shows: the first unfinished loop in tree order, or
 * the innermost unfinished loop inside it; else the last loop of the tree.
 */
export function activeLoop(loops: readonly PlanGroup[]): PlanGroup | undefined {
  let active = loops.find((g) => !g.done);
  if (!active) return loops[loops.length - 1];
  for (const g of loops) if (!g.done && isInside(g, active)) active = g;
  return active;
}
