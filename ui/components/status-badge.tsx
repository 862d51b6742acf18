/**
 * @module ui/components/status-badge
 * A run's or node's status as a coloured badge (the same tones everywhere).
 */

/** Status to tone. */
const TONES: Record<string, string> = {
  running: "info",
  "in-progress": "info",
  pending: "idle",
  finished: "ok",
  completed: "ok",
  succeeded: "ok",
  continued: "ok",
  failed: "bad",
  cancelled: "idle",
  skipped: "idle",
  paused: "warn",
  "waiting-approval": "warn",
  "waiting-event": "warn",
  "waiting-timer": "warn",
  "waiting-quota": "warn",
  waiting: "warn",
};

/**
 * The tone class of a status (`tone-ok`, `tone-bad`, ...).
 * @example
 * <span class={toneOf("failed")}>failed</span>
 */
export function toneOf(status: string): string {
  return `tone-${TONES[status] ?? (status.startsWith("waiting") ? "warn" : "idle")}`;
}

/**
 * A status badge.
 * @example
 * <StatusBadge status={run.status} />
 */
export function StatusBadge(props: { status: string }) {
  return <span class={`badge ${toneOf(props.status)}`} data-status={props.status}>{props.status}</span>;
}
