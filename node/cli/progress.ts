/**
 * @module node/cli/progress
 * Human-readable progress lines for run events (`flow up`, and `flow runs <id>`'s recent
 * events), and the summary `flow up` prints at the end of a run. `--json` prints the events as
 * NDJSON instead.
 */
import { EventSpend } from "../../core/agents/index.js";
import type { FlowEvent, RunResult, RunUsage } from "../../core/engine/index.js";
import { formatCount, plural } from "../../core/util/index.js";
import { painter } from "./command.js";
import { formatUsage } from "./transcript-print.js";

const node = (e: { nodeId: string; iteration: number }) => (e.iteration ? `${e.nodeId}#${e.iteration}` : e.nodeId);

/**
 * One line for an event, or null for events not worth a line. `file` is the workflow file as
 * the user gave it, for the commands that a line suggests.
 * @example
 * const line = formatEvent(event, useColor(io), { file: "review.tsx" });
 */
export function formatEvent(e: FlowEvent, color: boolean, ctx: { file?: string } = {}): string | null {
  const c = painter(color);
  switch (e.type) {
    case "RunStarted":
      return `${c(36, "●")} run ${e.runId} started${e.workflowName ? ` (${e.workflowName})` : ""}`;
    case "RunResumed":
      // A run written as running that no process ever owned (the next run of a continue-as-new) starts here.
      if (e.previousStatus === "running" && e.previousOwnerId === null && !e.takeover) return `${c(36, "●")} run ${e.runId} starts`;
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
      return `${c(31, "✗")} ${node(e)} ${e.error.code}: ${e.error.message}${e.willRetry ? c(33, ` — ${retryWhen(e.timestampMs, e.retryInMs)}`) : ""}`;
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
      return `${c(33, "●")} run paused; resume with: flow up ${ctx.file ?? "<workflow file>"} --run-id ${e.runId} --resume`;
    default:
      return null;
  }
}

/**
 * `formatEvent` for `flow up`, shorter for a task that keeps failing the same way (retries are
 * unbounded by default, so an unattended run can fail for hours): from its second identical
 * failure in a row on, one short line per attempt instead of the attempt's start and its whole
 * error again.
 * @example
 * const lines = new ProgressLines(useColor(io), { file: "review.tsx" });
 * const text = lines.format(event); // null: nothing to print
 */
export class ProgressLines {
  /** Per task: its last failure's code and message, and how many times in a row it came. */
  private readonly failures = new Map<string, { error: string; times: number }>();

  constructor(
    private readonly color: boolean,
    private readonly ctx: { file?: string } = {},
  ) {}

  format(e: FlowEvent): string | null {
    if (e.type === "TaskStarted" || e.type === "TaskFailed" || e.type === "TaskFinished") {
      const key = node(e);
      const last = this.failures.get(key);
      if (e.type === "TaskFinished") this.failures.delete(key);
      // The start of an attempt after two failures alike: the failure's line says which attempt.
      if (e.type === "TaskStarted" && last && last.times >= 2) return null;
      if (e.type === "TaskFailed") {
        const error = `${e.error.code}: ${e.error.message}`;
        const times = last?.error === error ? last.times + 1 : 1;
        this.failures.set(key, { error, times });
        const c = painter(this.color);
        const retry = e.willRetry ? c(33, ` — ${retryWhen(e.timestampMs, e.retryInMs)}`) : "";
        if (times >= 2) return `${c(31, "✗")} ${key} attempt ${e.attempt} failed the same way${retry}`;
        // Another error after starts left unsaid: which attempt it was.
        if (last && last.times >= 2) return `${c(31, "✗")} ${key} attempt ${e.attempt} ${error}${retry}`;
      }
    }
    return formatEvent(e, this.color, this.ctx);
  }
}

/** `retrying now`, or `retrying in 4 s at 12:03:07` (local time). */
function retryWhen(atMs: number, inMs: number | undefined): string {
  if (!inMs) return "retrying now";
  const at = new Date(atMs + inMs);
  const clock = [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  return `retrying in ${formatDuration(inMs)} at ${clock}`;
}

/**
 * A duration for people: `340 ms`, `4.2 s`, `12 s`, `3 min 5 s`, `2 h 10 min`.
 * @example
 * formatDuration(4_200); // "4.2 s"
 */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ""}`;
}

/**
 * Counts what a run did in this process, for the line `flow up` ends with.
 * @example
 * const tally = new RunTally();
 * const result = await runWorkflow(wf, { input, onProgress: (e) => tally.observe(e) });
 * console.log(tally.summary(result, elapsedMs));
 * console.log(tally.summary(resumed, elapsedMs, (await new FlowDb(wf.db).getRunUsage(resumed.runId)).total)); // the whole run's agents too
 */
export class RunTally {
  private finished = 0;
  private failed = 0;
  private skipped = 0;
  private cached = 0;
  private attempts = 0;
  private events = 0;
  /** Runs that continued as new (`flow up` follows them into their next runs). */
  private continued = 0;
  /** What the agents' model calls spent, failed and cut attempts included (as `flow runs` counts it). */
  private readonly spend = new EventSpend();

  observe(e: FlowEvent): void {
    this.events++;
    this.spend.observe(e);
    if (e.type === "RunContinued") this.continued++;
    else if (e.type === "TaskStarted") this.attempts++;
    else if (e.type === "TaskFinished") this.finished++;
    else if (e.type === "TaskCacheHit") this.cached++;
    else if (e.type === "TaskSkipped") this.skipped++;
    else if (e.type === "TaskFailed" && !e.willRetry) this.failed++;
  }

  /**
   * `Run r1 finished in 1.2 s: 5 tasks finished, 0 failed, 1 skipped; 6 attempts.`, and where
   * agents ran, what they spent: `...; 6 attempts; agents: 1,840 in / 64 out tokens, $0.0132.`;
   * after a chain of runs that continued as new, the last run's, with the chain's counts:
   * `Run r3 finished in 2 s, the last of 3 runs (continued as new): ...`.
   */
  summary(result: RunResult, elapsedMs: number, runTotal?: RunUsage["total"]): string {
    if (this.events === 0) return `Run ${result.runId} is ${result.status} already; nothing ran.`;
    const cached = this.cached ? `, ${formatCount(this.cached)} from cache` : "";
    const chain = this.continued && result.status !== "continued" ? `, the last of ${formatCount(this.continued + 1)} runs (continued as new)` : "";
    return `Run ${result.runId} ${result.status} in ${formatDuration(elapsedMs)}${chain}: ${plural(this.finished, "task")} finished, ${formatCount(this.failed)} failed, ${formatCount(this.skipped)} skipped${cached}; ${plural(this.attempts, "attempt")}${this.spendLine(runTotal)}.`;
  }

  /**
   * `; agents: 1,840 in / 64 out tokens, $0.0132` where agents ran; with the run's total from
   * the store (a resumed run, whose earlier processes' agents this one did not see), both.
   */
  private spendLine(runTotal: RunUsage["total"] | undefined): string {
    const here = this.spend.total();
    const all = runTotal?.attempts ? formatUsage(runTotal) : "";
    if (!all) return here ? `; agents: ${formatUsage(here)}` : "";
    return `; agents: ${here ? `${formatUsage(here)} in this process` : "none in this process"}, ${all} over the whole run`;
  }
}
