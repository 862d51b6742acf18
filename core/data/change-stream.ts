/**
 * @module core/data/change-stream
 * The data client's `stream`: the domain API's change stream (`GET /v1/api/stream`, events
 * `change`, `reset`, `heartbeat`) kept open with reconnect and backoff, and the connection
 * status a UI shows as a badge. Read with an `EventSource` when one is given, else with
 * streaming `fetch` (the browser worker's fetch, Node's).
 *
 *     connecting --answer is text/event-stream--> online
 *     connecting|online --refused, dropped, silent, or not an event stream--> offline
 *     offline --backoff (250 ms .. 10 s, jitter)--> reconnect --> online
 *     any --close()--> closed
 *
 * An answer that is not `text/event-stream` (an HTML page of a dev server) never counts as
 * online: the status parks at `offline` and reconnects keep trying. A reconnect resumes after
 * the last event id; the server answers `reset` when it cannot (it restarted), and the first
 * connection after the gateway was unreachable from the start is a `reset` too: listeners
 * refetch everything. The first time the gateway is unreachable, one session-level info
 * notice is emitted (SPEC.md "Data layer").
 */
import type { DomainChange } from "../api/index.js";
import { API_ROUTES, HEADERS, routeLabel, routeUrl } from "../api/wire/index.js";
import {
  gatewayBackoffDelay,
  type GatewayBackoffOptions,
  isEventStream,
  readSse,
  type SseMessage,
} from "../client/index.js";
import { mergeHeaders, type WorkspaceMode } from "./mode.js";

/**
 * The connection status of the change stream.
 * @example
 * cols.onStatus((s: ConnectionStatus) => (badge.dataset.status = s));
 */
export type ConnectionStatus = "connecting" | "online" | "offline" | "closed";

/**
 * What the change stream tells its listeners.
 * @example
 * data.stream.subscribe((e: ChangeStreamEvent) => { if (e.type === "change") console.log(e.change.collection, e.change.runId); });
 */
export type ChangeStreamEvent = { type: "change"; change: DomainChange } | { type: "reset" } | { type: "heartbeat" };

/**
 * A session-level notice (shown once, e.g. as a toast).
 * @example
 * cols.onNotice((n: DataNotice) => toast(n.message));
 */
export interface DataNotice {
  level: "info";
  code: "GATEWAY_UNAVAILABLE";
  message: string;
}

/**
 * An `EventSource` constructor (the browser's, or the `eventsource` package's in Node).
 * @example
 * import { EventSource } from "eventsource"; createDataClient({ mode, EventSource });
 */
export type EventSourceConstructor = new (url: string, init?: { fetch?: typeof fetch; withCredentials?: boolean }) => EventSourceLike;

/**
 * What the stream needs of an EventSource.
 * @example
 * const es: EventSourceLike = new EventSource("http://127.0.0.1:7331/v1/api/stream");
 */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: { data?: string; lastEventId?: string }) => void): void;
  close(): void;
}

/**
 * Options of the change stream.
 * @example
 * new ChangeStream({ mode, fetch, backoff: { maxMs: 5000 }, idleTimeoutMs: 30_000 });
 */
export interface ChangeStreamOptions {
  mode: WorkspaceMode;
  fetch: typeof fetch;
  EventSource?: EventSourceConstructor;
  headers?: Record<string, string>;
  backoff?: GatewayBackoffOptions;
  /** No byte for this long counts as a dropped connection (default 45000 ms: three heartbeats). */
  idleTimeoutMs?: number;
}

/**
 * The change stream of a data client.
 * @example
 * const stop = data.stream.subscribe((e) => { if (e.type === "reset") refetchAll(); });
 * data.stream.onStatus((s) => (badge.textContent = s));
 */
export class ChangeStream {
  private current: ConnectionStatus = "connecting";
  private readonly listeners = new Set<(e: ChangeStreamEvent) => void>();
  private readonly statusListeners = new Set<(s: ConnectionStatus) => void>();
  private readonly noticeListeners = new Set<(n: DataNotice) => void>();
  private readonly notices: DataNotice[] = [];
  private lastEventId: string | undefined;
  private connection: AbortController | undefined;
  private wakeUp: (() => void) | undefined;
  private started = false;
  private everOnline = false;

  constructor(private readonly opts: ChangeStreamOptions) {}

  /** The connection status now. */
  get status(): ConnectionStatus {
    return this.current;
  }

  private get isClosed(): boolean {
    return this.current === "closed";
  }

  /** Calls `listener` with every status change; returns the unsubscribe. */
  onStatus(listener: (status: ConnectionStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  /** Calls `listener` with the session's notices (those emitted already, then new ones). */
  onNotice(listener: (notice: DataNotice) => void): () => void {
    for (const n of this.notices) listener(n);
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  /** Calls `listener` with every change, reset and heartbeat; starts the stream. */
  subscribe(listener: (event: ChangeStreamEvent) => void): () => void {
    this.listeners.add(listener);
    this.start();
    return () => this.listeners.delete(listener);
  }

  /** Opens the stream (idempotent); it keeps reconnecting until `close()`. */
  start(): void {
    if (this.started || this.current === "closed") return;
    this.started = true;
    void this.loop();
  }

  /** Skips the backoff wait and reconnects now (e.g. when the browser comes back online). */
  reconnectNow(): void {
    this.wakeUp?.();
  }

  /** Stops for good; the status becomes `closed`. */
  close(): void {
    if (this.current === "closed") return;
    this.setStatus("closed");
    this.connection?.abort();
    this.wakeUp?.();
  }

  /** Reports that a call found no gateway (GATEWAY_UNAVAILABLE): the status goes `offline`, the session notice is emitted once. */
  reportUnavailable(): void {
    if (this.current === "closed") return;
    this.setStatus("offline");
    this.notice();
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.isClosed) {
      const connection = new AbortController();
      this.connection = connection;
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        clearTimeout(idle);
        idle = setTimeout(() => connection.abort(), this.opts.idleTimeoutMs ?? 45_000);
      };
      try {
        touch();
        const messages = this.opts.EventSource ? this.viaEventSource(connection.signal, touch) : this.viaFetch(connection.signal, touch);
        for await (const m of messages) {
          if (this.current !== "online") {
            const resetNeeded = !this.everOnline && this.lastEventId === undefined && attempt > 0;
            this.everOnline = true;
            attempt = 0;
            this.setStatus("online");
            if (resetNeeded) this.emit({ type: "reset" });
          }
          this.handle(m);
        }
      } catch {
        // refused, dropped, silent, or not an event stream: reconnect below
      } finally {
        clearTimeout(idle);
      }
      if (this.isClosed) return;
      this.reportUnavailable();
      await this.sleep(gatewayBackoffDelay(attempt++, this.opts.backoff));
    }
  }

  private handle(m: SseMessage): void {
    if (m.id) this.lastEventId = m.id;
    if (m.event === "change") this.emit({ type: "change", change: JSON.parse(m.data) as DomainChange });
    else if (m.event === "reset") this.emit({ type: "reset" });
    else if (m.event === "heartbeat") this.emit({ type: "heartbeat" });
  }

  private url(): string {
    return `${this.opts.mode.apiBaseUrl.replace(/\/+$/, "")}${routeUrl(API_ROUTES.changeStream, {}, { lastEventId: this.lastEventId || undefined })}`;
  }

  private async *viaFetch(signal: AbortSignal, touch: () => void): AsyncGenerator<SseMessage> {
    const headers = mergeHeaders(this.opts.mode, this.opts.headers);
    headers.set("accept", "text/event-stream");
    if (this.lastEventId) headers.set(HEADERS.lastEventId, this.lastEventId);
    const res = await this.opts.fetch(this.url(), { headers, signal });
    if (!res.ok || !isEventStream(res) || !res.body) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`${routeLabel(API_ROUTES.changeStream)} answered ${res.status} ${res.headers.get("content-type") ?? ""}, not an event stream`);
    }
    yield* readSse(res.body, touch);
    throw new Error("the change stream ended");
  }

  private async *viaEventSource(signal: AbortSignal, touch: () => void): AsyncGenerator<SseMessage> {
    const headers = mergeHeaders(this.opts.mode, this.opts.headers);
    // The eventsource package (Node) sends requests through `fetch`; browsers ignore it (and cannot set headers).
    const fetchWithHeaders: typeof fetch = (input, init) => {
      const merged = new Headers(init?.headers);
      headers.forEach((v, k) => merged.set(k, v));
      return this.opts.fetch(input, { ...init, headers: merged });
    };
    const es = new this.opts.EventSource!(this.url(), { fetch: fetchWithHeaders });
    const queue: SseMessage[] = [];
    let failed = false;
    let wake: (() => void) | undefined;
    const notify = () => {
      wake?.();
      wake = undefined;
    };
    for (const event of ["change", "reset", "heartbeat"]) {
      es.addEventListener(event, (e) => {
        touch();
        queue.push({ event, data: e.data ?? "{}", ...(e.lastEventId ? { id: e.lastEventId } : {}) });
        notify();
      });
    }
    es.addEventListener("error", () => {
      failed = true;
      notify();
    });
    signal.addEventListener("abort", notify);
    try {
      for (;;) {
        const m = queue.shift();
        if (m) {
          yield m;
          continue;
        }
        if (failed || signal.aborted) throw new Error("the change stream's EventSource failed");
        await new Promise<void>((r) => (wake = r));
      }
    } finally {
      es.close();
    }
  }

  private setStatus(status: ConnectionStatus): void {
    if (this.current === status) return;
    this.current = status;
    for (const l of this.statusListeners) l(status);
  }

  private notice(): void {
    if (this.notices.length > 0) return;
    const notice: DataNotice = {
      level: "info",
      code: "GATEWAY_UNAVAILABLE",
      message: `The Flow gateway at ${this.opts.mode.apiBaseUrl} does not answer. Showing the data loaded last; reconnecting in the background.`,
    };
    this.notices.push(notice);
    for (const l of this.noticeListeners) l(notice);
  }

  private emit(event: ChangeStreamEvent): void {
    for (const l of this.listeners) l(event);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        done();
      };
    });
  }
}
