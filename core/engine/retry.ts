/**
 * @module core/engine/retry
 * Retry decisions (SPEC.md `retries`, `RetryPolicy`): how many attempts a task gets and how
 * long to wait before the next one.
 */
import type { RetryPolicy } from "../components/types.js";
import { isFlowError } from "../errors.js";

/** Longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 5 * 60_000;

/** Delay before retry number `retry` (1 = the first retry). Default policy: fixed, 0 ms. */
export function retryDelayMs(policy: RetryPolicy | undefined, retry: number): number {
  const base = Math.max(0, policy?.initialDelayMs ?? 0);
  const delay =
    policy?.backoff === "exponential" ? base * 2 ** (retry - 1)
    : policy?.backoff === "linear" ? base * retry
    : base;
  return Math.min(delay, MAX_RETRY_DELAY_MS);
}

/**
 * Failures that no retry can fix: a static row that does not match its schema, a rejected
 * agent preflight, and a cancelled attempt. Everything else is retried while retries remain.
 */
export function isRetryable(error: unknown, staticPayload: boolean): boolean {
  for (const code of ["AGENT_PREFLIGHT_FAILED", "TASK_CANCELLED", "AGENT_CONFIG_INVALID", "AGENT_RPC_FILE_ARGS"] as const) {
    if (isFlowError(error, code)) return false;
  }
  if (staticPayload && isFlowError(error, "TASK_OUTPUT_INVALID")) return false;
  return true;
}
