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
 */
export function renderNodes(node: FlowNode, ctx: unknown, record?: RenderRecorder): HostNode[] {
  if (rendering) throw new FlowError("RENDER_FAILED", "A workflow render started inside another render.");
  rendering = true;
  currentCtx = ctx;
  recorder = record;
  try {
    const out: HostNode[] = [];
    renderInto(node, out);
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

function renderInto(node: FlowNode, out: HostNode[]): void {
  if (node === null || node === undefined || typeof node === "boolean") return;
  if (typeof node === "string" || typeof node === "number") {
    out.push({ kind: "text", text: String(node) });
    return;
  }
  if (Array.isArray(node)) {
    for (const child of node) renderInto(child, out);
    return;
  }
  if (!isFlowElement(node)) {
    throw new FlowError("RENDER_FAILED", `A workflow tree can hold elements, strings and numbers, not ${describe(node)}.`);
  }
  if (typeof node.type === "function") {
    if (!recorder) return renderInto(node.type(node.props), out);
    const start = out.length;
    recorder.enter();
    renderInto(node.type(node.props), out);
    recorder.exit(node, out, start, hostPath);
    return;
  }
  if (recorder) hostPath.push(out.length);
  out.push(hostElement(node.type, (node.props ?? {}) as Record<string, unknown>));
  if (recorder) hostPath.pop();
}

function hostElement(tag: string, rawProps: Record<string, unknown>): HostElement {
  const props: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawProps)) {
    if (k === "children") continue;
    const shown = displayProp(v);
    if (shown !== undefined) props[k] = shown;
  }
  const children: HostNode[] = [];
  const payload = rawProps.children;
  if (!PAYLOAD_TAGS.has(tag)) renderInto(payload as FlowNode, children);
  else if (typeof payload === "string" || isFlowElement(payload) || isNodeArray(payload)) renderInto(payload as FlowNode, children);
  return { kind: "element", tag, props, rawProps, children };
}

function isNodeArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number" || isFlowElement(v) || v == null);
}

function describe(value: unknown): string {
  if (typeof value === "function") return "a function (did you mean to call it, or to pass it as a Task child?)";
  return typeof value === "object" ? "a plain object (only Task children may be rows)" : typeof value;
}
