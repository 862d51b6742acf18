/**
 * @module core/api/run-event-hub
 * Run-event subscriptions: the durable log (`_flow_events`, per-run `seq`) first, then live
 * events, each seq delivered exactly once and in order. Live events come from runs of this
 * process (`onProgress`) and from the out-of-process bridge (`publish`); an optional poll of
 * the log covers runs executed by another process when no bridge feeds the hub. A live event
 * that arrives past the next seq (the process started executing a run it was relaying before
 * the bridge read the other process's last events) first has the seqs between read from the log.
 */
import type { ClockPort, FlowDb, FlowEvent } from "../engine/index.js";
import type { Unsubscribe } from "./host.js";

/** How long a subscriber waits before it reads a gap of its run's log again after a failed read. */
const GAP_RETRY_MS = 100;

/**
 * Fans live run events out to subscribers.
 * @example
 * const hub = new RunEventHub({ clock: systemClock });
 * const stop = await hub.subscribe(db, "r1", 0, (e) => console.log(e.seq, e.type));
 */
export class RunEventHub {
  private readonly listeners = new Map<string, Set<(event: FlowEvent) => void>>();
  private readonly clock: ClockPort;
  private readonly pollMs: number | undefined;

  constructor(opts: { clock: ClockPort; pollMs?: number }) {
    this.clock = opts.clock;
    this.pollMs = opts.pollMs;
  }

  /** Delivers a persisted event (with `seq`) to the run's subscribers. */
  publish(event: FlowEvent): void {
    for (const listener of this.listeners.get(event.runId) ?? []) listener(event);
  }

  /** Number of live subscriptions (for metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /** Stored events after `afterSeq`, then live ones; resolves once the stored ones were delivered. */
  async subscribe(db: FlowDb, runId: string, afterSeq: number, onEvent: (event: FlowEvent) => void): Promise<Unsubscribe> {
    let last = afterSeq;
    let buffered: FlowEvent[] | null = [];
    let stopped = false;
    /** `checked`: the log was read up to this event, so seqs it lacks do not exist. */
    const deliver = (e: FlowEvent, checked = false) => {
      if (e.seq === undefined || e.seq <= last) return;
      if (!checked && e.seq > last + 1) return fill(e);
      last = e.seq;
      onEvent(e);
    };
    // A live event past the next seq: the seqs between were written by another process (a
    // run this process relayed, then resumed or took over) and not relayed yet. They are in
    // the log, since events are published once stored, so they are read from it and sent
    // first; live events wait meanwhile. A read that fails is retried: never a skip.
    const fill = (e: FlowEvent) => {
      buffered = [e];
      const read = async () => {
        if (stopped) return;
        try {
          const missing = await db.listEvents(runId, { afterSeq: last });
          if (stopped) return;
          const pending: FlowEvent[] = [...missing, ...(buffered ?? [])].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
          buffered = null;
          for (const x of pending) if (!stopped) deliver(x, true);
        } catch {
          this.clock.setTimeout(() => void read(), GAP_RETRY_MS);
        }
      };
      void read();
    };
    const listener = (e: FlowEvent) => (buffered ? buffered.push(e) : deliver(e));
    const set = this.listeners.get(runId) ?? new Set();
    this.listeners.set(runId, set);
    set.add(listener);
    let timer: unknown;
    const stop = () => {
      stopped = true;
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
      if (timer !== undefined) this.clock.clearTimeout(timer);
    };
    try {
      const stored = await db.listEvents(runId, { afterSeq });
      const pending: FlowEvent[] = [...stored, ...buffered].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
      buffered = null;
      for (const e of pending) deliver(e, true);
    } catch (error) {
      stop();
      throw error;
    }
    if (this.pollMs !== undefined) {
      const poll = async () => {
        if (stopped) return;
        try {
          for (const e of await db.listEvents(runId, { afterSeq: last })) if (!stopped) deliver(e);
        } catch {
          // The store may be closing; the next poll tries again.
        }
        if (!stopped) timer = this.clock.setTimeout(() => void poll(), this.pollMs!);
      };
      timer = this.clock.setTimeout(() => void poll(), this.pollMs);
    }
    return stop;
  }
}
