/**
 * @module core/engine/waits/spec
 * What a waiting node waits for. Approvals, human tasks, signals, events and timers are all
 * nodes the engine does not run: they park until something is delivered (or a deadline
 * passes), durably, so that another process can wake the run later. See docs/waiting.md.
 */
import { FlowError } from "../../errors.js";

export type WaitKind = "approval" | "human" | "signal" | "event" | "timer";

/** What a node does when its wait times out (`onTimeout`). */
export type OnTimeout = "fail" | "skip" | "continue";

export interface ApprovalWait {
  kind: "approval";
  mode: "approve" | "select" | "rank";
  request: { title: string; summary?: string; metadata?: Record<string, unknown> };
  options?: Array<{ key: string; label: string; summary?: string; metadata?: Record<string, unknown> }>;
  onDeny: "fail" | "continue" | "skip";
  allowedScopes?: string[];
  allowedUsers?: string[];
  /** Auto-approve this long after the request (ms). */
  autoAfterMs?: number;
  /** Auto-approve now (`autoApprove.condition` true, or an ApprovalGate with `when` false). */
  autoNow?: boolean;
  /** `autoApprove.revertOn` true: no automatic approval while it holds; a person decides. */
  revertOn?: boolean;
  /** Record auto-approvals with this actor (`autoApprove.audit`). */
  audit?: string;
  /** A Task with `needsApproval`: once approved, the task itself runs. */
  gatesTask?: boolean;
  timeoutMs?: number;
}

export interface HumanWait {
  kind: "human";
  prompt: string;
  /** How many invalid submissions are tolerated before the node fails (default 3). */
  maxAttempts: number;
  timeoutMs?: number;
}

export interface SignalWait {
  kind: "signal" | "event";
  /** Signal id, or the event name of WaitForEvent. */
  name: string;
  correlationId?: string;
  timeoutMs?: number;
  onTimeout: OnTimeout;
}

export interface TimerWait {
  kind: "timer";
  /** Fire this long after the timer is first reached. */
  durationMs?: number;
  /** Fire at this time. */
  untilMs?: number;
}

export type WaitSpec = ApprovalWait | HumanWait | SignalWait | TimerWait;

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * Parses a duration: a number of milliseconds, or a string such as `500ms`, `30s`, `5m`,
 * `1h30m`, `2d`.
 */
export function parseDuration(value: string | number, what = "duration"): number {
  if (typeof value === "number") {
    if (value >= 0 && Number.isFinite(value)) return value;
  } else {
    const parts = [...value.trim().matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g)];
    const joined = parts.map((p) => p[0]).join("");
    if (parts.length && joined.replace(/\s+/g, "") === value.replace(/\s+/g, "")) {
      return parts.reduce((sum, p) => sum + Number(p[1]) * UNITS[p[2]!]!, 0);
    }
  }
  throw new FlowError("INVALID_ARGUMENT", `${what} "${String(value)}" is not a duration; use milliseconds or a string like "30s", "5m", "1h30m", "2d".`, { value: String(value) });
}

/** Parses `until`: a Date, an ISO date string or epoch milliseconds. */
export function parseInstant(value: string | number | Date, what = "until"): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(ms)) throw new FlowError("INVALID_ARGUMENT", `${what} "${String(value)}" is not a date.`, { value: String(value) });
  return ms;
}
