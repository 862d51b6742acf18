/**
 * @module core/engine/plan-patch
 * A full render whose tree has the plan of the last one (docs/engine.md, "Incremental
 * renders"): a build function that reads outputs runs again after each of them and creates
 * every element anew, but usually only a few props changed (a label, a child function). When
 * the new host tree has, place by place, the same tags, the same container props and the same
 * node ids as the tree the plan was extracted from, the plan, the scheduler and the node
 * states stay; each task only takes the descriptor of its new element, and the frame is
 * written from the shared previous one (frame-xml.ts, snapshot.ts `frameTaskOf`). Anything else
 * returns null and the session extracts a new plan, so the outcome is the one extraction would
 * have given.
 */
import type { HostElement, HostNode } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { SchemaRegistry } from "../schema/index.js";
import { carries, type Extracted, isNodeTag, redescribeTask, taskElement, withChildFunction } from "./extract.js";
import { sameShape } from "./incremental-render.js";
import type { PlanTask } from "./plan.js";
import type { TaskDescriptor } from "./types.js";

/** What the tasks of the plan take, in the plan's order: `extracted.tasks[i]` takes `els[i]` and `descs[i]`. */
export interface PlanPatch {
  els: HostElement[];
  descs: TaskDescriptor[];
}

/**
 * The new element and descriptor of every task of `extracted` when `next` (the new render's
 * top level) has the plan of `previous` (the tree `extracted` came from); null otherwise.
 * A task whose props the renderer kept keeps its descriptor (`adoptDescriptor` then sets
 * the new child function in it), unless `held`.
 * Describing a node may throw RENDER_FAILED, as extraction would for the same node.
 * @example
 * const patch = patchPlan(plan, lastNodes, nodes, registry, (t) => running.has(t.key));
 * if (patch) plan.tasks.forEach((task, i) => adoptDescriptor(task, patch.els[i]!, patch.descs[i]!));
 */
export function patchPlan(
  extracted: Extracted,
  previous: readonly HostNode[],
  next: readonly HostNode[],
  registry: SchemaRegistry,
  held: (task: PlanTask) => boolean,
): PlanPatch | null {
  const walk: PatchWalk = { tasks: extracted.tasks, at: 0, registry, held, els: [], descs: [] };
  if (!sameList(previous, next, walk) || walk.at !== extracted.tasks.length) return null;
  return { els: walk.els, descs: walk.descs };
}

interface PatchWalk {
  /** The plan's tasks in tree order: the n-th node element met is the n-th task. */
  tasks: readonly PlanTask[];
  at: number;
  registry: SchemaRegistry;
  /** Whether a running attempt holds the task's descriptor (it then never changes in place). */
  held: (task: PlanTask) => boolean;
  els: HostElement[];
  descs: TaskDescriptor[];
}

function sameList(a: readonly HostNode[], b: readonly HostNode[], walk: PatchWalk): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.kind !== y.kind) return false;
    if (x.kind === "element" && !samePlace(x, y as HostElement, walk)) return false;
  }
  return true;
}

function samePlace(a: HostElement, b: HostElement, walk: PatchWalk): boolean {
  if (a.tag !== b.tag) return false;
  // A Signal is a node with children: left to extraction.
  if (b.tag === TAGS.signal) return false;
  if (!isNodeTag(b.tag)) return sameContainerProps(a.rawProps, b.rawProps) && sameList(a.children, b.children, walk);
  const task = walk.tasks[walk.at++];
  if (!task || taskElement(task) !== a || b.rawProps.id !== a.rawProps.id) return false;
  // Props the renderer kept describe as before: the descriptor stays (a copy where an attempt holds it).
  const desc = !carries(task, b) ? redescribeTask(task, b, walk.registry) : walk.held(task) ? withChildFunction(task.desc, b) : task.desc;
  if (desc !== task.desc && !sameShape(task.desc, desc)) return false;
  walk.els.push(b);
  walk.descs.push(desc);
  return true;
}

/** What extraction reads from a container (ids, limits, loop settings, ...): every prop but its children, the same value. */
function sameContainerProps(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const k in b) {
    if (k === "children") continue;
    count++;
    if (a[k] !== b[k]) return false;
  }
  for (const k in a) if (k !== "children") count--;
  return count === 0;
}
