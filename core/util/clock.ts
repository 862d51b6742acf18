/**
 * @module core/util/clock
 * Time and timers, injected (STYLE.md 3.5): the engine, task memory and the API take a
 * `ClockPort` instead of touching `Date.now()` or the global timers, so durable timers and
 * heartbeats are testable with a fake clock. Here, below the engine, so the areas the engine
 * uses can take a clock without importing it (docs/architecture.md, "No cycles").
 */

/** Time and timers. */
export interface ClockPort {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The clock of the host (wraps the global timers; tests inject their own). */
export const systemClock: ClockPort = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
};
