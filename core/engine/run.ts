/**
 * @module core/engine/run
 * `runWorkflow`: the runtime function (SPEC.md leaves it unnamed). It opens or claims the run,
 * then hands it to a RunSession. See docs/engine.md.
 */
import type { SchemaMap } from "../components/types.js";
import { bindingOf } from "./binding.js";
import type { InputOf } from "./ctx.js";
import { checkRunOptions } from "./run-options.js";
import { RunSession } from "./session.js";
import { openRun } from "./session-open.js";
import type { FlowWorkflow, RunOptions, RunResult } from "./types.js";
import { workflowHashOf, workflowNameOf } from "./workflow-identity.js";

/**
 * Runs a workflow to completion (or to a pause, cancellation or failure), durably: every step
 * is committed to the workflow's store, and `resume: true` continues a run from the store.
 * @example
 * const result = await runWorkflow(workflow, { input: { topic: "durable agents" } });
 * if (result.status === "finished") console.log(result.output);
 */
export async function runWorkflow<S extends SchemaMap>(workflow: FlowWorkflow<S>, opts: RunOptions<InputOf<S>>): Promise<RunResult> {
  const binding = bindingOf(workflow);
  const options = opts as RunOptions;
  checkRunOptions(options);
  const opened = await openRun({ binding, opts: options, workflowName: workflowNameOf(workflow, binding, options.input ?? {}), workflowHash: workflowHashOf(workflow, binding, options), workflowPath: options.workflowPath ?? workflow.sourcePath ?? null });
  if (opened.kind === "done") return opened.result;
  const { runId } = opened.start;
  binding.activeRuns.add(runId);
  try {
    return await new RunSession(binding, { build: workflow.build, opts: workflow.opts, workflow }, options, opened.start).execute();
  } finally {
    binding.activeRuns.delete(runId);
  }
}

