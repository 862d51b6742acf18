/**
 * @module node/cli/commands/time-travel-cli
 * What the time-travel commands (`timeline`, `rewind`, `revert`, `snapshots`, `fork`,
 * `replay`) share: progress lines for their events, the side-effect report, the target
 * options, and running a forked run with progress. See docs/time-travel.md ("CLI").
 */
import type { FlowEvent, RunResult } from "../../../core/engine/index.js";
import type { ResetDecision } from "../../../core/engine/internal.js";
import { FlowError, isFlowError } from "../../../core/errors.js";
import { plural } from "../../../core/util/index.js";
import type { CrossedEffect, EffectBoundaryReport } from "../../../core/time-travel/index.js";
import { routeWarnings } from "../../engine/index.js";
import { cliMessage } from "../cli-errors.js";
import { type CliIO, EXIT, painter, UsageError, useColor } from "../command.js";
import { formatEvent, RunTally } from "../progress.js";
import { iterationArg } from "./wait-cli.js";

/** `--iteration` and `--attempt` options of the commands that name an attempt. */
export const ATTEMPT_OPTIONS = { iteration: { type: "string" }, attempt: { type: "string" } } as const;

/** `--attempt`: a whole number of at least 1. */
export function attemptArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--attempt must be a whole number of at least 1, not "${text}".`);
  return n;
}

/** The run id and node id positionals of `rewind`, `revert`, `fork`. */
export function runAndNode(positionals: string[], extraAllowed = 0): [string, string] {
  const [runId, nodeId, ...rest] = positionals;
  if (!runId || !nodeId) throw new UsageError("give a run id and a node id.");
  if (rest.length > extraAllowed) throw new UsageError(`unexpected argument "${rest[extraAllowed]}".`);
  return [runId, nodeId];
}

export { iterationArg };

/**
 * A progress line for a time-travel event (or any run event), null for events not shown.
 * @example
 * const line = formatTravelEvent(event, false);
 */
export function formatTravelEvent(e: FlowEvent, color: boolean): string | null {
  const c = painter(color);
  const at = (x: { nodeId: string; iteration: number; attempt: number }) => `${x.nodeId}${x.iteration ? `@${x.iteration}` : ""} attempt ${x.attempt}`;
  const forced = (n: number) => (n ? c(33, `, ${plural(n, "side effect")} crossed with --force`) : "");
  const kept = (repositories: string[] | undefined) =>
    repositories?.length ? `\n  ${c(33, "!")} left as ${repositories.length === 1 ? "it is" : "they are"}: ${repositories.join(", ")} (a git repository of its own inside the workspace: snapshots hold the commit it was at, not its files)` : "";
  switch (e.type) {
    case "TimeTravelStarted":
      return `${c(36, "↶")} rewinding to ${at(e)}${e.vcsPointer ? ` (files from ${e.vcsPointer.slice(0, 12)})` : " (rows only)"}`;
    case "RevertStarted":
      return `${c(36, "↶")} reverting files to ${at(e)}${e.vcsPointer ? ` (${e.vcsPointer.slice(0, 12)})` : ""}`;
    case "TaskReset":
      return `${c(90, "○")} ${e.nodeId}${e.iteration ? `@${e.iteration}` : ""} reset to pending`;
    case "TimeTravelFinished":
      return `${c(32, "✓")} rewound: ${plural(e.resetNodes.length, "node")} pending, files ${e.vcsRestored ? "restored" : "untouched"}${forced(e.forcedEffects)}${kept(e.keptRepositories)}`;
    case "RevertFinished":
      return `${c(32, "✓")} files reverted${forced(e.forcedEffects)}${kept(e.keptRepositories)}`;
    default:
      return formatEvent(e, color);
  }
}

/**
 * The lines of a side-effect report (empty when nothing was crossed).
 * @example
 * io.stdout(formatReport(result.effectBoundary));
 */
export function formatReport(report: EffectBoundaryReport): string {
  const line = (e: CrossedEffect) => `    ${e.toolName} by ${e.nodeId}${e.iteration ? `@${e.iteration}` : ""} attempt ${e.attempt} (call ${e.seq}, key ${e.idempotencyKey.slice(0, 16)}): ${e.reason}\n`;
  const part = (title: string, list: CrossedEffect[]) => (list.length ? `  ${title}:\n${list.map(line).join("")}` : "");
  const text = part("blocking", report.blocking) + part("revertible", report.revertible) + part("left in place", report.warnings);
  return text ? `Side effects crossed:\n${text}` : "";
}

/**
 * Runs a time travel and prints it: progress lines (or the result as JSON with `--json`);
 * a blocked crossing prints its report and exits 1 with the way out.
 * @example
 * return travelCommand(io, values.json, (onProgress) => timeTravel(db, { runId, nodeId, onProgress }));
 */
export async function travelCommand<R extends { success: boolean; error?: string; effectBoundary: EffectBoundaryReport }>(
  io: CliIO,
  json: boolean | undefined,
  act: (onProgress: (e: FlowEvent) => void) => Promise<R>,
  next: (result: R) => string,
): Promise<number> {
  const color = useColor(io);
  try {
    const result = await act((e) => {
      const line = json ? null : formatTravelEvent(e, color);
      if (line) io.stdout(`${line}\n`);
    });
    if (json) io.stdout(`${JSON.stringify(result, null, 2)}\n`);
    else {
      const report = formatReport(result.effectBoundary);
      if (report) io.stdout(report);
      io.stdout(result.success ? next(result) : `Failed: ${result.error}\n`);
    }
    return result.success ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (!isFlowError(error, "TIME_TRAVEL_SIDE_EFFECT_BLOCKED")) throw error;
    const report = (error.details as { effectBoundary: EffectBoundaryReport }).effectBoundary;
    if (json) io.stdout(`${JSON.stringify({ success: false, code: error.code, error: error.message, effectBoundary: report }, null, 2)}\n`);
    else io.stderr(`${formatReport(report)}${cliMessage(error)}\n`);
    return EXIT.failed;
  }
}

/**
 * The decisions a rewind or retry met, one line each: asked again (the default) or kept
 * (`--keep-decisions`); empty when none.
 * @example
 * io.stdout(formatDecisions(result.decisions ?? []));
 * // Asked again: ship (approval, approved by ana); keep earlier decisions with --keep-decisions
 */
export function formatDecisions(decisions: readonly ResetDecision[]): string {
  if (!decisions.length) return "";
  const what = (d: ResetDecision) => `${d.nodeId}${d.iteration ? `@${d.iteration}` : ""} (${d.kind}, ${describeDecision(d)})`;
  const again = decisions.filter((d) => d.action === "ask-again");
  const kept = decisions.filter((d) => d.action === "keep");
  return [
    again.length ? `Asked again: ${again.map(what).join(", ")}; keep earlier decisions with --keep-decisions\n` : "",
    kept.length ? `Decisions kept: ${kept.map(what).join(", ")}\n` : "",
  ].join("");
}

function describeDecision(d: ResetDecision): string {
  const v = d.decision ?? {};
  const by = d.decidedBy ? ` by ${d.decidedBy}` : "";
  if (typeof v.approved === "boolean") return `${v.approved ? "approved" : "denied"}${by}`;
  if (typeof v.selected === "string") return `selected ${v.selected}${by}`;
  if (d.kind === "signal" || d.kind === "event") return "delivered";
  return `submitted${by}`;
}

/**
 * Runs a new run (fork or replay) with the progress of `flow up`, then its summary and result.
 * @example
 * return runWithProgress(io, values.json, (onProgress) => forkRun(workflow, { runId, nodeId, onProgress }));
 */
export async function runWithProgress(io: CliIO, json: boolean | undefined, start: (onProgress: (e: FlowEvent) => void) => Promise<RunResult>): Promise<number> {
  const color = useColor(io);
  const tally = new RunTally();
  const startedAt = Date.now();
  const restoreWarnings = routeWarnings((message) => io.stderr(`${color ? "\u001b[33m!\u001b[0m" : "!"} ${message}\n`));
  try {
    const result = await start((e) => {
      tally.observe(e);
      if (json) return io.stdout(`${JSON.stringify(e)}\n`);
      const line = formatEvent(e, color);
      if (line) io.stdout(`${line}\n`);
    });
    io.stdout(json ? `${JSON.stringify({ type: "result", ...result })}\n` : `${tally.summary(result, Date.now() - startedAt)}\n${JSON.stringify(result, null, 2)}\n`);
    return result.status === "finished" || result.status.startsWith("waiting-") ? EXIT.ok : EXIT.failed;
  } finally {
    restoreWarnings();
  }
}

/** The workspace a run snapshots, or a FlowError saying why there is none. */
export function requireWorkspace(runId: string, workspace: string | null | undefined): string {
  if (!workspace) throw new FlowError("VCS_FAILED", `Run ${runId} recorded no workspace: its tasks ran outside a git repository (or with FLOW_SNAPSHOTS=off), so it has no snapshots.`, { runId });
  return workspace;
}
