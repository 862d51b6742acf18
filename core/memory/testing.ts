/**
 * @module core/memory/testing
 * Test helpers of the memory and scorer areas (excluded from the package exports): a fake clock
 * that tests move by hand and a counter id source (both injected through the workflow's runtime
 * env), and the FlowError a promise rejects with.
 */
import type { ClockPort } from "../util/index.js";
import { type FlowError, isFlowError } from "../errors.js";

/** A clock that only moves when told to; timers fire as time passes them. */
export interface FakeClock extends ClockPort {
  advance(ms: number): void;
  set(ms: number): void;
}

export function fakeClock(startMs = 1_700_000_000_000): FakeClock {
  let now = startMs;
  let nextHandle = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const fire = () => {
    for (const [handle, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at > now) break;
      timers.delete(handle);
      t.fn();
    }
  };
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const handle = nextHandle++;
      timers.set(handle, { at: now + Math.max(0, ms), fn });
      return handle;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      now += ms;
      fire();
    },
    set(ms) {
      now = ms;
      fire();
    },
  };
}

/** Ids `prefix-1`, `prefix-2`, ... (deterministic, sortable within a test). */
export function counterIds(prefix = "id"): () => string {
  let n = 0;
  return () => `${prefix}-${String(++n).padStart(6, "0")}`;
}

/** The FlowError a promise rejects with (fails the test when it resolves or throws anything else). */
export async function rejection(p: Promise<unknown>): Promise<FlowError> {
  try {
    await p;
  } catch (e) {
    if (isFlowError(e)) return e;
    throw e;
  }
  throw new Error("expected the promise to reject with a FlowError");
}
