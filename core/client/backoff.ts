/**
 * @module core/client/backoff
 * The reconnect delay of the gateway client and the data layer (SPEC.md "Limits": base 250 ms,
 * cap 10000 ms, factor 2, jitter 0.5). See docs/client.md.
 */

/**
 * Options of `gatewayBackoffDelay`.
 * @example
 * gatewayBackoffDelay(attempt, { baseMs: 100, maxMs: 5000, factor: 3, jitter: 0.2, random: () => 0.5 });
 */
export interface GatewayBackoffOptions {
  /** Delay of attempt 0 before jitter (default 250 ms). */
  baseMs?: number;
  /** Cap applied before jitter (default 10000 ms). */
  maxMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Symmetric jitter as a fraction of the capped delay (default 0.5: ±50 %). */
  jitter?: number;
  /** Random source in [0, 1) (default `Math.random`). */
  random?: () => number;
}

/**
 * The delay before reconnect attempt `attempt` (0-based): `min(maxMs, baseMs * factor^attempt)`,
 * then moved by up to ±`jitter` of itself; never negative.
 * @example
 * gatewayBackoffDelay(0, { random: () => 0.5 }); // 250
 * gatewayBackoffDelay(10); // between 5000 and 15000 (capped at 10000 before jitter)
 */
export function gatewayBackoffDelay(attempt: number, options: GatewayBackoffOptions = {}): number {
  const { baseMs = 250, maxMs = 10_000, factor = 2, jitter = 0.5, random = Math.random } = options;
  const capped = Math.min(maxMs, baseMs * factor ** Math.max(0, attempt));
  const moved = capped + capped * jitter * (random() * 2 - 1);
  return Math.max(0, moved);
}
