/**
 * @module core/engine/extract
 * Turns a rendered host tree into TaskDescriptors and a plan (SPEC.md "Task descriptor").
 * Structural errors (duplicate ids, missing outputs, unknown dependencies) surface here as
 * RENDER_FAILED with the offending id.
 */
import { FlowError } from "../errors.js";
import type { HostElement, HostNode } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { SchemaRegistry } from "../schema/index.js";
import { newGroup, nodeKey, type PlanGroup, type PlanTask } from "./plan.js";
import { describeNode, positiveOrUndefined, type WorkspaceRef } from "./describe-node.js";
import { passStartKey } from "../protocol.js";
import type { TaskDescriptor } from "./types.js";

/** Default `maxIterations` of a Loop. */
export const DEFAULT_MAX_ITERATIONS = 5;

export interface ExtractOptions {
  registry: SchemaRegistry;
  /** Current iteration of each loop id. */
  iterations: Record<string, number>;
  /** Iteration for a loop seen for the first time. */
  seedIteration: (loopId: string) => number;
  /** Cache every task unless it opts out (Workflow `cache` / WorkflowOptions.cache). */
  cacheByDefault: boolean;
  /**
   * The plan of the last render: a task rendered again from equal props at the same place
   * takes over its descriptor (`carriedDescriptor`) instead of being described anew.
   */
  previous?: Extracted | null;
}

/** A Saga or TryCatchFinally in the tree. */
export interface ScopeInfo {
  kind: "saga" | "try";
  group: PlanGroup;
  /** Saga: its step groups, in order. */
  steps: PlanGroup[];
}

export interface Extracted {
  root: PlanGroup;
  /** Sagas and try blocks whose body is running (their tasks carry the scope id). */
  scopes: Map<string, ScopeInfo>;
  tasks: PlanTask[];
  descriptors: TaskDescriptor[];
  byKey: Map<string, PlanTask>;
  /** Latest task of each node id in the tree (explicit dependencies resolve here). */
  byNodeId: Map<string, PlanTask>;
  loops: PlanGroup[];
}

/** Extracts the plan of a host tree. */
export function extractPlan(nodes: readonly HostNode[], opts: ExtractOptions): Extracted {
  const out: Extracted = { root: newGroup("seq", "root", null), scopes: new Map(), tasks: [], descriptors: [], byKey: new Map(), byNodeId: new Map(), loops: [] };
  const state: WalkState = { opts, out, loop: null, limits: [], cache: opts.cacheByDefault, scopes: [], workspace: undefined, step: null };
  walk(nodes, out.root, "0", state);
  return out;
}

interface WalkState {
  opts: ExtractOptions;
  out: Extracted;
  loop: PlanGroup | null;
  limits: PlanGroup[];
  cache: boolean;
  /** Enclosing scopes whose failures are caught, innermost first. */
  scopes: string[];
  /** The enclosing Worktree or Sandbox. */
  workspace: WorkspaceRef | undefined;
  /** The Saga step being walked. */
  step: PlanGroup | null;
  /** The Aspects blocks being walked, innermost first. */
  aspects?: string[];
  /** The child subtree of a Parallel with `subtreeConcurrency` being walked. */
  subtree?: { groupId: string; childKey: string; max: number };
}

function walk(nodes: readonly HostNode[], parent: PlanGroup, path: string, st: WalkState): void {
  nodes.forEach((node, i) => {
    if (node.kind !== "element") return;
    visit(node, parent, `${path}.${i}`, st);
  });
}

function addChild(parent: PlanGroup, child: PlanTask | PlanGroup): void {
  child.index = parent.children.length;
  parent.children.push(child);
}

function visit(el: HostElement, parent: PlanGroup, path: string, st: WalkState): void {
  const p = el.rawProps;
  if (NODE_TAGS.has(el.tag)) return addNode(el, parent, st);
  switch (el.tag) {
    case TAGS.signal: {
      // A Signal waits, then its children (rendered from the signal's data) run after it.
      const g = newGroup("seq", `signal:${path}`, parent);
      addChild(parent, g);
      addNode(el, g, st);
      walk(el.children, g, path, st);
      return;
    }
    case TAGS.parallel:
    case TAGS.mergeQueue: {
      const queue = el.tag === TAGS.mergeQueue;
      const g = newGroup("par", typeof p.id === "string" ? p.id : `${queue ? "merge-queue" : "parallel"}:${path}`, parent);
      // A merge queue takes its children one at a time unless told otherwise.
      const max = positiveOrUndefined(p.maxConcurrency, `${queue ? "MergeQueue" : "Parallel"} ${g.id} maxConcurrency`) ?? (queue ? 1 : undefined);
      if (max !== undefined) g.maxConcurrency = max;
      addChild(parent, g);
      const limits = st.limits;
      if (max !== undefined) st.limits = [g, ...limits];
      const subtreeMax = queue ? undefined : positiveOrUndefined(p.subtreeConcurrency, `Parallel ${g.id} subtreeConcurrency`);
      if (subtreeMax === undefined) walk(el.children, g, path, st);
      else {
        // Each child is a subtree admitted as a whole (scheduler.ts): tasks carry which one.
        g.subtreeMax = subtreeMax;
        const outer = st.subtree;
        el.children.forEach((child, i) => {
          if (child.kind !== "element") return;
          st.subtree = { groupId: g.id, childKey: typeof child.rawProps.id === "string" ? child.rawProps.id : String(i), max: subtreeMax };
          visit(child, g, `${path}.${i}`, st);
        });
        st.subtree = outer;
      }
      st.limits = limits;
      return;
    }
    case TAGS.loop: {
      const id = typeof p.id === "string" ? p.id : `loop:${path}`;
      if (st.out.loops.some((l) => l.id === id)) throw new FlowError("RENDER_FAILED", `Two loops share the id "${id}".`, { loopId: id });
      const g = newGroup("loop", id, parent);
      const seeded = st.opts.iterations[id];
      const iteration = seeded ?? st.opts.seedIteration(id);
      st.opts.iterations[id] = iteration;
      const maxIterations = p.maxIterations === undefined ? DEFAULT_MAX_ITERATIONS : Number(p.maxIterations);
      if (!(maxIterations >= 1)) throw new FlowError("RENDER_FAILED", `Loop "${id}" maxIterations must be at least 1.`, { loopId: id });
      const outer = st.loop?.loop;
      g.loop = {
        id,
        iteration,
        // A nested loop counts its iterations on across passes of the loops around it (see
        // nested-loops.ts): where the current pass began is recorded beside its iteration.
        start: outer ? (st.opts.iterations[passStartKey(id)] ?? iteration) : 0,
        path: outer ? { ...outer.path, [outer.id]: outer.iteration } : {},
        until: p.until === true,
        maxIterations,
        onMaxReached: p.onMaxReached === "fail" ? "fail" : "return-last",
      };
      if (outer) st.opts.iterations[passStartKey(id)] = g.loop.start;
      const every = positiveOrUndefined(p.continueAsNewEvery, `Loop "${id}" continueAsNewEvery`);
      if (every !== undefined) g.loop.continueAsNewEvery = every;
      addChild(parent, g);
      st.out.loops.push(g);
      const enclosing = st.loop;
      st.loop = g;
      walk(el.children, g, path, st);
      st.loop = enclosing;
      return;
    }
    case TAGS.saga:
    case TAGS.try: {
      const id = String(p.id);
      if (st.out.scopes.has(id)) throw new FlowError("RENDER_FAILED", `Two Saga/TryCatchFinally blocks share the id "${id}"; give each its own id.`, { scopeId: id });
      const g = newGroup("seq", `${el.tag}:${id}`, parent);
      addChild(parent, g);
      const scopes = st.scopes;
      // Once failed, the block renders its recovery (compensations, catch, finally): failures
      // there are not caught by the block itself.
      if (p.failed !== true) {
        st.out.scopes.set(id, { kind: el.tag === TAGS.saga ? "saga" : "try", group: g, steps: [] });
        st.scopes = [id, ...scopes];
      }
      walk(el.children, g, path, st);
      st.scopes = scopes;
      return;
    }
    case TAGS.sagaStep: {
      const g = newGroup("seq", `saga-step:${String(p.id)}`, parent);
      addChild(parent, g);
      const scope = st.out.scopes.get(st.scopes[0] ?? "");
      if (scope?.kind === "saga") scope.steps.push(g);
      walk(el.children, g, path, st);
      return;
    }
    case TAGS.worktree:
    case TAGS.sandbox: {
      if (typeof p.id !== "string" || !p.id) throw new FlowError("RENDER_FAILED", `A ${el.tag === TAGS.worktree ? "Worktree" : "Sandbox"} needs an id.`);
      const g = newGroup("seq", `${el.tag}:${p.id}`, parent);
      addChild(parent, g);
      const outer = st.workspace;
      st.workspace = {
        kind: el.tag === TAGS.worktree ? "worktree" : "sandbox",
        id: p.id,
        ...(typeof p.path === "string" ? { path: p.path } : {}),
        ...(typeof p.branch === "string" ? { branch: p.branch } : {}),
        ...(typeof p.baseBranch === "string" ? { baseBranch: p.baseBranch } : {}),
        ...(typeof p.from === "string" ? { from: p.from } : {}),
      };
      walk(el.children, g, path, st);
      st.workspace = outer;
      return;
    }
    case TAGS.aspects: {
      const g = newGroup("seq", `${el.tag}:${String(p.id)}`, parent);
      addChild(parent, g);
      const outer = st.aspects;
      st.aspects = [String(p.id), ...(outer ?? [])];
      walk(el.children, g, path, st);
      st.aspects = outer;
      return;
    }
    case TAGS.workflow: {
      const cache = st.cache;
      if (typeof p.cache === "boolean") st.cache = p.cache;
      walk(el.children, parent, path, st);
      st.cache = cache;
      return;
    }
    default: {
      // Sequence, Branch and any other tag: children run in order.
      const g = newGroup("seq", typeof p.id === "string" ? p.id : `${el.tag}:${path}`, parent);
      addChild(parent, g);
      walk(el.children, g, path, st);
    }
  }
}

/** Tags that are one node (a task, or a node that waits). */
const NODE_TAGS = new Set<string>([TAGS.task, TAGS.approval, TAGS.human, TAGS.event, TAGS.timer, TAGS.fail, TAGS.continueAsNew, TAGS.subflow]);

function addNode(el: HostElement, parent: PlanGroup, st: WalkState): void {
  const p = el.rawProps;
  const nodeId = p.id;
  if (typeof nodeId !== "string" || nodeId === "") throw new FlowError("RENDER_FAILED", `A ${el.tag} is missing its id (a non-empty string).`);
  const iteration = st.loop?.loop?.iteration ?? 0;
  const key = nodeKey(nodeId, iteration);
  if (st.out.byKey.has(key) || st.out.byNodeId.has(nodeId)) {
    throw new FlowError("RENDER_FAILED", `Duplicate id "${nodeId}": task ids must be unique in a workflow.`, { nodeId });
  }
  const place: TaskPlace = { cache: st.cache, loop: st.loop?.loop, workspace: st.workspace, subtree: st.subtree, par: parent.kind === "par" ? parent : st.limits[0], aspects: st.aspects };
  const ordinal = st.out.descriptors.length;
  const previous = st.opts.previous?.byKey.get(key) as PlacedTask | undefined;
  const carried = previous && carriedDescriptor(previous, el, ordinal, place);
  const desc = carried ?? describeInPlace(el, nodeId, iteration, ordinal, st.opts.registry, place);
  const task: PlacedTask = { kind: "task", key, desc, parent, index: 0, done: false, waitingOn: 0, active: false, limits: st.limits, scopes: st.scopes, place, el, elDesc: desc };
  if (carried && previous.frameTaskFor === previous.desc) {
    task.frameTask = previous.frameTask;
    task.frameTaskFor = desc;
  }
  addChild(parent, task);
  st.out.tasks.push(task);
  st.out.descriptors.push(desc);
  st.out.byKey.set(key, task);
  st.out.byNodeId.set(nodeId, task);
}

/** What a task's descriptor takes from where it sits in the tree (loop, workspace, groups). */
interface TaskPlace {
  cache: boolean;
  loop: PlanGroup["loop"];
  workspace: WorkspaceRef | undefined;
  subtree: WalkState["subtree"];
  par: PlanGroup | undefined;
  aspects: string[] | undefined;
}

/**
 * A task with where it sat, so that `redescribeTask` can describe it again in place, and the
 * element its descriptor was made from (`elDesc`: that descriptor; an incremental render may
 * have replaced `desc` since).
 */
type PlacedTask = PlanTask & { place?: TaskPlace; el?: HostElement; elDesc?: TaskDescriptor };

/**
 * The descriptor of `el` when it is the one `previous` was described from but for a new child
 * function: the renderer kept the previous element's `props` object (core/jsx/render.ts
 * `sameRawProps`: the same tag and props, a child function aside), and it sits at the same
 * ordinal in an equal place. `describeInPlace` is a pure function of those, so it would give a
 * copy of `previous.desc` with the new function. Tasks in a Worktree or Sandbox are always
 * described anew (running them writes the prepared path into the descriptor).
 */
function carriedDescriptor(previous: PlacedTask, el: HostElement, ordinal: number, place: TaskPlace): TaskDescriptor | undefined {
  if (!carries(previous, el) || previous.desc.ordinal !== ordinal || !samePlace(previous.place!, place)) return undefined;
  return withChildFunction(previous.desc, el);
}

/** Whether `el` describes as `task.desc` but for a child function (see `carriedDescriptor`). */
export function carries(task: PlanTask, el: HostElement): boolean {
  const t = task as PlacedTask;
  return t.el?.props === el.props && t.el.tag === el.tag && t.elDesc === t.desc && t.place !== undefined && t.place.workspace === undefined;
}

/**
 * A copy of `desc` with `el`'s child function.
 * @example
 * const next = carries(task, el) ? withChildFunction(task.desc, el) : redescribeTask(task, el, registry);
 */
export function withChildFunction(desc: TaskDescriptor, el: HostElement): TaskDescriptor {
  const next = { ...desc };
  const child = el.rawProps.children;
  if (typeof child === "function") next.computeFn = child as TaskDescriptor["computeFn"];
  return next;
}

/**
 * `task` takes `desc`, described from `el` (a re-render that kept the plan). `desc` may be
 * `task.desc` itself when `carries(task, el)` and no attempt holds it: it then takes `el`'s
 * child function in place (the next attempt runs the latest render's function, as with a new
 * descriptor). With the same props object the frame form of the descriptor stays the same.
 */
export function adoptDescriptor(task: PlanTask, el: HostElement, desc: TaskDescriptor): void {
  const t = task as PlacedTask;
  if (desc === t.desc) {
    const child = el.rawProps.children;
    if (typeof child === "function") desc.computeFn = child as TaskDescriptor["computeFn"];
  } else if (t.el?.props === el.props && t.frameTaskFor === t.desc) t.frameTaskFor = desc;
  t.desc = desc;
  t.el = el;
  t.elDesc = desc;
}

/** The host element a task of the plan was last described from. */
export function taskElement(task: PlanTask): HostElement | undefined {
  return (task as PlacedTask).el;
}

/** Whether elements of `tag` are one node of the plan and nothing else (a Signal also has children). */
export function isNodeTag(tag: string): boolean {
  return NODE_TAGS.has(tag);
}

/** Equal in everything `describeInPlace` takes from a place; never for a workspace. */
function samePlace(a: TaskPlace, b: TaskPlace): boolean {
  return (
    a.cache === b.cache &&
    a.workspace === undefined &&
    b.workspace === undefined &&
    a.par?.id === b.par?.id &&
    a.par?.maxConcurrency === b.par?.maxConcurrency &&
    a.subtree?.groupId === b.subtree?.groupId &&
    a.subtree?.childKey === b.subtree?.childKey &&
    a.subtree?.max === b.subtree?.max &&
    sameLoop(a.loop, b.loop) &&
    sameList(a.aspects, b.aspects)
  );
}

function sameLoop(a: TaskPlace["loop"], b: TaskPlace["loop"]): boolean {
  if (a === b) return true;
  if (!a || !b || a.id !== b.id || a.iteration !== b.iteration) return false;
  let count = 0;
  for (const k in a.path) {
    count++;
    if (a.path[k] !== b.path[k]) return false;
  }
  for (const _ in b.path) count--;
  return count === 0;
}

function sameList(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function describeInPlace(el: HostElement, nodeId: string, iteration: number, ordinal: number, registry: SchemaRegistry, place: TaskPlace): TaskDescriptor {
  const desc = describeNode(el, { nodeId, iteration, ordinal, registry, cacheByDefault: place.cache });
  const { loop, workspace, subtree, par, aspects } = place;
  if (aspects) desc.aspects = aspects;
  if (loop) {
    desc.ralphId = loop.id;
    if (Object.keys(loop.path).length) desc.iterationPath = { ...loop.path, [loop.id]: loop.iteration };
  }
  if (workspace) {
    desc.workspace = workspace;
    if (workspace.kind === "worktree") {
      desc.worktreeId = workspace.id;
      if (workspace.path) desc.worktreePath = workspace.path;
      if (workspace.branch) desc.worktreeBranch = workspace.branch;
      if (workspace.baseBranch) desc.worktreeBaseBranch = workspace.baseBranch;
    }
  }
  if (subtree) {
    desc.subtreeGroupId = subtree.groupId;
    desc.subtreeChildKey = subtree.childKey;
    desc.subtreeMax = subtree.max;
  }
  if (par) {
    desc.parallelGroupId = par.id;
    if (par.maxConcurrency !== undefined) desc.parallelMaxConcurrency = par.maxConcurrency;
  }
  return desc;
}

/**
 * The descriptor `task` gets from a newly rendered element at the same place in the tree (an
 * incremental re-render, render-instances.ts): same node id, iteration, ordinal and context.
 */
export function redescribeTask(task: PlanTask, el: HostElement, registry: SchemaRegistry): TaskDescriptor {
  const place = (task as PlacedTask).place;
  if (!place) throw new FlowError("INTERNAL", `Task "${task.desc.nodeId}" was not extracted from a tree.`, { nodeId: task.desc.nodeId });
  return describeInPlace(el, task.desc.nodeId, task.desc.iteration, task.desc.ordinal, registry, place);
}
