/**
 * @module node/cli/progress
 * Human-readable progress lines for run events (`flow up`). `--json` prints the events as
 * NDJSON instead.
 */
import type { FlowEvent } from "../../core/engine/events.js";

const node = (e: { nodeId: string; iteration: number }) => (e.iteration ? `${e.nodeId}#${e.iteration}` : e.nodeId);

/** One line for an event, or null for events not worth a line. */
export function formatEvent(e: FlowEvent, color: boolean): string | null {
  const c = (code: number, s: string) => (color ? `\u001b[${code}m${s}\u001b[0m` : s);
  switch (e.type) {
    case "RunStarted":
      return `${c(36, "●")} run ${e.runId} started${e.workflowName ? ` (${e.workflowName})` : ""}`;
    case "RunResumed":
      return `${c(36, "●")} run ${e.runId} resumed from ${e.previousStatus}${e.takeover ? ` (taken over from ${e.previousOwnerId})` : ""}`;
    case "WorkflowChanged":
      return `${c(33, "!")} workflow changed since the run started; resuming with the new code`;
    case "TaskStarted":
      return `${c(90, "▸")} ${node(e)}${e.attempt > 1 ? c(90, ` (attempt ${e.attempt})`) : ""}`;
    case "TaskFinished":
      return `${c(32, "✓")} ${node(e)} ${c(90, `${e.durationMs} ms`)}`;
    case "TaskCacheHit":
      return `${c(32, "✓")} ${node(e)} ${c(90, "(cached)")}`;
    case "TaskSkipped":
      return `${c(90, "–")} ${node(e)} skipped`;
    case "TaskFailed":
      return `${c(31, "✗")} ${node(e)} ${e.error.code}: ${e.error.message}${e.willRetry ? c(33, ` — retrying${e.retryInMs ? ` in ${e.retryInMs} ms` : ""}`) : ""}`;
    case "TaskCancelled":
      return `${c(33, "⊘")} ${node(e)} cancelled (${e.reason})`;
    case "LoopIteration":
      return `${c(36, "↻")} loop ${e.loopId} iteration ${e.iteration}`;
    case "RunFinished":
      return `${c(32, "●")} run finished`;
    case "RunFailed":
      return `${c(31, "●")} run failed: ${e.error.code}: ${e.error.message}`;
    case "RunCancelled":
      return `${c(33, "●")} run cancelled`;
    case "RunWaiting":
      return `${c(33, "◌")} waiting (${e.status}) on ${e.waitingOn.join(", ")}`;
    case "ApprovalRequested":
      return `${c(33, "?")} ${node(e)} waits for ${e.kind === "human" ? "a person's input" : "an approval"}`;
    case "ApprovalDecided":
      return `${c(32, "✓")} ${node(e)} decided ${JSON.stringify(e.decision)}`;
    case "SignalReceived":
      return `${c(32, "✓")} ${node(e)} received ${e.name}`;
    case "TimerFired":
      return `${c(32, "✓")} ${node(e)} timer fired`;
    case "WaitTimedOut":
      return `${c(33, "!")} ${node(e)} timed out (${e.onTimeout})`;
    case "ScopeFailed":
      return `${c(33, "!")} ${e.scopeId} failed (${e.error.code}); recovering`;
    case "RunContinued":
      return `${c(36, "●")} run continued as ${e.nextRunId}`;
    case "AlertRaised":
      return `${c(31, "⚠")} alert ${e.rule}: ${node(e)} running ${e.elapsedMs} ms (${e.severity}, ${e.reaction})`;
    case "WorkflowReloaded":
      return `${c(36, "↻")} workflow reloaded (generation ${e.generation})`;
    case "RunPaused":
      return `${c(33, "●")} run paused; resume with: flow up <file> --run-id ${e.runId} --resume`;
    default:
      return null;
  }
}
