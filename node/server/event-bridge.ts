/**
 * @module node/server/event-bridge
 * The out-of-process event bridge (SPEC.md `outOfProcessEventBridge`): runs executed by another
 * process on the same store (a `flow up` beside the gateway, another gateway) stream live to
 * this gateway's subscribers. Every `outOfProcessEventBridgePollMs` it reads `_flow_events`
 * after the last seq it knows of each watched run that this process does not execute, and
 * publishes what it finds to the host (subscribers drop seqs they already have).
 */
import type { GatewayHost } from "../../core/api/index.js";
import type { FlowEvent } from "../../core/engine/index.js";

interface Watched {
  /** Subscriptions watching the run. */
  refs: number;
  /** The highest seq published for the run. */
  seq: number;
}

/**
 * Polls the event log of watched runs.
 * @example
 * const bridge = new EventBridge(host, 1000);
 * bridge.start();
 * const unwatch = bridge.watch("r1", 12);
 */
export class EventBridge {
  private readonly watched = new Map<string, Watched>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private polling: Promise<void> | undefined;

  constructor(
    private readonly host: GatewayHost,
    private readonly pollMs: number,
  ) {}

  /** Number of runs watched (for metrics). */
  get size(): number {
    return this.watched.size;
  }

  /** Watches a run whose events up to `seq` its subscriber has; returns the unwatch function. */
  watch(runId: string, seq: number): () => void {
    const w = this.watched.get(runId);
    if (w) {
      w.refs++;
      w.seq = Math.min(w.seq, seq);
    } else this.watched.set(runId, { refs: 1, seq });
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const cur = this.watched.get(runId);
      if (cur && --cur.refs === 0) this.watched.delete(runId);
    };
  }

  /** Notes an event published in this process, so the bridge does not read it again. */
  noteEvent(event: FlowEvent): void {
    const w = this.watched.get(event.runId);
    if (w && event.seq !== undefined && event.seq > w.seq) w.seq = event.seq;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    await this.polling;
  }

  /** One pass over the watched runs (also what the timer runs). */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private arm(): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.poll().finally(() => this.arm()), this.pollMs);
    this.timer.unref();
  }

  private async pollOnce(): Promise<void> {
    for (const [runId, w] of this.watched) {
      if (this.host.activeRun(runId)) continue;
      try {
        for (const event of await this.host.db.listEvents(runId, { afterSeq: w.seq, limit: 1000 })) {
          if (event.seq !== undefined && event.seq > w.seq) w.seq = event.seq;
          this.host.publishRunEvent(event);
        }
      } catch {
        // The store may be closing or busy; the next poll reads from the same seq.
      }
    }
  }
}
