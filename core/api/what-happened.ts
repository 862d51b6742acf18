/**
 * @module core/api/what-happened
 * `whatHappened`: a readable account of a run, one line per event that matters to a person
 * (starts, finishes, failures with their errors, retries, waits and deliveries), with times
 * relative to the run's start.
 */
import type { z } from "zod";
import type { FlowDb, FlowEvent } from "../engine/index.js";
import type { whatHappenedSchema } from "./results-reads.js";

/** The account of a run (`whatHappenedSchema`). */
export type WhatHappened = z.infer<typeof whatHappenedSchema>;

const node = (e: { nodeId: string; iteration: number }) => (e.iteration > 0 ? `"${e.nodeId}" (iteration ${e.iteration})` : `"${e.nodeId}"`);

function describe(e: FlowEvent): string | undefined {
  switch (e.type) {
    case "RunStarted":
      return `run started${e.workflowName ? ` (workflow ${e.workflowName})` : ""}`;
    case "RunResumed":
      return `run resumed from ${e.previousStatus}${e.takeover ? " (taken over from a dead owner)" : ""}`;
    case "RunFinished":
      return "run finished";
    case "RunFailed":
      return `run failed: ${e.error.code} ${e.error.message}`;
    case "RunCancelled":
      return "run cancelled";
    case "RunPaused":
      return "run paused";
    case "RunContinued":
      return `run continued as ${e.nextRunId}`;
    case "RunWaiting":
      return `run parked (${e.status}) waiting on ${e.waitingOn.join(", ")}`;
    case "TaskStarted":
      return e.attempt > 1 ? `task ${node(e)} started attempt ${e.attempt}` : `task ${node(e)} started`;
    case "TaskFinished":
      return `task ${node(e)} finished in ${e.durationMs} ms`;
    case "TaskFailed":
      return `task ${node(e)} failed (attempt ${e.attempt}): ${e.error.code} ${e.error.message}${e.willRetry ? ", will retry" : ""}`;
    case "TaskSkipped":
      return `task ${node(e)} skipped`;
    case "TaskCancelled":
      return `task ${node(e)} cancelled (${e.reason})`;
    case "TaskCacheHit":
      return `task ${node(e)} answered from cache`;
    case "TaskReset":
      return `task ${node(e)} reset (${e.reason})`;
    case "ApprovalRequested":
      return `${e.kind === "human" ? "human task" : "approval"} ${node(e)} requested`;
    case "ApprovalDecided":
      return `approval ${node(e)} decided: ${JSON.stringify(e.decision)}`;
    case "HumanTaskSubmitted":
      return `human task ${node(e)} submitted${e.submittedBy ? ` by ${e.submittedBy}` : ""}`;
    case "SignalReceived":
      return `signal "${e.name}" received by ${node(e)}`;
    case "TimerFired":
      return `timer ${node(e)} fired`;
    case "WaitTimedOut":
      return `wait ${node(e)} timed out (${e.onTimeout})`;
    case "ScopeFailed":
      return `scope "${e.scopeId}" failed: ${e.error.code} ${e.error.message}`;
    case "AlertRaised":
      return `alert "${e.rule}" on ${node(e)} after ${e.elapsedMs} ms (${e.severity})`;
    default:
      return undefined;
  }
}

/**
 * The account of a run from its event log.
 * @example
 * const { summary, lines } = await whatHappened(db, "r1");
 * console.log(summary + "\n" + lines.join("\n"));
 */
export async function whatHappened(db: FlowDb, runId: string): Promise<WhatHappened> {
  const run = await db.requireRun(runId);
  const events = await db.listEvents(runId);
  const lines: string[] = [];
  const finished = new Set<string>();
  const failed = new Set<string>();
  for (const e of events) {
    if (e.type === "TaskFinished" || e.type === "TaskCacheHit") finished.add(`${e.nodeId}#${e.iteration}`);
    if (e.type === "TaskFailed" && !e.willRetry) failed.add(`${e.nodeId}#${e.iteration}`);
    const text = describe(e);
    if (text) lines.push(`+${((e.timestampMs - run.createdAtMs) / 1000).toFixed(1)}s ${text}`);
  }
  const waiting = [...events].reverse().find((e) => e.type === "RunWaiting");
  const parts = [`Run ${runId} is ${run.status}`, `${finished.size} task${finished.size === 1 ? "" : "s"} finished`];
  if (failed.size) parts.push(`${failed.size} failed`);
  if (run.status.startsWith("waiting-") && waiting?.type === "RunWaiting") parts.push(`it waits on ${waiting.waitingOn.join(", ")}`);
  if (run.error) parts.push(`error ${run.error.code}: ${run.error.message}`);
  return { runId, status: run.status, summary: `${parts.join("; ")}.`, lines };
}
