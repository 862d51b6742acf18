/**
 * @module durable-flow/jsx-dev-runtime
 * The development JSX runtime (what Vite and Vitest load in dev mode); same elements as
 * `durable-flow/jsx-runtime`.
 */
import { type Component, createElement, type FlowElement } from "./element.js";

export { Fragment } from "./element.js";
export type { JSX } from "./jsx-runtime.js";

/** Called by the development JSX transform. */
export function jsxDEV(type: string | Component, props: Record<string, unknown>, key?: string | number): FlowElement {
  return createElement(type, props, key);
}
