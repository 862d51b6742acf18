/**
 * @module core/jsx/render
 * Renders an element tree to a host tree. Function components are called with their props;
 * host tags become host elements. Rendering is synchronous, so the context that `useCtx()`
 * returns is a module-level slot set for the duration of one render.
 */
import { FlowError } from "../errors.js";
import { type FlowElement, type FlowNode, isFlowElement } from "./element.js";
import { displayProp, type HostElement, type HostNode } from "./host.js";

let currentCtx: unknown;
let rendering = false;
/** Set while a render records its component instances (incremental re-renders). */
let recorder: RenderRecorder | undefined;
/** Indices from the top level down to the host element whose children are being rendered. */
const hostPath: number[] = [];

/**
 * Told where each function component's output landed in the host tree, so that a later render
 * can re-run that component alone (core/engine/render-instances.ts).
 */
export interface RenderRecorder {
  /** A function component is about to be called. */
  enter(): void;
  /** It rendered `out[start..out.length)`; `path` leads from the top level to the owner of `out` ([] for the top level). */
  exit(element: FlowElement, out: HostNode[], start: number, path: readonly number[]): void;
}

/** Host tags whose children are payload (prompt, row or function), not rendered structure. */
const PAYLOAD_TAGS = new Set(["flow:task"]);

/**
 * Renders `node` with `ctx` available to `useCtx()`. Returns the host nodes at the top level.
 * `previous` (the last render's top level) lets an element whose props are unchanged keep the
 * `props` object of the element at the same place (see `sameRawProps`): later stages compare
 * that object by identity instead of prop by prop.
 */
export function renderNodes(node: FlowNode, ctx: unknown, record?: RenderRecorder, previous?: readonly HostNode[]): HostNode[] {
  if (rendering) throw new FlowError("RENDER_FAILED", "A workflow render started inside another render.");
  rendering = true;
  currentCtx = ctx;
  recorder = record;
  try {
    const out: HostNode[] = [];
    renderInto(node, out, previous);
    return out;
  } finally {
    rendering = false;
    currentCtx = undefined;
    recorder = undefined;
    hostPath.length = 0;
  }
}

/** The context of the render in progress. Call it inside a component while the workflow renders. */
export function useRenderCtx<T>(): T {
  if (!rendering) {
    throw new FlowError("RENDER_FAILED", "useCtx() was called outside a workflow render; call it inside a component of the tree.");
  }
  return currentCtx as T;
}

// `previous`: what the last render put in `out`'s place (elements are matched by position).
function renderInto(node: FlowNode, out: HostNode[], previous: readonly HostNode[] | undefined): void {
  if (node === null || node === undefined || typeof node === "boolean") return;
  if (typeof node === "string" || typeof node === "number") {
    out.push({ kind: "text", text: String(node) });
    return;
  }
  if (Array.isArray(node)) {
    for (const child of node) renderInto(child, out, previous);
    return;
  }
  if (!isFlowElement(node)) {
    throw new FlowError("RENDER_FAILED", `A workflow tree can hold elements, strings and numbers, not ${describe(node)}.`);
  }
  if (typeof node.type === "function") {
    if (!recorder) return renderInto(node.type(node.props), out, previous);
    const start = out.length;
    recorder.enter();
    renderInto(node.type(node.props), out, previous);
    recorder.exit(node, out, start, hostPath);
    return;
  }
  if (recorder) hostPath.push(out.length);
  out.push(hostElement(node.type, (node.props ?? {}) as Record<string, unknown>, previous?.[out.length]));
  if (recorder) hostPath.pop();
}

function hostElement(tag: string, rawProps: Record<string, unknown>, previous: HostNode | undefined): HostElement {
  const before = previous?.kind === "element" && previous.tag === tag ? previous : undefined;
  const props = before && sameRawProps(before.rawProps, rawProps) ? before.props : displayProps(rawProps);
  const payload = rawProps.children;
  let children = NO_CHILDREN;
  if (!PAYLOAD_TAGS.has(tag) || typeof payload === "string" || isFlowElement(payload) || isNodeArray(payload)) {
    renderInto(payload as FlowNode, (children = []), before?.children);
  }
  return { kind: "element", tag, props, rawProps, children };
}

/**
 * The children of a task whose payload is a function or a row: none. One frozen array for all
 * of them (a render of a large tree makes one per task otherwise); nothing adds to host
 * children after the render that made them.
 */
const NO_CHILDREN = Object.freeze([]) as unknown as HostNode[];

function displayProps(rawProps: Record<string, unknown>): Record<string, string> {
  const props: Record<string, string> = {};
  for (const k of Object.keys(rawProps)) {
    if (k === "children") continue;
    const shown = displayProp(rawProps[k]);
    if (shown !== undefined) props[k] = shown;
  }
  return props;
}

/**
 * Props that describe the same element: the same keys, each the same value, where a child
 * function may be another function, and an object counts only where it is an identity that
 * does not change (an output table, an agent). Any other object or array may have been
 * changed in place, and children elements render anew, so they never count as the same. Both
 * the display props and the task descriptor (core/engine/extract.ts) are functions of these
 * props but for the child function, so both can be kept when this holds.
 */
function sameRawProps(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const k in b) {
    count++;
    const v = b[k];
    if (v !== a[k]) {
      if (!(k === "children" && typeof v === "function" && typeof a[k] === "function")) return false;
    } else if (typeof v === "object" && v !== null && (Array.isArray(v) || !IDENTITY_PROPS.has(k))) return false;
  }
  for (const _ in a) count--;
  return count === 0;
}

/** Props whose object values are identities (see `sameRawProps`). */
const IDENTITY_PROPS = new Set(["output", "agent", "fallbackAgent"]);

function isNodeArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number" || isFlowElement(v) || v == null);
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function (did you mean to call it, or to pass it as a Task child?)";
  return typeof value === "object" ? "a plain object (only Task children may be rows)" : typeof value;
}
