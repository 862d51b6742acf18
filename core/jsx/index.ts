/**
 * @module core/jsx
 * The JSX runtime and render: elements, the host that renders a workflow to a node tree.
 * `durable-flow/jsx-runtime` and `durable-flow/jsx-dev-runtime` are its published entries;
 * other areas import from here only.
 */
export { createElement, Fragment, isFlowElement } from "./element.js";
export type { Component, FlowElement, FlowNode } from "./element.js";
export { fromJson, textOf, toXml } from "./host.js";
export type { HostElement, HostNode, HostNodeJson, XmlNode } from "./host.js";
export { renderNodes, useRenderCtx } from "./render.js";
export type { RenderRecorder } from "./render.js";
export { attachRenderView, renderViewOf } from "./render-view.js";
export type { RenderView, ScopeFailure, WaitData } from "./render-view.js";
