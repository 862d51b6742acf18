/**
 * @module core/client/connection
 * `GatewayConnection`: one WebSocket to the Gateway (protocol in docs/hosting.md "WebSocket
 * protocol"). `open` sends the `connect` handshake (protocol, token, client identity, initial
 * subscriptions) and resolves on `connected`; `request` sends `req` frames and matches `res`
 * frames by id; `events()` is the single in-order stream of `event` frames.
 *
 * States: connecting -> open -> closed. A failed handshake rejects `open`; `close()` (or the
 * socket closing) rejects every pending request and ends `events()`.
 */
import type { EnvelopeError, RpcEnvelope } from "../api/index.js";
import type { FlowEvent, GraphSnapshot } from "../engine/index.js";
import { FlowError } from "../errors.js";
import { envelopeError, GatewayRpcError } from "./errors.js";
import type { RpcParams, RpcResult, UnaryRpcMethodName } from "./rpc-map.js";

/**
 * The `WebSocket` constructor the client uses (the browser's, or `ws` in Node).
 * @example
 * // Node 20 has no global WebSocket: pass the class the `ws` package exports (here `WsSocket`).
 * new GatewayClient({ WebSocket: WsSocket as WebSocketConstructor });
 */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/**
 * What the client needs of a WebSocket (browser API; `ws` implements it).
 * @example
 * const socket: WebSocketLike = new WebSocket("ws://127.0.0.1:7331/");
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "open" | "close" | "error" | "message", listener: (event: any) => void): void;
}

/**
 * A `run.event` frame: one event of a run's log, with its `seq`. `payload` is the FlowEvent, a
 * union narrowed by its `type` (docs/events.md).
 * @example
 * if (f.event === "run.event" && f.payload.type === "AgentTextDelta") process.stdout.write(f.payload.text);
 */
export interface RunEventFrame<E extends FlowEvent = FlowEvent> {
  type: "event";
  event: "run.event";
  runId: string;
  seq: number;
  payload: E;
}

/**
 * `run.gap_resync`: the subscription asked for events older than the replay window; the ones
 * after `resumedAfterSeq` follow (read the rest with `getRun`/`listRunEvents`).
 * @example
 * if (f.event === "run.gap_resync") console.log(f.payload.requestedAfterSeq, f.payload.resumedAfterSeq);
 */
export interface RunGapResyncFrame {
  type: "event";
  event: "run.gap_resync";
  runId: string;
  seq: number;
  payload: { requestedAfterSeq: number; resumedAfterSeq: number; lastSeq: number; windowSize: number };
}

/**
 * `run.heartbeat`: the subscription is alive; `seq` is the last seq sent.
 * @example
 * if (f.event === "run.heartbeat") lastBeat = f.payload.atMs;
 */
export interface RunHeartbeatFrame {
  type: "event";
  event: "run.heartbeat";
  runId: string;
  seq: number;
  payload: { atMs: number };
}

/**
 * A frame of an extension stream (`Gateway.extend`): an item, the end, or its error.
 * @example
 * if (f.event === "ext.error") console.log(f.payload.code);
 */
export type ExtensionStreamFrame =
  | { type: "event"; event: "ext.data"; streamId: string | number; payload: unknown }
  | { type: "event"; event: "ext.end"; streamId: string | number; payload: null }
  | { type: "event"; event: "ext.error"; streamId: string | number; payload: EnvelopeError };

/**
 * A `devtools.frame` of `streamDevTools`: the run's graph snapshot, `seq` its frame number.
 * @example
 * for await (const f of client.streamDevTools({ runId })) draw(f.payload.frameNo);
 */
export interface DevToolsFrame {
  type: "event";
  event: "devtools.frame";
  runId: string;
  seq?: number;
  payload: GraphSnapshot;
}

/**
 * An `event` frame of the gateway, a union narrowed by `event` (and a run event's payload by
 * its `type`): run events (`run.event`, `run.gap_resync`, `run.heartbeat`), extension stream
 * frames and DevTools snapshots.
 * @example
 * for await (const f of conn.events()) if (f.event === "run.gap_resync") await client.getRun({ runId: f.runId });
 */
export type GatewayEventFrame = RunEventFrame | RunGapResyncFrame | RunHeartbeatFrame | ExtensionStreamFrame | DevToolsFrame;

/** `run.error`: the gateway dropped a subscription (thrown by `events()`, never yielded). */
interface RunErrorFrame {
  type: "event";
  event: "run.error";
  runId: string;
  seq: number;
  payload: Partial<EnvelopeError>;
}

/**
 * The `connected` frame: what the gateway said at the handshake.
 * @example
 * const { heartbeatMs, identity } = (await client.connect()).handshake;
 */
export interface GatewayHandshake {
  protocol: number;
  features: string[];
  heartbeatMs: number;
  identity: unknown;
  connectionId: string;
}

/**
 * What `open` sends in the handshake.
 * @example
 * await GatewayConnection.open({ url: "ws://127.0.0.1:7331/", WebSocket, protocol: 1, token: "s3cret", subscribe: [{ runId: "r1" }] });
 */
export interface ConnectionOpenOptions {
  url: string;
  WebSocket: WebSocketConstructor;
  protocol: number;
  token?: string;
  client?: { id?: string; version?: string; platform?: string };
  subscribe?: Array<{ runId: string; afterSeq?: number }>;
  signal?: AbortSignal;
}

const OPEN = 1;

/**
 * A connected WebSocket to the Gateway.
 * @example
 * const conn = await client.connect({ subscribe: [{ runId, afterSeq: 0 }] });
 * for await (const frame of conn.events()) if (frame.event === "run.event") console.log(frame.seq);
 */
export class GatewayConnection {
  /** What the gateway answered in the handshake. */
  handshake!: GatewayHandshake;
  private nextId = 1;
  private readonly pending = new Map<number, { method: string; resolve: (e: RpcEnvelope) => void; reject: (e: unknown) => void }>();
  private readonly queue: Array<GatewayEventFrame | RunErrorFrame> = [];
  private failure: unknown;
  private ended = false;
  private consumed = false;
  private wake: (() => void) | undefined;
  private onHandshake: ((error?: unknown) => void) | undefined;
  private readonly closeListeners = new Set<() => void>();

  private constructor(private readonly ws: WebSocketLike) {}

  /**
   * Opens a socket and completes the handshake; rejects with the gateway's error (UNAUTHORIZED,
   * PROTOCOL_UNSUPPORTED) or GATEWAY_UNAVAILABLE when the socket cannot open.
   * @example
   * const conn = await GatewayConnection.open({ url: "ws://127.0.0.1:7331/", WebSocket, protocol: 1 });
   */
  static open(opts: ConnectionOpenOptions): Promise<GatewayConnection> {
    const conn = new GatewayConnection(new opts.WebSocket(opts.url));
    return new Promise<GatewayConnection>((resolve, reject) => {
      const abort = () => conn.close();
      opts.signal?.addEventListener("abort", abort, { once: true });
      conn.onHandshake = (error) => {
        conn.onHandshake = undefined;
        opts.signal?.removeEventListener("abort", abort);
        if (error === undefined) resolve(conn);
        else reject(error);
      };
      if (opts.signal?.aborted) return conn.close();
      conn.ws.addEventListener("open", () => {
        conn.ws.send(
          JSON.stringify({
            type: "connect",
            protocol: opts.protocol,
            ...(opts.token !== undefined ? { token: opts.token } : {}),
            ...(opts.client ? { client: opts.client } : {}),
            ...(opts.subscribe ? { subscribe: opts.subscribe } : {}),
          }),
        );
      });
      conn.ws.addEventListener("message", (e) => conn.onMessage(e.data));
      conn.ws.addEventListener("error", () => {});
      conn.ws.addEventListener("close", (e) => {
        const detail = `the socket to ${opts.url} closed (code ${e?.code ?? "?"}${e?.reason ? `, ${e.reason}` : ""})`;
        conn.finish(new GatewayRpcError({ method: "websocket", code: "GATEWAY_UNAVAILABLE", message: `The gateway connection ended: ${detail}.`, details: { url: opts.url, closeCode: e?.code } }));
      });
    });
  }

  /** True until the connection closed. */
  get open(): boolean {
    return !this.ended && this.ws.readyState === OPEN;
  }

  /**
   * Calls an RPC method over the socket; resolves with its result or throws GatewayRpcError.
   * @example
   * const { runId } = await conn.request("launchRun", { workflow: "greet", input: {} });
   */
  async request<M extends UnaryRpcMethodName>(method: M, params: RpcParams<M>): Promise<RpcResult<M>>;
  /** An extension's method (`ext.<namespace>.<key>`): its result is the extension's own. */
  async request(method: `ext.${string}`, params?: unknown): Promise<unknown>;
  async request(method: string, params?: unknown): Promise<unknown> {
    const envelope = await this.requestRaw(method, params);
    if (envelope.ok) return envelope.result;
    throw envelopeError(method, envelope.error);
  }

  /**
   * Calls an RPC method over the socket; resolves with the envelope (`ok` true or false).
   * @example
   * const env = await conn.requestRaw("getRun", { runId: "nope" }); // { ok: false, error: { code: "RUN_NOT_FOUND", ... } }
   */
  requestRaw(method: string, params?: unknown): Promise<RpcEnvelope> {
    if (this.ended) return Promise.reject(this.closedError(method));
    const id = this.nextId++;
    return new Promise<RpcEnvelope>((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.ws.send(JSON.stringify({ type: "req", id, method, ...(params !== undefined ? { params } : {}) }));
    });
  }

  /**
   * The event frames, in order, for one consumer; ends when the connection closes, throws on
   * an `error` frame, a `run.error` frame (the gateway's code) or a malformed frame.
   * @example
   * for await (const f of conn.events(signal)) console.log(f.event, f.seq);
   */
  async *events(signal?: AbortSignal): AsyncGenerator<GatewayEventFrame> {
    if (this.consumed) throw new FlowError("INVALID_ARGUMENT", "events() of a gateway connection has one consumer; iterate the stream you already took.");
    this.consumed = true;
    const stop = () => this.notify();
    signal?.addEventListener("abort", stop);
    try {
      for (;;) {
        if (signal?.aborted) return;
        const frame = this.queue.shift();
        if (frame) {
          if (frame.event === "run.error") throw runError(frame);
          yield frame;
          continue;
        }
        if (this.failure !== undefined) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      signal?.removeEventListener("abort", stop);
    }
  }

  /** Calls `listener` once the connection closed. */
  onClose(listener: () => void): () => void {
    if (this.ended) listener();
    else this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /**
   * Closes the socket: pending requests reject, `events()` ends.
   * @example
   * conn.close();
   */
  close(): void {
    if (this.ws.readyState <= OPEN) this.ws.close(1000, "client closed");
    this.finish(undefined);
  }

  private onMessage(data: unknown): void {
    let frame: Record<string, unknown>;
    try {
      frame = JSON.parse(String(data)) as Record<string, unknown>;
      if (frame === null || typeof frame !== "object" || typeof frame.type !== "string") throw new Error("no type");
    } catch {
      this.fail(new GatewayRpcError({ method: "websocket", code: "INVALID_GATEWAY_RESPONSE", message: `The gateway sent a frame that is not a JSON object with a type: ${String(data).slice(0, 120)}` }));
      return;
    }
    if (frame.type === "connected") {
      this.handshake = frame as unknown as GatewayHandshake;
      this.onHandshake?.();
    } else if (frame.type === "res") {
      const entry = this.pending.get(frame.id as number);
      if (!entry) return;
      this.pending.delete(frame.id as number);
      entry.resolve(frame.ok === true ? { ok: true, result: frame.result } : { ok: false, error: frame.error as never });
    } else if (frame.type === "event") {
      this.queue.push(frame as unknown as GatewayEventFrame | RunErrorFrame);
      this.notify();
    } else if (frame.type === "error") {
      const err = envelopeError("websocket", frame.error as never);
      const entry = frame.id === undefined ? undefined : this.pending.get(frame.id as number);
      if (entry) {
        this.pending.delete(frame.id as number);
        entry.reject(envelopeError(entry.method, frame.error as never));
      } else if (this.onHandshake) this.onHandshake(err);
      else this.fail(err);
    }
  }

  private fail(error: unknown): void {
    if (this.failure === undefined) this.failure = error;
    this.notify();
  }

  private finish(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    const closed = error ?? this.closedError("websocket");
    this.onHandshake?.(closed);
    for (const entry of this.pending.values()) entry.reject(error ?? this.closedError(entry.method));
    this.pending.clear();
    this.notify();
    for (const listener of this.closeListeners) listener();
    this.closeListeners.clear();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private closedError(method: string): GatewayRpcError {
    return new GatewayRpcError({ method, code: "GATEWAY_CLIENT_CLOSED", message: `The gateway connection was closed before ${method} answered; open a new one with client.connect().` });
  }
}

function runError(frame: RunErrorFrame): GatewayRpcError {
  const p = frame.payload ?? {};
  return new GatewayRpcError({
    method: "streamRunEvents",
    code: p.code ?? "INTERNAL",
    message: p.message ?? `The gateway dropped the subscription of run ${frame.runId}.`,
    details: { ...p.details, runId: frame.runId, lastSeq: frame.seq },
  });
}
