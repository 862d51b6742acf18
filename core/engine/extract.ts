/**
 * @module core/engine/extract
 * Turns a rendered host tree into TaskDescriptors and a plan (SPEC.md "Task descriptor").
 * Structural errors (duplicate ids, missing outputs, nested loops, unknown dependencies)
 * surface here as RENDER_FAILED with the offending id.
 */
import { isAgentLike } from "../agents/types.js";
import type { CachePolicy } from "../components/types.js";
import { FlowError } from "../errors.js";
import { isFlowElement } from "../jsx/element.js";
import { type HostElement, type HostNode, textOf } from "../jsx/host.js";
import { TAGS } from "../protocol.js";
import type { SchemaRegistry } from "../schema/registry.js";
import { newGroup, nodeKey, type PlanGroup, type PlanTask } from "./plan.js";
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
}

export interface Extracted {
  root: PlanGroup;
  tasks: PlanTask[];
  descriptors: TaskDescriptor[];
  byKey: Map<string, PlanTask>;
  /** Latest task of each node id in the tree (explicit dependencies resolve here). */
  byNodeId: Map<string, PlanTask>;
  loops: PlanGroup[];
}

/** Extracts the plan of a host tree. */
export function extractPlan(nodes: readonly HostNode[], opts: ExtractOptions): Extracted {
  const out: Extracted = { root: newGroup("seq", "root", null), tasks: [], descriptors: [], byKey: new Map(), byNodeId: new Map(), loops: [] };
  const state = { opts, out, loop: null as PlanGroup | null, limits: [] as PlanGroup[], cache: opts.cacheByDefault };
  walk(nodes, out.root, "0", state);
  return out;
}

interface WalkState {
  opts: ExtractOptions;
  out: Extracted;
  loop: PlanGroup | null;
  limits: PlanGroup[];
  cache: boolean;
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
  switch (el.tag) {
    case TAGS.task:
      return addTask(el, parent, st);
    case TAGS.parallel: {
      const g = newGroup("par", typeof p.id === "string" ? p.id : `parallel:${path}`, parent);
      const max = positiveOrUndefined(p.maxConcurrency, `Parallel ${g.id} maxConcurrency`);
      if (max !== undefined) g.maxConcurrency = max;
      addChild(parent, g);
      const limits = st.limits;
      if (max !== undefined) st.limits = [g, ...limits];
      walk(el.children, g, path, st);
      st.limits = limits;
      return;
    }
    case TAGS.loop: {
      if (st.loop) {
        throw new FlowError("RENDER_FAILED", `Loop inside loop "${st.loop.id}": nested loops are not supported; move the inner loop into a Subflow.`, {
          loopId: st.loop.id,
        });
      }
      const id = typeof p.id === "string" ? p.id : `loop:${path}`;
      if (st.out.loops.some((l) => l.id === id)) throw new FlowError("RENDER_FAILED", `Two loops share the id "${id}".`, { loopId: id });
      const g = newGroup("loop", id, parent);
      const seeded = st.opts.iterations[id];
      const iteration = seeded ?? st.opts.seedIteration(id);
      st.opts.iterations[id] = iteration;
      const maxIterations = p.maxIterations === undefined ? DEFAULT_MAX_ITERATIONS : Number(p.maxIterations);
      if (!(maxIterations >= 1)) throw new FlowError("RENDER_FAILED", `Loop "${id}" maxIterations must be at least 1.`, { loopId: id });
      g.loop = {
        id,
        iteration,
        until: p.until === true,
        maxIterations,
        onMaxReached: p.onMaxReached === "fail" ? "fail" : "return-last",
      };
      addChild(parent, g);
      st.out.loops.push(g);
      st.loop = g;
      walk(el.children, g, path, st);
      st.loop = null;
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

function addTask(el: HostElement, parent: PlanGroup, st: WalkState): void {
  const p = el.rawProps;
  const nodeId = p.id;
  if (typeof nodeId !== "string" || nodeId === "") throw new FlowError("RENDER_FAILED", "A Task is missing its id (a non-empty string).");
  if (p.output === undefined) throw new FlowError("RENDER_FAILED", `Task "${nodeId}" is missing its output (outputs.<key>).`, { nodeId });
  const entry = st.opts.registry.resolve(p.output, `Task "${nodeId}" output`);
  const iteration = st.loop?.loop?.iteration ?? 0;
  const key = nodeKey(nodeId, iteration);
  if (st.out.byKey.has(key) || st.out.byNodeId.has(nodeId)) {
    throw new FlowError("RENDER_FAILED", `Duplicate Task id "${nodeId}": ids must be unique in a workflow.`, { nodeId });
  }
  const agents = p.agent === undefined ? [] : Array.isArray(p.agent) ? p.agent : [p.agent];
  if (isAgentLike(p.fallbackAgent)) agents.push(p.fallbackAgent);
  for (const a of agents) if (!isAgentLike(a)) throw new FlowError("RENDER_FAILED", `Task "${nodeId}" agent has no generate() method.`, { nodeId });

  const desc: TaskDescriptor = {
    nodeId,
    ordinal: st.out.descriptors.length,
    iteration,
    outputTable: entry.key,
    outputTableName: entry.tableName,
    outputSchema: (p.outputSchema as TaskDescriptor["outputSchema"]) ?? entry.schema,
    needsApproval: p.needsApproval === true,
    skipIf: p.skipIf === true,
    retries: p.noRetry === true ? 0 : p.retries === undefined ? Infinity : nonNegative(p.retries, `Task "${nodeId}" retries`),
    timeoutMs: positiveOrUndefined(p.timeoutMs, `Task "${nodeId}" timeoutMs`) ?? null,
    heartbeatTimeoutMs: positiveOrUndefined(p.heartbeatTimeoutMs ?? p.heartbeatTimeout, `Task "${nodeId}" heartbeatTimeoutMs`) ?? null,
    continueOnFail: p.continueOnFail === true,
  };
  if (st.loop?.loop) desc.ralphId = st.loop.loop.id;
  const par = parent.kind === "par" ? parent : st.limits[0];
  if (par) {
    desc.parallelGroupId = par.id;
    if (par.maxConcurrency !== undefined) desc.parallelMaxConcurrency = par.maxConcurrency;
  }
  if (p.retryPolicy) desc.retryPolicy = p.retryPolicy as TaskDescriptor["retryPolicy"];
  if (p.waitAsync === true || p.async === true) desc.waitAsync = true;
  const cache = p.cache === false ? undefined : p.cache === true ? {} : (p.cache as CachePolicy | undefined) ?? (st.cache ? {} : undefined);
  if (cache) desc.cachePolicy = cache;
  if (typeof p.label === "string") desc.label = p.label;
  if (p.meta) desc.meta = p.meta as Record<string, unknown>;
  if (p.scorers) desc.scorers = p.scorers as Record<string, unknown>;
  if (p.memory) desc.memoryConfig = p.memory as Record<string, unknown>;
  if (typeof p.fork === "string") desc.forkSource = p.fork;
  if (Array.isArray(p.allowTools)) desc.allowTools = p.allowTools as string[];
  if (agents.length) desc.agent = agents.length === 1 ? agents[0] : agents;

  // Explicit dependencies: dependsOn ids, needs values, and deps keys (resolved through needs).
  const deps = new Set<string>(Array.isArray(p.dependsOn) ? (p.dependsOn as string[]) : []);
  const needs = (p.needs ?? undefined) as Record<string, string> | undefined;
  if (needs) {
    desc.needs = needs;
    for (const v of Object.values(needs)) deps.add(v);
  }
  if (p.deps && typeof p.deps === "object") {
    desc.depsNodes = {};
    for (const [name, target] of Object.entries(p.deps as Record<string, unknown>)) {
      st.opts.registry.resolve(target, `Task "${nodeId}" deps.${name}`);
      const dep = needs?.[name] ?? name;
      desc.depsNodes[name] = dep;
      deps.add(dep);
    }
  }
  if (deps.size) desc.dependsOn = [...deps];

  classifyChildren(el, desc, agents.length > 0);
  const task: PlanTask = { kind: "task", key, desc, parent, index: 0, done: false, waitingOn: 0, active: false, limits: st.limits };
  addChild(parent, task);
  st.out.tasks.push(task);
  st.out.descriptors.push(desc);
  st.out.byKey.set(key, task);
  st.out.byNodeId.set(nodeId, task);
}

function classifyChildren(el: HostElement, desc: TaskDescriptor, hasAgent: boolean): void {
  const child = el.rawProps.children;
  if (typeof child === "function") {
    desc.computeFn = child as TaskDescriptor["computeFn"];
    desc.depsAware = desc.depsNodes !== undefined;
    return;
  }
  if (typeof child === "string" || isFlowElement(child) || (Array.isArray(child) && el.children.length > 0)) {
    if (!hasAgent) {
      throw new FlowError("RENDER_FAILED", `Task "${desc.nodeId}" has a prompt but no agent; give it an agent, or a row or function as child.`, {
        nodeId: desc.nodeId,
      });
    }
    desc.prompt = textOf(el.children);
    return;
  }
  if (child !== undefined && child !== null && typeof child === "object") {
    desc.staticPayload = child;
    return;
  }
  throw new FlowError("RENDER_FAILED", `Task "${desc.nodeId}" has no children: give it a prompt, a row or a function.`, { nodeId: desc.nodeId });
}

function positiveOrUndefined(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !(value > 0)) throw new FlowError("RENDER_FAILED", `${what} must be a positive number, got ${String(value)}.`);
  return value;
}

function nonNegative(value: unknown, what: string): number {
  if (typeof value !== "number" || !(value >= 0)) throw new FlowError("RENDER_FAILED", `${what} must be 0 or more, got ${String(value)}.`);
  return value;
}
