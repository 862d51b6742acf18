/**
 * @module core/engine/retry
 * Retry decisions (SPEC.md `retries`, `RetryPolicy`): how many attempts a task gets and how
 * long to wait before the next one.
 */
import type { RetryPolicy } from "../components/index.js";
import { isFlowError } from "../errors.js";

/** Longest wait between two attempts under a `retryPolicy`. */
export const MAX_RETRY_DELAY_MS = 5 * 60_000;

/**
 * The waits of a task without a `retryPolicy` (Temporal's default curve): 1 s before the first
 * retry, doubling, at most 100 s. Retries stay unbounded by default (SPEC.md), so a task that
 * always throws costs one attempt every 100 s at worst, not thousands a second.
 */
export const DEFAULT_RETRY_BACKOFF = { initialDelayMs: 1000, factor: 2, maxDelayMs: 100_000 } as const;

/**
 * Delay before retry number `retry` (1 = the first retry). Without a policy, the default curve
 * above; with one, SPEC.md's `RetryPolicy` (backoff default `fixed`, `initialDelayMs` default 0).
 */
export function retryDelayMs(policy: RetryPolicy | undefined, retry: number): number {
  if (!policy) {
    const { initialDelayMs, factor, maxDelayMs } = DEFAULT_RETRY_BACKOFF;
    return Math.min(initialDelayMs * factor ** Math.min(retry - 1, 30), maxDelayMs);
  }
  const base = Math.max(0, policy?.initialDelayMs ?? 0);
  const delay =
    policy?.backoff === "exponential" ? base * 2 ** (retry - 1)
    : policy?.backoff === "linear" ? base * retry
    : base;
  return Math.min(delay, MAX_RETRY_DELAY_MS);
}

/**
 * Failures that no retry can fix: a static row that does not match its schema, a rejected
 * agent preflight, a cancelled attempt, and a tool or agent this host cannot run (NOT_AVAILABLE:
 * a CLI agent in the browser). Everything else is retried while retries remain.
 */
export function isRetryable(error: unknown, staticPayload: boolean): boolean {
  for (const code of ["AGENT_PREFLIGHT_FAILED", "TASK_CANCELLED", "AGENT_CONFIG_INVALID", "AGENT_RPC_FILE_ARGS", "NOT_AVAILABLE"] as const) {
    if (isFlowError(error, code)) return false;
  }
  if (staticPayload && isFlowError(error, "TASK_OUTPUT_INVALID")) return false;
  return true;
}
