/**
 * @module durable-flow/jsx-runtime
 * The automatic JSX runtime: set `"jsxImportSource": "durable-flow"` in tsconfig.json (or the
 * `@jsxImportSource durable-flow` pragma) and `.tsx` workflow files compile to these calls.
 */
import { type Component, createElement, type FlowElement, type FlowNode, Fragment } from "./element.js";

export { Fragment };

/** Called by the JSX transform for an element with zero or one child. */
export function jsx(type: string | Component, props: Record<string, unknown>, key?: string | number): FlowElement {
  return createElement(type, props, key);
}

/** Called by the JSX transform for an element with several static children. */
export const jsxs = jsx;

/** Type checking of Flow JSX. */
export namespace JSX {
  export type Element = FlowElement;
  export type ElementType = string | Component;
  export interface ElementChildrenAttribute {
    children: {};
  }
  export interface IntrinsicAttributes {
    key?: string | number;
  }
  export interface IntrinsicElements {
    [tag: `flow:${string}`]: Record<string, unknown> & { children?: FlowNode };
  }
}
