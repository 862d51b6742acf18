/**
 * @module ui/views/run-facts
 * What the runs list says about a run beyond its fields: who or what started it, how long it
 * has run (live while it runs), and which bulk actions apply to it (cancel: a run that has not
 * ended; resume: a paused or failed run). Pure, shared by the list and its tests.
 */
import type { GatewayRunSummaryRow } from "../../core/data/index.js";

const ENDED = new Set(["finished", "failed", "cancelled", "continued"]);

/**
 * Whether a run has ended (finished, failed, cancelled, or continued as a new run).
 * @example
 * hasEnded(row) ? row.finishedAtMs : now;
 */
export function hasEnded(row: Pick<GatewayRunSummaryRow, "status">): boolean {
  return ENDED.has(row.status);
}

/**
 * How long a run ran, or has run until `now` while it has not ended.
 * @example
 * formatDuration(runDurationMs(row, Date.now()));
 */
export function runDurationMs(row: Pick<GatewayRunSummaryRow, "status" | "createdAtMs" | "updatedAtMs" | "finishedAtMs">, now: number): number {
  const end = row.finishedAtMs ?? (hasEnded(row) ? row.updatedAtMs : now);
  return Math.max(0, end - row.createdAtMs);
}

/**
 * Who or what started a run: the authenticated `triggeredBy` (`user:ana`, `cron:nightly`), else
 * the launch's `startedBy` provenance (`harness`, with its `sessionId`), else null.
 * @example
 * startedByLabel(row) ?? "—";
 */
export function startedByLabel(row: Pick<GatewayRunSummaryRow, "triggeredBy" | "startedBy">): string | null {
  if (row.triggeredBy) return row.triggeredBy;
  const s = row.startedBy;
  if (!s) return null;
  const harness = typeof s.harness === "string" && s.harness ? s.harness : null;
  const session = typeof s.sessionId === "string" && s.sessionId ? s.sessionId : null;
  return harness && session ? `${harness} (${session})` : (harness ?? (session ? `session ${session}` : null));
}

/** The bulk actions of the runs list. */
export type BulkKind = "cancel" | "resume";

/**
 * Whether a bulk action applies to a run (the others in a selection are left alone).
 * @example
 * selected.filter((r) => bulkApplies("cancel", r));
 */
export function bulkApplies(kind: BulkKind, row: Pick<GatewayRunSummaryRow, "status">): boolean {
  return kind === "cancel" ? !hasEnded(row) : row.status === "paused" || row.status === "failed";
}
