/**
 * @module core/engine/transcript-batch
 * Agent transcript events on their way into the run's events log (DESIGN.md rule 3 and its
 * performance rule: "batched per flush; when no agent runs they cost nothing"). Agents push
 * events here while they work; the first push arms one timer that wakes the run loop, which
 * drains the batch into its write batch and commits it with its next flush. The timer fires
 * {@link TRANSCRIPT_FLUSH_MS} after the previous wake, or at once when that is past: the first
 * token after a quiet spell goes out without waiting (a watching browser sees it sooner,
 * docs/performance.md "A streamed token to a watching browser"), while a steady stream still
 * wakes the loop at most once per interval. Consecutive text deltas of one generation merge
 * into one event, so a model that streams a token every millisecond costs one row per flush,
 * never one transaction per token. Nothing here runs, and no timer exists, until an agent
 * pushes.
 */
import type { TranscriptSink } from "../agents/index.js";
import type { EventInit } from "./events.js";
import type { ClockPort } from "../util/index.js";

/** The shortest time between two wakes of the run loop for transcript events (ms). */
export const TRANSCRIPT_FLUSH_MS = 50;

export class TranscriptBatch implements TranscriptSink {
  private pending: EventInit[] = [];
  private timer: unknown = undefined;
  private lastWake = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: ClockPort,
    private readonly wake: () => void,
    private readonly flushMs = TRANSCRIPT_FLUSH_MS,
  ) {}

  get size(): number {
    return this.pending.length;
  }

  push(event: EventInit): void {
    const last = this.pending[this.pending.length - 1];
    if (event.type === "AgentTextDelta" && last?.type === "AgentTextDelta" && !last.truncated && sameGeneration(last, event)) {
      this.pending[this.pending.length - 1] = { ...last, text: last.text + event.text, ...(event.truncated ? { truncated: true } : {}) };
    } else this.pending.push(event);
    if (this.timer === undefined) {
      // A timer even when no wait is due: pushes of the same tick (a chunk's deltas) go together.
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.lastWake = this.clock.now();
        this.wake();
      }, Math.max(0, this.lastWake + this.flushMs - this.clock.now()));
    }
  }

  /** Hands every pending event to `emit`, oldest first. */
  drain(emit: (event: EventInit) => void): void {
    const events = this.pending;
    this.pending = [];
    for (const e of events) emit(e);
  }

  /** Stops the timer (the run ends). */
  close(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

function sameGeneration(a: { nodeId: string; iteration: number; attempt: number; generation: number }, b: typeof a): boolean {
  return a.generation === b.generation && a.attempt === b.attempt && a.nodeId === b.nodeId && a.iteration === b.iteration;
}
