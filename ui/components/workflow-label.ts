/**
 * @module ui/components/workflow-label
 * What the console calls a run's workflow, everywhere it names one: the name its author gave it
 * (`<Workflow name>`, what `flow runs` prints), else the key the Gateway serves it under (a
 * `flow serve` folder's file name). Where the two differ, the key is said on hover.
 */

/** The two names a run row may carry for its workflow. */
export interface WorkflowNamed {
  workflowKey?: string | null;
  workflowName?: string | null;
}

/**
 * The workflow's name, else its key; undefined where the row carries neither.
 * @example
 * workflowTitle({ workflowKey: "wf", workflowName: "weather" }); // "weather"
 * workflowTitle({ workflowKey: "wf", workflowName: null }); // "wf"
 */
export function workflowTitle(run: WorkflowNamed | undefined): string | undefined {
  return run?.workflowName || run?.workflowKey || undefined;
}

/**
 * A hover text naming the key the Gateway serves the workflow under, where the title is not it.
 * @example
 * servedAs({ workflowKey: "wf", workflowName: "weather" }); // "Served as wf"
 * servedAs({ workflowKey: "release", workflowName: "release" }); // undefined
 */
export function servedAs(run: WorkflowNamed): string | undefined {
  return run.workflowKey && run.workflowName && run.workflowKey !== run.workflowName ? `Served as ${run.workflowKey}` : undefined;
}
