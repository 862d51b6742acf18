/**
 * @module core/engine/run
 * `runWorkflow`: the runtime function (SPEC.md leaves it unnamed). It opens or claims the run,
 * then hands it to a RunSession. See docs/engine.md.
 */
import type { SchemaMap } from "../components/index.js";
import { bindingOf, type StoreBinding } from "../binding.js";
import type { InputOf, RunOutputOf } from "./ctx.js";
import { checkRunOptions } from "./run-options.js";
import { RunSession, type SessionStart, type WorkflowParts } from "./session.js";
import type { RunChild } from "./subflow.js";
import type { RunTracing } from "../tracing/index.js";
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
export async function runWorkflow<S extends SchemaMap>(workflow: FlowWorkflow<S>, opts: RunOptions<InputOf<S>>): Promise<RunResult<RunOutputOf<S>>> {
  const binding = bindingOf(workflow);
  const options = opts as RunOptions;
  checkRunOptions(options);
  const opened = await openRun({ binding, opts: options, workflowName: workflowNameOf(workflow, binding, options.input ?? {}, options.auth), workflowHash: workflowHashOf(workflow, binding, options), workflowPath: options.workflowPath ?? workflow.sourcePath ?? null });
  // The stored row was validated by the output schema when it was written.
  if (opened.kind === "done") return opened.result as RunResult<RunOutputOf<S>>;
  const { runId } = opened.start;
  binding.activeRuns.add(runId);
  try {
    const tracing = await tracingOf(options, binding);
    const parts: WorkflowParts = { build: workflow.build, opts: workflow.opts, workflow, runChild: runWorkflow as RunChild };
    const result = tracing ? await tracedSession(tracing, binding, parts, options, opened.start) : await new RunSession(binding, parts, options, opened.start).execute();
    return result as RunResult<RunOutputOf<S>>;
  } finally {
    binding.activeRuns.delete(runId);
  }
}

/** The run's tracing (docs/tracing.md): its option, else the host's; `undefined` when off. */
async function tracingOf(opts: RunOptions, binding: StoreBinding): Promise<RunTracing | undefined> {
  if (opts.tracing === false) return undefined;
  if (typeof opts.tracing === "object") return opts.tracing;
  const host = await binding.env.tracing?.();
  if (host || !opts.tracing) return host;
  const { trace } = await import("@opentelemetry/api");
  return { tracer: trace.getTracer("durable-flow") };
}

/** A session whose events also feed the run's spans; the tracer module loads only here. */
async function tracedSession(tracing: RunTracing, binding: StoreBinding, parts: WorkflowParts, options: RunOptions, start: SessionStart): Promise<RunResult> {
  const { startRunTracer } = await import("../tracing/index.js");
  const tracer = startRunTracer(tracing, { runId: start.runId, workflowName: start.workflowName }, binding.env.clock.now());
  const onProgress = options.onProgress;
  const traced: RunOptions = {
    ...options,
    onProgress: (e) => {
      tracer.onEvent(e);
      onProgress?.(e);
    },
  };
  let result: RunResult;
  try {
    result = await new RunSession(binding, parts, traced, start).execute();
  } catch (error) {
    await tracer.end({ error });
    throw error;
  }
  await tracer.end({ result });
  return result;
}
