/**
 * @module core/engine/incremental-render
 * A re-render after completions that touches only what they changed (docs/engine.md,
 * "Incremental renders"). When the build function itself did not read any written row, the
 * element tree it returned is still current; only the components that read a written row run
 * again. When each of those renders one Task, again, with the same id and the same
 * dependencies, the plan keeps its shape: the new host element and descriptor take the old
 * ones' places, and the frame delta is computed on those subtrees only. Anything else returns
 * null and the session renders the whole tree, so the outcome is always the one a full render
 * would have: same tree, same plan, same frame.
 */
import type { HostElement, HostNode, XmlNode } from "../jsx/index.js";
import { renderNodes, toXml } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { SchemaRegistry } from "../schema/index.js";
import { adoptDescriptor, type Extracted, redescribeTask } from "./extract.js";
import { type DeltaOp, diffJson } from "./frames.js";
import type { OutputIndex } from "./output-index.js";
import type { PlanTask } from "./plan.js";
import { InstanceRecorder, type RenderInstance, type RenderInstances, type WrittenRow } from "./render-instances.js";
import { frameTaskOf } from "./snapshot.js";
import type { TaskDescriptor } from "./types.js";

/** The frame value a session stores: the tree as XML and every task's serialized descriptor. */
export interface FrameValue {
  xml: XmlNode | null;
  tasks: Record<string, unknown>[];
}

export interface IncrementalInput {
  instances: RenderInstances;
  rows: readonly WrittenRow[];
  /** The context of the last full render (unchanged: the session checked iterations). */
  ctx: unknown;
  index: OutputIndex;
  registry: SchemaRegistry;
  extracted: Extracted;
  frame: FrameValue;
  /** Whether a component looked at what the index does not track (render-instances.ts `watchedRenderView`). */
  untrackedRead: () => boolean;
}

/** What changed: the tasks that got new descriptors, and the frame operations. */
export interface IncrementalResult {
  tasks: PlanTask[];
  ops: DeltaOp[];
}

interface Replacement {
  previous: RenderInstance;
  next: RenderInstance;
  host: HostElement;
  task: PlanTask;
  desc: TaskDescriptor;
  /** Path of the replaced host element from the top level. */
  hostPath: number[];
}

/**
 * Re-renders only the components that read `rows`, patching the host tree, the plan's
 * descriptors and `frame` in place; null (and nothing changed) when a full render is needed.
 * @example
 * const patch = renderIncrementally({ instances, rows, ctx, index, registry, extracted, frame });
 * if (!patch) renderEverything();
 */
export function renderIncrementally(input: IncrementalInput): IncrementalResult | null {
  const { instances, rows } = input;
  if (input.instances.rootRead(rows)) return null;
  const replacements: Replacement[] = [];
  // First render every affected component and check the result keeps the plan's shape;
  // only then change anything, so that a refusal leaves the last render intact.
  for (const previous of instances.readersOf(rows)) {
    const r = rerender(previous, input);
    if (!r || input.untrackedRead()) return null;
    replacements.push(r);
  }
  replacements.sort((a, b) => comparePaths(a.hostPath, b.hostPath));
  const xmlOps: DeltaOp[] = [];
  const taskOps: DeltaOp[] = [];
  for (const r of replacements) {
    r.previous.out[r.previous.start] = r.host;
    instances.replace(r.previous, r.next);
    const xmlPath = frameXmlPath(input.frame, r.hostPath);
    const xml = toXml(r.host);
    pushPrefixed(xmlOps, xmlPath, diffJson(getAt(input.frame, xmlPath), xml));
    setAt(input.frame, xmlPath, xml);
    adoptDescriptor(r.task, r.host, r.desc);
    input.extracted.descriptors[r.desc.ordinal] = r.desc;
  }
  for (const r of [...replacements].sort((a, b) => a.desc.ordinal - b.desc.ordinal)) {
    const serialized = frameTaskOf(r.task);
    pushPrefixed(taskOps, ["tasks", r.desc.ordinal], diffJson(input.frame.tasks[r.desc.ordinal], serialized));
    input.frame.tasks[r.desc.ordinal] = serialized;
  }
  return { tasks: replacements.map((r) => r.task), ops: [...xmlOps, ...taskOps] };
}

/** Runs one component again; its replacement when it still renders the same Task, else null. */
function rerender(previous: RenderInstance, input: IncrementalInput): Replacement | null {
  if (previous.nested > 0 || previous.count !== 1) return null;
  const old = previous.out[previous.start];
  if (old?.kind !== "element" || old.tag !== TAGS.task) return null;
  const recorder = new InstanceRecorder(input.index);
  input.index.beginTracking();
  let nodes: HostNode[];
  try {
    nodes = renderNodes(previous.element, input.ctx, recorder);
  } finally {
    input.index.endTracking();
  }
  const host = nodes[0];
  if (nodes.length !== 1 || host?.kind !== "element" || host.tag !== TAGS.task || host.rawProps.id !== old.rawProps.id) return null;
  const self = recorder.instances.find((i) => i.element === previous.element);
  if (recorder.instances.length !== (self ? 1 : 0)) return null;
  const task = input.extracted.byNodeId.get(String(old.rawProps.id));
  if (!task || input.extracted.descriptors[task.desc.ordinal] !== task.desc) return null;
  const desc = redescribeTask(task, host, input.registry);
  if (!sameShape(task.desc, desc)) return null;
  const hostPath = [...previous.path, previous.start];
  const next: RenderInstance = { ...previous, reads: self?.reads ?? new Set(), nested: 0 };
  return { previous, next, host, task, desc, hostPath };
}

/**
 * Whether the loop iterations a render's context showed are still the current ones.
 * @example
 * if (!sameIterations(session.iterations, lastCtx.iterations)) renderEverything();
 */
export function sameIterations(now: Readonly<Record<string, number>>, shown: Readonly<Record<string, number | undefined>>): boolean {
  const keys = Object.keys(now);
  return keys.length === Object.keys(shown).length && keys.every((k) => now[k] === shown[k]);
}

/**
 * Whether a task's new descriptor keeps what the plan and scheduler were built from (else a
 * new plan is needed).
 * @example
 * if (!sameShape(task.desc, next)) extractAgain();
 */
export function sameShape(a: TaskDescriptor, b: TaskDescriptor): boolean {
  return (
    a.outputTable === b.outputTable &&
    a.iteration === b.iteration &&
    sameList(a.dependsOn, b.dependsOn) &&
    sameList(a.needs as unknown[] | undefined, b.needs as unknown[] | undefined) &&
    sameList(a.depsNodes as unknown[] | undefined, b.depsNodes as unknown[] | undefined)
  );
}

function sameList(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  return a === b || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Where the host node at `hostPath` sits in the frame's XML (session.ts: one element, or a fragment). */
function frameXmlPath(frame: FrameValue, hostPath: readonly number[]): (string | number)[] {
  const single = frame.xml?.kind === "element" && frame.xml.tag !== "flow:fragment";
  const out: (string | number)[] = ["xml"];
  hostPath.forEach((index, depth) => {
    if (depth === 0 && single) return;
    out.push("children", index);
  });
  return out;
}

function getAt(root: unknown, path: readonly (string | number)[]): unknown {
  let node = root as Record<string | number, unknown> | undefined;
  for (const k of path) node = node?.[k] as Record<string | number, unknown> | undefined;
  return node;
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown): void {
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = value;
}

function pushPrefixed(out: DeltaOp[], prefix: readonly (string | number)[], ops: DeltaOp[]): void {
  for (const op of ops) out.push({ ...op, p: [...prefix, ...op.p] });
}

function comparePaths(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
