/**
 * @module core/components/control-flow
 * Structure components: Workflow, Sequence, Parallel, Branch, Loop (and its deprecated alias
 * Ralph). They render host elements that the scheduler reads (core/engine/plan.ts); see
 * docs/components.md for the scheduling rules.
 */
import { createElement, type FlowElement, type FlowNode } from "../jsx/index.js";
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

export interface MergeQueueProps {
  id?: string;
  /** Default 1: one child at a time. */
  maxConcurrency?: number;
  skipIf?: boolean;
  children?: FlowNode;
}

/**
 * Children in order of arrival, `maxConcurrency` (default 1) at a time: for work that must land
 * one by one, such as merging branches.
 * @example
 * <MergeQueue>{branches.map((b) => <Task key={b} id={`merge-${b}`} .../>)}</MergeQueue>
 */
export function MergeQueue(props: MergeQueueProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.mergeQueue, props);
}

export interface WorktreeProps {
  id: string;
  /** Where the worktree goes (default `.flow/worktrees/<runId>/<id>` under the run's rootDir). */
  path?: string;
  /** Its branch (default `flow/<runId>/<id>`). */
  branch?: string;
  /** What a new branch starts from (default HEAD). */
  baseBranch?: string;
  skipIf?: boolean;
  children?: FlowNode;
}

/**
 * Runs its children (in order) in a git worktree of their own: tasks and agents inside get it
 * as their root directory.
 * @example
 * <Worktree id="fix-123" branch="fix/123"><Task id="patch" agent={coder} output={outputs.patch}>Fix issue 123</Task></Worktree>
 */
export function Worktree(props: WorktreeProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.worktree, props);
}

export interface SandboxProps {
  id: string;
  /** Where the sandbox goes (default `.flow/sandboxes/<runId>/<id>` under the run's rootDir). */
  path?: string;
  /** Directory (relative to the run's rootDir) copied into the sandbox first. */
  from?: string;
  skipIf?: boolean;
  children?: FlowNode;
}

/**
 * Runs its children (in order) in a scratch directory of their own, optionally seeded from
 * `from`.
 * @example
 * <Sandbox id="try-upgrade" from="."><Task id="upgrade" .../></Sandbox>
 */
export function Sandbox(props: SandboxProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.sandbox, props);
}
