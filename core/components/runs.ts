/**
 * @module core/components/runs
 * Components that reach beyond one run: ContinueAsNew (end this run, start a fresh one with a
 * clean history) and Subflow (a child run whose result is this node's row).
 */
import type { FlowWorkflow } from "../engine/index.js";
import { createElement, type FlowElement, type FlowNode } from "../jsx/index.js";
import { TAGS } from "../protocol.js";
import type { CommonTaskProps, OutputTarget, SchemaMap } from "./types.js";

export interface ContinueAsNewProps {
  /** Default `continue-as-new`. */
  id?: string;
  /** Input of the next run (default: this run's input). */
  input?: Record<string, unknown>;
  /**
   * Copy the latest row of every node into the next run as finished nodes, so it starts where
   * this one ends (default false: the next run starts from scratch with `input`, as a fresh
   * run of the workflow would).
   */
  carryOutputs?: boolean;
  skipIf?: boolean;
  dependsOn?: string[];
}

/**
 * When reached, ends the run with status `continued` and creates the next run (its id is the
 * result's `nextRunId`; resume it to go on).
 * @example
 * <Loop until={false} maxIterations={100}>...</Loop>
 * <ContinueAsNew input={{ cursor: ctx.latest(outputs.page, "fetch")?.next }} />
 */
export function ContinueAsNew(props: ContinueAsNewProps): FlowNode {
  return props.skipIf ? null : createElement(TAGS.continueAsNew, { ...props, id: props.id ?? "continue-as-new" });
}

/**
 * The function form of `<ContinueAsNew>`.
 * @example
 * return ctx.iteration > 50 ? continueAsNew({ since: lastId }) : <Workflow ...>...</Workflow>;
 */
export function continueAsNew(input?: Record<string, unknown>, options: Omit<ContinueAsNewProps, "input"> = {}): FlowElement {
  return createElement(TAGS.continueAsNew, { ...options, ...(input ? { input } : {}), id: options.id ?? "continue-as-new" });
}

export interface SubflowProps<S extends SchemaMap, O extends OutputTarget<S>> extends Omit<CommonTaskProps, "cache"> {
  /** The child workflow (it may use another store). */
  workflow: FlowWorkflow<any>;
  input?: Record<string, unknown>;
  /** Where the child run's output is stored. */
  output: O;
}

/**
 * Runs another workflow as a child run (`parentRunId` = this run); its output becomes this
 * node's row. The child run id is stable (`<runId>/<id>@<iteration>`), so a resumed parent
 * resumes its child instead of starting another.
 * @example
 * <Subflow id="review-pr" workflow={reviewWorkflow} input={{ pr: 42 }} output={outputs.review} />
 */
export function Subflow<S extends SchemaMap, O extends OutputTarget<S>>(props: SubflowProps<S, O>): FlowNode {
  return props.skipIf ? null : createElement(TAGS.subflow, props);
}
