/**
 * @module core/components/task
 * The Task component: one durable unit of work producing one output row (agent prompt,
 * compute function, deps-aware function or static row). See docs/components.md.
 */
import { createElement, type FlowElement } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { DepsSpec, OutputTarget, SchemaMap, TaskProps } from "./types.js";

/**
 * A task. Its output is validated against the output schema and stored as a row keyed by
 * (runId, id, iteration).
 * @example
 * <Task id="sum" output={outputs.total}>{() => ({ total: 1 + 2 })}</Task>
 */
export function Task<S extends SchemaMap, O extends OutputTarget<S>, D extends DepsSpec<S> = {}>(props: TaskProps<S, O, D>): FlowElement {
  return createElement(TAGS.task, props);
}
