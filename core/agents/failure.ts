/**
 * @module core/agents/failure
 * What kind of failure an agent call ended with, so run-agent can fail over, park the run on a
 * quota, drop a lost session or give up (docs/agents.md, "Failures and quota"). SDK errors are
 * read from the AI SDK's `APICallError` (status, headers); CLI failures arrive as FlowErrors
 * already classified by the CLI agent, which uses {@link classifyFailureText} on the CLI's text.
 */
import { isFlowError } from "../errors.js";

/** How long a run waits on a quota whose reset time nobody told us. */
export const DEFAULT_QUOTA_BACKOFF_MS = 60_000;

/** The kinds of agent failure run-agent tells apart. */
export type AgentFailureKind = "quota" | "config" | "session-lost" | "aborted" | "other";

/** A classified failure; `retryAtMs` is set for quota failures. */
export interface AgentFailure {
  kind: AgentFailureKind;
  retryAtMs?: number;
}

const QUOTA_TEXT = /usage limit|rate limit exceeded|rate_limit_exceeded|too many requests|out_of_credits|usage_limit_reached|quota exceeded|insufficient_quota|\b429\b/i;
const CONFIG_TEXT = /LLM not set|unknown model|model not found|invalid api key|invalid x-api-key|incorrect api key|authentication_error|\b401\b|unauthorized|token (has )?expired|expired token|not logged in|please log ?in/i;

/**
 * Classifies the error text a CLI printed (CLI-AGENTS.md section 2, "Classification").
 * @example
 * classifyFailureText("Error: usage limit reached, try again in 30 seconds", Date.now()).kind; // "quota"
 */
export function classifyFailureText(text: string, nowMs: number): AgentFailure {
  if (QUOTA_TEXT.test(text)) return { kind: "quota", retryAtMs: parseResetTime(text, nowMs) ?? nowMs + DEFAULT_QUOTA_BACKOFF_MS };
  if (CONFIG_TEXT.test(text)) return { kind: "config" };
  return { kind: "other" };
}

/**
 * Classifies anything an agent threw: Flow's own codes, AI SDK API errors (429 is a quota,
 * 401/403 a configuration problem), abort errors, and the text of anything else.
 * @example
 * classifyAgentError(new FlowError("AGENT_QUOTA_EXCEEDED", "limit", { retryAtMs: 5 }), 0); // { kind: "quota", retryAtMs: 5 }
 */
export function classifyAgentError(error: unknown, nowMs: number): AgentFailure {
  if (isFlowError(error)) {
    switch (error.code) {
      case "AGENT_QUOTA_EXCEEDED":
        return { kind: "quota", retryAtMs: numberOr(error.details?.retryAtMs, nowMs + DEFAULT_QUOTA_BACKOFF_MS) };
      case "AGENT_CONFIG_INVALID":
      case "AGENT_RPC_FILE_ARGS":
      // An agent this host cannot run (a CLI agent in the browser): retrying cannot help.
      case "NOT_AVAILABLE":
        return { kind: "config" };
      case "AGENT_SESSION_LOST":
        return { kind: "session-lost" };
      case "PROCESS_ABORTED":
      case "TASK_CANCELLED":
      case "TASK_TIMEOUT":
      case "TASK_HEARTBEAT_TIMEOUT":
        return { kind: "aborted" };
      default:
        return { kind: "other" };
    }
  }
  const api = apiCallErrorOf(error);
  if (api) {
    if (api.statusCode === 429) return { kind: "quota", retryAtMs: retryAtFromHeaders(api.responseHeaders, nowMs) ?? parseResetTime(api.responseBody ?? "", nowMs) ?? nowMs + DEFAULT_QUOTA_BACKOFF_MS };
    if (api.statusCode === 401 || api.statusCode === 403) return { kind: "config" };
    return { kind: "other" };
  }
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) return { kind: "aborted" };
  return error instanceof Error ? classifyFailureText(error.message, nowMs) : { kind: "other" };
}

interface ApiCallErrorLike {
  statusCode?: number;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
}

/** The AI SDK `APICallError` inside an error (a `RetryError` wraps the last one). */
function apiCallErrorOf(error: unknown): ApiCallErrorLike | undefined {
  let e = error as Record<string, unknown> | undefined;
  for (let depth = 0; e && typeof e === "object" && depth < 4; depth++) {
    if (typeof e.statusCode === "number") return e as ApiCallErrorLike;
    e = (e.lastError ?? e.cause) as Record<string, unknown> | undefined;
  }
  return undefined;
}

/**
 * The reset time announced by HTTP rate-limit headers: `retry-after-ms`, `retry-after`
 * (seconds or an HTTP date), the earliest `anthropic-ratelimit-*-reset` (RFC 3339) or
 * `x-ratelimit-reset-*` (durations such as `6m0s`).
 * @example
 * retryAtFromHeaders({ "retry-after": "30" }, 0); // 30000
 */
export function retryAtFromHeaders(headers: Record<string, string> | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(h["retry-after-ms"]);
  if (h["retry-after-ms"] && Number.isFinite(ms)) return nowMs + ms;
  const ra = h["retry-after"];
  if (ra) {
    const secs = Number(ra);
    if (Number.isFinite(secs)) return nowMs + secs * 1000;
    const at = Date.parse(ra);
    if (Number.isFinite(at)) return at;
  }
  const resets: number[] = [];
  for (const [k, v] of Object.entries(h)) {
    if (/^anthropic-ratelimit-.*-reset$/.test(k)) {
      const at = Date.parse(v);
      if (Number.isFinite(at)) resets.push(at);
    } else if (/^x-ratelimit-reset/.test(k)) {
      const d = parseDuration(v);
      if (d !== undefined) resets.push(nowMs + d);
    }
  }
  return resets.length ? Math.max(...resets) : undefined;
}

/**
 * The reset time a quota message announces: "retry after N seconds" (or "in N minutes"),
 * "try again at <date>", or "resets 4pm (Area/Zone)"; undefined when it names none.
 * @example
 * parseResetTime("rate limit exceeded, retry after 20 seconds", 1000); // 21000
 */
export function parseResetTime(text: string, nowMs: number): number | undefined {
  const rel = /(?:retry|try again)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec(?:ond)?s?|m|min(?:ute)?s?|h|hours?)\b/i.exec(text);
  if (rel) return nowMs + Number(rel[1]) * unitMs(rel[2]!);
  const at = /try again at\s+([^\n]+?)\.?\s*(?:\n|$)/i.exec(text);
  if (at) {
    const parsed = Date.parse(at[1]!);
    if (Number.isFinite(parsed)) return parsed;
  }
  const clock = /(?:resets?|try again)\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\s*(?:\(([^)]+)\))?/i.exec(text);
  if (clock) return nextWallClock(Number(clock[1]), Number(clock[2] ?? 0), clock[3], clock[4]?.trim() || "UTC", nowMs);
  return undefined;
}

function unitMs(unit: string): number {
  const u = unit.toLowerCase();
  if (u === "ms" || u.startsWith("milli")) return 1;
  if (u === "s" || u.startsWith("sec")) return 1000;
  if (u === "m" || u.startsWith("min")) return 60_000;
  return 3_600_000;
}

function parseDuration(value: string): number | undefined {
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (!parts.length) return Number.isFinite(Number(value)) ? Number(value) * 1000 : undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (p[2] === "ms" ? 1 : p[2] === "s" ? 1000 : p[2] === "m" ? 60_000 : 3_600_000), 0);
}

/** The next instant after `nowMs` at which the wall clock of `zone` shows hour:minute. */
function nextWallClock(hour12: number, minute: number, ampm: string | undefined, zone: string, nowMs: number): number | undefined {
  let hour = hour12 % 24;
  if (ampm) hour = (hour12 % 12) + (ampm.toLowerCase() === "pm" ? 12 : 0);
  let offset: number;
  try {
    offset = zoneOffsetMs(zone, nowMs);
  } catch {
    return undefined;
  }
  const local = new Date(nowMs + offset);
  let target = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour, minute) - offset;
  if (target <= nowMs) target += 86_400_000;
  return target;
}

function zoneOffsetMs(zone: string, atMs: number): number {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" }).formatToParts(atMs);
  const get = (t: string) => Number(parts.find((p) => p.type === t)!.value);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return wall - Math.floor(atMs / 1000) * 1000;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}
