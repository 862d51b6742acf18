/**
 * @module core/api/change-feed
 * The change feed behind `GET /v1/api/stream`: a bounded, in-memory log of invalidations
 * ("runs of r1 changed", "crons changed") with ids `<epoch>.<n>`. A client resumes with
 * `Last-Event-ID`; an id from another epoch (the host restarted) or older than the window
 * gets a `reset` (refetch everything). Rows are never sent: clients refetch what changed.
 */

/** What changed. `collection` names the data-layer collection to refetch. */
export interface DomainChange {
  /** `<epoch>.<n>`, increasing; the SSE event id. */
  id: string;
  collection: "runs" | "approvals" | "workflows" | "crons" | "memoryFacts" | "scores";
  /** The run concerned, when there is one. */
  runId?: string;
  /** The event or action behind the change (`TaskFinished`, `cronCreate`, ...). */
  reason: string;
  atMs: number;
}

/** A change before the feed numbers it. */
export type DomainChangeInit = Omit<DomainChange, "id" | "atMs">;

/** What `since` answers: the changes after an id, or `reset` when they are gone. */
export type ChangesSince = { kind: "changes"; changes: DomainChange[] } | { kind: "reset" };

/**
 * A bounded change log with live listeners.
 * @example
 * const feed = new ChangeFeed({ now: Date.now });
 * const stop = feed.subscribe((c) => console.log(c.collection, c.runId));
 * feed.publish({ collection: "runs", runId: "r1", reason: "RunStarted" });
 */
export class ChangeFeed {
  private readonly epoch: string;
  private readonly capacity: number;
  private readonly now: () => number;
  private readonly log: DomainChange[] = [];
  private next = 1;
  private readonly listeners = new Set<(change: DomainChange) => void>();

  constructor(opts: { now: () => number; capacity?: number; epoch?: string }) {
    this.now = opts.now;
    this.capacity = Math.max(1, opts.capacity ?? 1000);
    this.epoch = opts.epoch ?? opts.now().toString(36);
  }

  /** The id of the latest change (or `<epoch>.0` when none). */
  get lastId(): string {
    return `${this.epoch}.${this.next - 1}`;
  }

  /** Numbers and records a change, and tells listeners. */
  publish(init: DomainChangeInit): DomainChange {
    const change: DomainChange = { ...init, id: `${this.epoch}.${this.next++}`, atMs: this.now() };
    this.log.push(change);
    if (this.log.length > this.capacity) this.log.splice(0, this.log.length - this.capacity);
    for (const listener of this.listeners) listener(change);
    return change;
  }

  /** The changes after `lastEventId`, or `reset` when it is of another epoch or older than the window. */
  since(lastEventId: string): ChangesSince {
    const [epoch, n] = lastEventId.split(".");
    const seen = Number(n);
    if (epoch !== this.epoch || !Number.isInteger(seen) || seen < 0 || seen >= this.next) return { kind: "reset" };
    const first = this.log[0] ? Number(this.log[0].id.split(".")[1]) : this.next;
    if (seen < first - 1) return { kind: "reset" };
    return { kind: "changes", changes: this.log.filter((c) => Number(c.id.split(".")[1]) > seen) };
  }

  /** Calls `listener` with every change published from now on. */
  subscribe(listener: (change: DomainChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
