/**
 * @module core/engine/transcript-batch
 * Agent transcript events on their way into the run's events log (DESIGN.md rule 3 and its
 * performance rule: "batched per flush; when no agent runs they cost nothing"). Agents push
 * events here while they work; the first push arms one timer of {@link TRANSCRIPT_FLUSH_MS}
 * that wakes the run loop, which drains the batch into its write batch and commits it with its
 * next flush. Consecutive text deltas of one generation merge into one event, so a model that
 * streams a token every millisecond costs one row per flush, never one transaction per token.
 * Nothing here runs, and no timer exists, until an agent pushes.
 */
import type { TranscriptSink } from "../agents/index.js";
import type { EventInit } from "./events.js";
import type { ClockPort } from "./world.js";

/** How long streamed transcript events wait for the next flush (ms). */
export const TRANSCRIPT_FLUSH_MS = 50;

export class TranscriptBatch implements TranscriptSink {
  private pending: EventInit[] = [];
  private timer: unknown = undefined;

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
      this.timer = this.clock.setTimeout(() => {
        this.timer = undefined;
        this.wake();
      }, this.flushMs);
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
