/**
 * @module core/components/scopes
 * Blocks that recover from failures: Saga (compensations in reverse order) and
 * TryCatchFinally. When a task inside fails for good, the engine records the failure on the
 * block (durably) and renders again; the block then renders its recovery instead of its
 * body. See docs/recovery.md.
 */
import { renderViewOf } from "../jsx/index.js";
import type { FlowErrorJson } from "../errors.js";
import { createElement, type FlowElement, type FlowNode, isFlowElement, useRenderCtx } from "../jsx/index.js";
import { TAGS } from "../protocol.js";

/** One step of a saga: an action, and what undoes it. */
export interface SagaStepSpec {
  id: string;
  action: FlowNode;
  compensation: FlowNode;
  label?: string;
}

export interface SagaProps {
  /** Default `saga`; give each saga of a workflow its own id. */
  id?: string;
  steps?: SagaStepSpec[];
  /**
   * When a step fails: `compensate-and-fail` (default) undoes the completed steps in reverse
   * order, then fails the run; `compensate` undoes them and the run goes on; `fail` fails at once.
   */
  onFailure?: "compensate" | "compensate-and-fail" | "fail";
  skipIf?: boolean;
  /** `<SagaStep>` elements (alternative to `steps`). */
  children?: FlowNode;
}

export interface SagaStepProps {
  id: string;
  compensation: FlowNode;
  label?: string;
  /** The action. */
  children?: FlowNode;
}

/**
 * A step of a `<Saga>`: its children are the action, `compensation` undoes it.
 * @example
 * <SagaStep id="reserve" compensation={<Task id="release" .../>}><Task id="book" .../></SagaStep>
 */
export function SagaStep(props: SagaStepProps): FlowElement {
  return createElement(TAGS.sagaStep, { id: props.id, ...(props.label ? { label: props.label } : {}), children: props.children });
}

/**
 * Runs steps in order; if one fails, runs the compensations of the completed steps in reverse.
 * @example
 * <Saga id="trip" steps={[{ id: "flight", action: <Task id="book-flight" .../>, compensation: <Task id="cancel-flight" .../> }]} />
 */
export function Saga(props: SagaProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "saga";
  const steps = props.steps ?? stepsFromChildren(props.children);
  const onFailure = props.onFailure ?? "compensate-and-fail";
  const failure = renderViewOf(useRenderCtx(), `Saga "${id}"`).scopeFailure(id);
  if (!failure) {
    return createElement(TAGS.saga, {
      id,
      onFailure,
      children: steps.map((s) => createElement(TAGS.sagaStep, { id: s.id, ...(s.label ? { label: s.label } : {}), children: s.action }, s.id)),
    });
  }
  const done = new Set(failure.completedSteps ?? []);
  const undo = onFailure === "fail" ? [] : steps.filter((s) => done.has(s.id)).reverse();
  const recovery: FlowNode[] = undo.map((s) => createElement(TAGS.sequence, { key: `undo-${s.id}`, children: s.compensation }, `undo-${s.id}`));
  if (onFailure !== "compensate") recovery.push(failNode(`${id}:failed`, failure.error, onFailure === "fail" ? undefined : `Saga "${id}" failed and was compensated`));
  return createElement(TAGS.saga, { id, onFailure, failed: true, children: recovery });
}

export interface TryCatchFinallyProps {
  /** Default `try`; give each block of a workflow its own id. */
  id?: string;
  try: FlowNode;
  /**
   * Runs instead of the rest of `try` when a task in it fails (and its code is in `catchErrors`).
   * Without it, a failure runs `finally` and then fails the run, as try/finally does.
   */
  catch?: FlowNode | ((error: FlowErrorJson) => FlowNode);
  /** Error codes this block catches (default: all). */
  catchErrors?: string[];
  /** Runs after `try` or `catch`, and before an uncaught failure fails the run. */
  finally?: FlowNode;
  skipIf?: boolean;
}

/**
 * Runs `try`; on failure runs `catch(error)`; always runs `finally`.
 * @example
 * <TryCatchFinally id="deploy" try={<Task id="ship" .../>} catch={(e) => <Task id="page" ...>{`Deploy failed: ${e.message}`}</Task>} finally={<Task id="unlock" .../>} />
 */
export function TryCatchFinally(props: TryCatchFinallyProps): FlowNode {
  if (props.skipIf) return null;
  const id = props.id ?? "try";
  const view = renderViewOf(useRenderCtx(), `TryCatchFinally "${id}"`);
  const failure = view.scopeFailure(id);
  const parts: FlowNode[] = [];
  if (!failure) {
    parts.push(createElement(TAGS.try, { id, children: props.try }, "try"));
    if (props.finally) parts.push(createElement(TAGS.sequence, { children: props.finally }, "finally"));
    return createElement(TAGS.sequence, { children: parts });
  }
  // As in JavaScript: without a catch (or for codes it does not list) the error goes on after
  // finally; an error thrown by the catch block goes on after finally too.
  const caught = props.catch !== undefined && (!props.catchErrors?.length || props.catchErrors.includes(failure.error.code));
  parts.push(createElement(TAGS.try, { id, failed: true, children: null }, "try"));
  const catchId = `${id}:catch`;
  const catchFailure = view.scopeFailure(catchId);
  if (caught) {
    const handler = typeof props.catch === "function" ? props.catch(failure.error) : props.catch;
    parts.push(createElement(TAGS.try, { id: catchId, ...(catchFailure ? { failed: true } : {}), children: catchFailure ? null : handler }, "catch"));
  }
  if (props.finally) parts.push(createElement(TAGS.sequence, { children: props.finally }, "finally"));
  const rethrow = !caught ? failure.error : catchFailure?.error;
  if (rethrow) parts.push(failNode(`${id}:rethrow`, rethrow));
  return createElement(TAGS.sequence, { children: parts });
}

function failNode(id: string, error: FlowErrorJson, prefix?: string): FlowElement {
  return createElement(TAGS.fail, { id, error: prefix ? { ...error, message: `${prefix}: ${error.message}` } : error }, id);
}

function stepsFromChildren(children: FlowNode): SagaStepSpec[] {
  const list = (Array.isArray(children) ? children.flat(Infinity as 1) : [children]) as FlowNode[];
  return list.filter(isFlowElement).map((el) => {
    const p = el.props as SagaStepProps;
    return { id: p.id, action: p.children, compensation: p.compensation, ...(p.label ? { label: p.label } : {}) };
  });
}
