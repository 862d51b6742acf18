/**
 * @module core/components/control-flow
 * Structure components: Workflow, Sequence, Parallel, Branch, Loop (and its deprecated alias
 * Ralph). They render host elements that the scheduler reads (core/engine/plan.ts); see
 * docs/components.md for the scheduling rules.
 */
import { createElement, type FlowElement, type FlowNode } from "../jsx/element.js";
import { TAGS } from "../protocol.js";
import type { BranchProps, LoopProps, ParallelProps, SequenceProps, WorkflowProps } from "./types.js";

/**
 * The root of a workflow. Its children run in order, like a Sequence.
 * @example
 * <Workflow name="review">{...}</Workflow>
 */
export function Workflow(props: WorkflowProps): FlowElement {
  return createElement(TAGS.workflow, props);
}

/**
 * Children run one after another: each starts when the previous one is complete.
 * @example
 * <Sequence><Task id="a" .../><Task id="b" .../></Sequence>
 */
export function Sequence(props: SequenceProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.sequence, props);
}

/**
 * Children run at the same time, at most `maxConcurrency` of them (and never more than the
 * run's `maxConcurrency`).
 * @example
 * <Parallel maxConcurrency={2}>{files.map((f) => <Task id={f} .../>)}</Parallel>
 */
export function Parallel(props: ParallelProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.parallel, props);
}

/**
 * Renders `then` when `if` is true, else `else`.
 * @example
 * <Branch if={ctx.input.deploy} then={<Task id="deploy" .../>} />
 */
export function Branch(props: BranchProps): FlowNode {
  if (props.skipIf) return null;
  const { then: whenTrue, else: whenFalse, ...rest } = props;
  return createElement(TAGS.branch, { ...rest, children: props.if ? whenTrue : whenFalse });
}

/**
 * Runs its children (as a Sequence) again and again until `until` is true or `maxIterations`
 * (default 5) iterations ran. Tasks inside get the loop's iteration number.
 * @example
 * <Loop until={ctx.latest("review", "review")?.approved === true} maxIterations={3}>...</Loop>
 */
export function Loop(props: LoopProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.loop, props);
}

/** @deprecated Use `Loop`: same component under its original name. */
export const Ralph = Loop;
