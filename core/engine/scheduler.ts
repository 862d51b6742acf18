/**
 * @module core/engine/scheduler
 * Incremental readiness over a plan. Built once per render (O(tasks)); after that each
 * completion costs O(1) amortized: sequences advance a cursor, groups count remaining
 * children, explicit dependencies count what they wait on. The scheduler never reads the
 * database (DESIGN.md performance rules).
 */
import { FlowError } from "../errors.js";
import type { Extracted } from "./extract.js";
import type { PlanGroup, PlanNode, PlanTask } from "./plan.js";

export interface SchedulerInput {
  extracted: Extracted;
  /** Whether a node key counts as complete (finished, skipped, or failed with continueOnFail). */
  isComplete(key: string): boolean;
  /** Whether some iteration of a node id not in the tree is complete (dependencies on past nodes). */
  isNodeIdComplete(nodeId: string): boolean;
  /** An attempt of this node is running: it holds a slot in its groups and is not queued. */
  isRunning(key: string): boolean;
  /** This node waits for a retry timer: not queued (the timer requeues it). */
  isWaiting(key: string): boolean;
}

export class Scheduler {
  private readonly buckets = new Map<string, PlanTask[]>();
  private readonly heads = new Map<string, number>();
  private readonly dependents = new Map<string, PlanTask[]>();
  /** Loops whose body is complete for this iteration and that need a decision (render). */
  readonly boundaries = new Set<PlanGroup>();
  /** Loops that hit maxIterations with onMaxReached "fail". */
  readonly exhausted: PlanGroup[] = [];
  private queued = 0;

  constructor(private readonly input: SchedulerInput) {
    const { extracted } = input;
    for (const t of extracted.tasks) t.done = input.isComplete(t.key);
    settle(extracted.root, this);
    for (const t of extracted.tasks) {
      this.wireDependencies(t);
      if (!t.done && input.isRunning(t.key)) for (const g of t.limits) g.running++;
    }
    this.activate(extracted.root);
  }

  /** True when every node of the tree is complete. */
  get finished(): boolean {
    return this.input.extracted.root.done;
  }

  /** Number of tasks ready to start (not counting concurrency limits). */
  get readyCount(): number {
    return this.queued;
  }

  /** Takes up to `free` ready tasks that their parallel groups have room for. */
  take(free: number): PlanTask[] {
    const out: PlanTask[] = [];
    for (const [bucket, queue] of this.buckets) {
      let head = this.heads.get(bucket) ?? 0;
      while (out.length < free && head < queue.length) {
        const t = queue[head]!;
        if (t.limits.some((g) => g.running >= (g.maxConcurrency ?? Infinity))) break;
        head++;
        this.queued--;
        for (const g of t.limits) g.running++;
        out.push(t);
      }
      if (head >= queue.length) {
        this.buckets.delete(bucket);
        this.heads.delete(bucket);
      } else this.heads.set(bucket, head);
      if (out.length >= free) break;
    }
    return out;
  }

  /** A taken task stopped running (whatever the outcome): frees its group slots. */
  release(task: PlanTask): void {
    for (const g of task.limits) g.running--;
  }

  /** Puts a taken task back in the ready queue (a retry). */
  requeue(task: PlanTask): void {
    this.enqueue(task);
  }

  /** Marks a task complete and activates what it unblocks. */
  complete(task: PlanTask): void {
    if (task.done) return;
    task.done = true;
    for (const d of this.dependents.get(task.desc.nodeId) ?? []) {
      d.waitingOn--;
      if (d.waitingOn === 0 && d.active && !d.done) this.enqueue(d);
    }
    if (!task.passed) this.childDone(task);
  }

  /**
   * An `async` wait: its siblings go on as if it were complete, while tasks that depend on it
   * explicitly still wait for it.
   */
  passThrough(task: PlanTask): void {
    if (task.done || task.passed) return;
    task.passed = true;
    this.childDone(task);
  }

  /** Tasks that wait on dependencies which cannot complete (a cycle): for a clear error. */
  stuck(): string[] {
    return this.input.extracted.tasks.filter((t) => t.active && !t.done && t.waitingOn > 0).map((t) => t.desc.nodeId);
  }

  private wireDependencies(t: PlanTask): void {
    const { byNodeId } = this.input.extracted;
    for (const dep of t.desc.dependsOn ?? []) {
      if (dep === t.desc.nodeId) throw new FlowError("RENDER_FAILED", `Task "${dep}" depends on itself.`, { nodeId: dep });
      const target = byNodeId.get(dep);
      if (!target) {
        if (this.input.isNodeIdComplete(dep)) continue;
        throw new FlowError("RENDER_FAILED", `Task "${t.desc.nodeId}" depends on "${dep}", which is not in the workflow.`, {
          nodeId: t.desc.nodeId,
          dependency: dep,
        });
      }
      if (target.done) continue;
      t.waitingOn++;
      let list = this.dependents.get(dep);
      if (!list) this.dependents.set(dep, (list = []));
      list.push(t);
    }
  }

  private enqueue(t: PlanTask): void {
    const bucket = t.limits[0]?.id ?? "";
    let q = this.buckets.get(bucket);
    if (!q) this.buckets.set(bucket, (q = []));
    q.push(t);
    this.queued++;
  }

  private activate(node: PlanNode): void {
    if (node.done || node.active) return;
    node.active = true;
    if (node.kind === "task") {
      if (node.waitingOn === 0 && !this.input.isRunning(node.key) && !this.input.isWaiting(node.key)) this.enqueue(node);
      return;
    }
    if (node.kind === "par") {
      if (node.subtreeMax === undefined) for (const c of node.children) this.activate(c);
      else this.admitSubtrees(node);
      return;
    }
    this.advance(node);
  }

  /**
   * `subtreeConcurrency`: children are admitted in order while fewer than `subtreeMax` admitted
   * ones are incomplete; the cursor is the next child to admit.
   */
  private admitSubtrees(g: PlanGroup): void {
    let open = 0;
    for (let i = 0; i < g.cursor; i++) if (!isPast(g.children[i]!)) open++;
    while (open < g.subtreeMax! && g.cursor < g.children.length) {
      const c = g.children[g.cursor++]!;
      if (isPast(c)) continue;
      open++;
      this.activate(c);
    }
  }

  private advance(g: PlanGroup): void {
    while (g.cursor < g.children.length && isPast(g.children[g.cursor]!)) g.cursor++;
    const next = g.children[g.cursor];
    if (next) this.activate(next);
  }

  private childDone(child: PlanNode): void {
    const g = child.parent;
    if (!g) return;
    g.remaining--;
    if (g.kind !== "par" && child.index === g.cursor) this.advance(g);
    if (g.kind === "par" && g.subtreeMax !== undefined && g.active) this.admitSubtrees(g);
    if (g.remaining === 0) this.groupBodyDone(g);
  }

  /** A group's children are all complete: a loop needs a decision, other groups are done. */
  groupBodyDone(g: PlanGroup): void {
    if (g.loop) {
      const l = g.loop;
      if (!l.until && l.iteration - l.start + 1 < l.maxIterations) {
        this.boundaries.add(g);
        return;
      }
      if (!l.until && l.onMaxReached === "fail") {
        this.exhausted.push(g);
        return;
      }
    }
    g.done = true;
    this.childDone(g);
  }
}

/** Initial done-ness and counters, bottom-up. A loop whose `until` holds is done at once. */
function settle(g: PlanGroup, s: Scheduler): void {
  g.remaining = 0;
  for (const c of g.children) {
    if (c.kind !== "task") settle(c, s);
    if (!c.done) g.remaining++;
  }
  if (g.loop?.until) {
    g.done = true;
    return;
  }
  if (g.remaining === 0) {
    // groupBodyDone would propagate to the parent, which settle() counts itself.
    const parent = g.parent;
    g.parent = null;
    s.groupBodyDone(g);
    g.parent = parent;
  }
}

/** A child a sequence may go past: complete, or an async wait it was told to pass. */
function isPast(node: PlanNode): boolean {
  return node.done || (node.kind === "task" && node.passed === true);
}
