/**
 * @module core/jsx/element
 * Flow's JSX elements. A workflow's build function returns a tree of these; `render` turns it
 * into a host tree (core/jsx/render.ts). There is no React: components are plain functions
 * called once per render, and `useCtx()` is the only hook.
 */

const ELEMENT = Symbol.for("durable-flow.element");

/** A component: a function of props returning a node. */
export type Component<P = any> = (props: P) => FlowNode;

/** What a build function or component may return. */
export type FlowNode = FlowElement | string | number | boolean | null | undefined | readonly FlowNode[];

/** One JSX element: a host tag (`flow:task`, ...) or a component, with its props. */
export interface FlowElement<P = any> {
  readonly $$typeof: symbol;
  readonly type: string | Component<P>;
  readonly props: P;
  readonly key: string | null;
}

/** Creates an element (what the JSX transform calls). */
export function createElement<P>(type: string | Component<P>, props: P, key?: string | number | null): FlowElement<P> {
  return { $$typeof: ELEMENT, type, props, key: key === undefined || key === null ? null : String(key) };
}

/** True for a Flow element. */
export function isFlowElement(value: unknown): value is FlowElement {
  return typeof value === "object" && value !== null && (value as FlowElement).$$typeof === ELEMENT;
}

/** `<>...</>`: renders its children. */
export function Fragment(props: { children?: FlowNode }): FlowNode {
  return props.children;
}
