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
 * A status badge. A run whose process is gone (`owner: "gone"`: it was `running`, or waiting
 * for quota in that process) says so: it runs nowhere until it is resumed or cancelled.
 * @example
 * <StatusBadge status={run.status} owner={run.owner} />
 */
export function StatusBadge(props: { status: string; owner?: string | null; /** Words shown instead of the status (its tone and `data-status` stay the status's). */ label?: string }) {
  const gone = () => props.owner === "gone";
  return (
    <span class={`badge ${gone() ? "tone-bad" : toneOf(props.status)}`} data-status={props.status} data-owner={props.owner ?? undefined} title={gone() ? "The process running it is gone: resume or cancel it" : undefined}>
      {gone() ? `${props.status} · owner gone` : (props.label ?? props.status)}
    </span>
  );
}
