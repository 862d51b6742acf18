/**
 * @module core/client/gateway-client
 * `GatewayClient` (SPEC.md "Gateway client"): calls a Flow Gateway over HTTP (`POST
 * /v1/rpc/<method>`, SSE streams) and WebSocket (`connect()`), in browsers, workers and Node 20+
 * (pass `WebSocket` from `ws` there). One typed method per RPC method, generated from the RPC
 * registry's names and typed from its definitions (core/client/rpc-map.ts).
 *
 * Ownership: `close()` aborts the client's own in-flight calls and streams and closes the
 * sockets it opened; it never aborts a signal a caller passed in (calls listen to both).
 * After `close()` every call throws GATEWAY_CLIENT_CLOSED. See docs/client.md.
 */
import type { RpcEnvelope } from "../api/index.js";
import { extStreamPath, METHOD_SCOPES, type RpcMethodName, rpcPath, TERMINAL_EVENT_TYPES } from "../api/wire/index.js";
import { FlowError } from "../errors.js";
import { type GatewayBackoffOptions, gatewayBackoffDelay } from "./backoff.js";
import { type DevToolsFrame, GatewayConnection, type RunEventFrame, type WebSocketConstructor } from "./connection.js";
import { envelopeError, GatewayRpcError, isGatewayUnavailableError, readEnvelope, unavailableError } from "./errors.js";
import type { GatewayRpcMethods, GatewayWorkflows, RpcParams, RpcResult, UnaryRpcMethodName } from "./rpc-map.js";
import { isEventStream, readSse } from "./sse-reader.js";

/**
 * The client's identity, sent in the WebSocket handshake.
 * @example
 * new GatewayClient({ client: { id: "console", version: "1.2.0", platform: "browser" } });
 */
export interface GatewayClientIdentity {
  id?: string;
  version?: string;
  platform?: string;
}

/**
 * Options of `new GatewayClient(options)`.
 * @example
 * new GatewayClient({ baseUrl: "https://flow.example.com", token, headers: { "x-team": "infra" }, fetch, WebSocket });
 */
export interface GatewayClientOptions {
  /** Default: the browser's origin, else `http://127.0.0.1:7331`; a trailing slash is stripped; `ws+unix:/path.sock` talks over a Unix socket (WebSocket only). */
  baseUrl?: string;
  /** Sent as `authorization: Bearer <token>` on HTTP and in the WebSocket `connect` frame. */
  token?: string;
  /** Extra headers of every HTTP request (the token's `authorization` wins). */
  headers?: Record<string, string>;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch;
  /** Default: the global `WebSocket` (Node 20: pass `WebSocket` from `ws`). */
  WebSocket?: WebSocketConstructor;
  /** Sent in the WebSocket handshake. */
  client?: GatewayClientIdentity;
}

/**
 * A per-call option.
 * @example
 * await client.listRuns({}, { signal: AbortSignal.timeout(5000) });
 */
export interface CallOptions {
  signal?: AbortSignal;
}

/**
 * Options of `streamRunEventsResilient`.
 * @example
 * client.streamRunEventsResilient({ runId }, { signal, idleTimeoutMs: 20_000, backoff: { maxMs: 5000 }, onReconnect: (i) => console.log(i.delayMs) });
 */
export interface ResilientStreamOptions extends CallOptions {
  /** Reconnect delays (SPEC.md defaults: 250 ms base, 10 s cap, factor 2, jitter 0.5). */
  backoff?: GatewayBackoffOptions;
  /** A connection silent this long (no event, no heartbeat) counts as dropped (default 45000 ms: three gateway heartbeats). */
  idleTimeoutMs?: number;
  /** Called before each reconnect, with the attempt (0-based), its delay and what ended the last connection. */
  onReconnect?(info: { attempt: number; delayMs: number; afterSeq: number; error: unknown }): void;
}

const DEFAULT_BASE_URL = "http://127.0.0.1:7331";
const PROTOCOL = 1;

function defaultBaseUrl(): string {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return origin && /^https?:/.test(origin) ? origin : DEFAULT_BASE_URL;
}

/**
 * A client of one Flow Gateway. Name the gateway's workflows in the type parameter (a map from
 * key to workflow, `typeof` the workflows the gateway registers) and `launchRun` takes only
 * those keys, with each one's input typed from its input schema; without it any key and any
 * input object compile, as the gateway checks them.
 * @example
 * import { GatewayClient } from "durable-flow/gateway-client";
 * import type { workflows } from "./flow/workflows.js"; // { review: FlowWorkflow<...>, ... }
 * const client = new GatewayClient<typeof workflows>({ baseUrl: "http://127.0.0.1:7331", token: process.env.FLOW_TOKEN });
 * const { runId } = await client.launchRun({ workflow: "review", input: { repo: "." } });
 * for await (const frame of client.streamRunEvents({ runId })) if (frame.payload.type === "TaskFinished") console.log(frame.payload.nodeId);
 * client.close();
 */
export class GatewayClient<W extends GatewayWorkflows = GatewayWorkflows> {
  /** The base URL, without a trailing slash. */
  readonly baseUrl: string;
  private readonly opts: GatewayClientOptions;
  private readonly own = new AbortController();
  private readonly sockets = new Set<GatewayConnection>();
  private unixSocket: Promise<GatewayConnection> | undefined;

  constructor(options: GatewayClientOptions = {}) {
    this.opts = options;
    this.baseUrl = (options.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, "");
  }

  /** True once `close()` was called. */
  get closed(): boolean {
    return this.own.signal.aborted;
  }

  /**
   * Calls an RPC method; resolves with its result or throws GatewayRpcError.
   * @example
   * const run = await client.rpc("getRun", { runId });
   */
  async rpc<M extends UnaryRpcMethodName>(method: M, params: RpcParams<M>, options?: CallOptions): Promise<RpcResult<M>>;
  async rpc(method: string, params?: unknown, options?: CallOptions): Promise<unknown>;
  async rpc(method: string, params?: unknown, options: CallOptions = {}): Promise<unknown> {
    const { envelope, status } = await this.call(method, params, options);
    if (envelope.ok) return envelope.result;
    throw envelopeError(method, envelope.error, status);
  }

  /**
   * Calls an RPC method; resolves with the gateway's envelope (`{ok: true, result}` or
   * `{ok: false, error}`); throws only when no envelope came (GATEWAY_UNAVAILABLE,
   * INVALID_GATEWAY_RESPONSE). A non-2xx answer without an envelope is `{ok: false, error: {code: "HTTP_ERROR"}}`.
   * @example
   * const env = await client.rpcRaw("getRun", { runId: "nope" });
   * if (!env.ok) console.log(env.error.code); // RUN_NOT_FOUND
   */
  async rpcRaw(method: string, params?: unknown, options: CallOptions = {}): Promise<RpcEnvelope> {
    return (await this.call(method, params, options)).envelope;
  }

  /**
   * Calls the RPC method `key` of the extension `namespace` (`Gateway.extend`).
   * @example
   * const status = await client.extensionRpc("repo", "status", {});
   */
  extensionRpc(namespace: string, key: string, params: unknown = {}, options?: CallOptions): Promise<unknown> {
    return this.rpc(`ext.${namespace}.${key}`, params, options);
  }

  /**
   * The items of the stream `key` of the extension `namespace`, in order; ends when the
   * extension's iterable ends, throws its error.
   * @example
   * for await (const tick of client.streamExtension("repo", "ticks", { n: 3 })) console.log(tick);
   */
  async *streamExtension(namespace: string, key: string, params: unknown = {}, options: CallOptions = {}): AsyncGenerator<unknown> {
    const method = `ext.${namespace}.${key}`;
    this.assertOpen(method);
    const path = extStreamPath(namespace, key, params);
    for await (const m of this.sse(method, path, undefined, options.signal)) {
      if (m.event === "data") yield m.payload;
      else if (m.event === "end") return;
      else if (m.event === "error") throw envelopeError(method, m.payload as never);
    }
  }

  /**
   * A run's events from the durable log after `afterSeq` (default 0), then live; ends after the
   * run's terminal event (RunFinished, RunFailed, RunCancelled, RunContinued).
   * @example
   * for await (const f of client.streamRunEvents({ runId, afterSeq: 12 })) console.log(f.seq);
   */
  async *streamRunEvents(params: RpcParams<"streamRunEvents">, options: CallOptions = {}): AsyncGenerator<RunEventFrame> {
    yield* this.runEvents(params, options.signal);
  }

  /**
   * `streamRunEvents` that survives a dropped connection (the gateway restarting, a network
   * change, a silent socket): it reconnects with backoff and jitter, resumes after the last
   * seq it yielded (each event once, in order), and stops on the run's terminal event or when
   * `signal` aborts. Errors of the gateway (RUN_NOT_FOUND, FORBIDDEN) are thrown.
   * @example
   * for await (const f of client.streamRunEventsResilient({ runId }, { signal })) render(f.payload);
   */
  async *streamRunEventsResilient(params: RpcParams<"streamRunEvents">, options: ResilientStreamOptions = {}): AsyncGenerator<RunEventFrame> {
    let afterSeq = params.afterSeq ?? 0;
    let attempt = 0;
    const idleMs = options.idleTimeoutMs ?? 45_000;
    for (;;) {
      const idle = new AbortController();
      const signals = [idle.signal, ...(options.signal ? [options.signal] : [])];
      let timer: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(new FlowError("GATEWAY_UNAVAILABLE", `No event or heartbeat of run ${params.runId} for ${idleMs} ms; reconnecting.`)), idleMs);
      };
      let error: unknown;
      try {
        touch();
        for await (const frame of this.runEvents({ runId: params.runId, afterSeq }, AbortSignal.any(signals), () => {
          touch();
          attempt = 0;
        })) {
          if (frame.seq <= afterSeq) continue;
          afterSeq = frame.seq;
          clearTimeout(timer); // a slow consumer is not a silent connection
          yield frame;
          touch();
          if (TERMINAL_EVENT_TYPES.has(frame.payload.type)) return;
        }
        return;
      } catch (e) {
        if (options.signal?.aborted) return;
        if (this.closed) throw e;
        if (!(idle.signal.aborted || retryable(e))) throw e;
        error = idle.signal.aborted ? idle.signal.reason : e;
      } finally {
        clearTimeout(timer);
      }
      const delayMs = gatewayBackoffDelay(attempt, options.backoff);
      options.onReconnect?.({ attempt, delayMs, afterSeq, error });
      attempt++;
      await sleep(delayMs, AbortSignal.any([this.own.signal, ...(options.signal ? [options.signal] : [])]));
      if (options.signal?.aborted) return;
      this.assertOpen("streamRunEventsResilient");
    }
  }

  /**
   * The run's graph snapshots (`devtools.frame` frames): the current one, then each new frame.
   * Runs until `signal` aborts or the client closes.
   * @example
   * for await (const f of client.streamDevTools({ runId }, { signal })) draw(f.payload);
   */
  async *streamDevTools(params: RpcParams<"streamDevTools">, options: CallOptions = {}): AsyncGenerator<DevToolsFrame> {
    this.assertOpen("streamDevTools");
    if (this.isUnix) throw new FlowError("NOT_AVAILABLE", "streamDevTools is served over HTTP only; use an http(s) base URL for it.", { baseUrl: this.baseUrl });
    for await (const m of this.sse("streamDevTools", rpcPath("streamDevTools"), params, options.signal)) {
      if (m.event === "end") return;
      if (m.event === "devtools.frame") yield { type: "event", event: m.event, runId: params.runId, ...(m.seq !== undefined ? { seq: m.seq } : {}), payload: m.payload as DevToolsFrame["payload"] };
    }
  }

  /**
   * Opens a WebSocket to the gateway (the `connect` handshake with the token and client
   * identity, optional run subscriptions). The client closes it on `close()`.
   * @example
   * const conn = await client.connect({ subscribe: [{ runId }] });
   * const run = await conn.request("getRun", { runId });
   * for await (const frame of conn.events()) console.log(frame.event, frame.seq);
   */
  async connect(options: { subscribe?: Array<{ runId: string; afterSeq?: number }>; signal?: AbortSignal } = {}): Promise<GatewayConnection> {
    this.assertOpen("connect");
    const WebSocketImpl = this.opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketImpl) throw new FlowError("NOT_AVAILABLE", "This runtime has no global WebSocket; pass one: new GatewayClient({ WebSocket }) with WebSocket from the ws package.");
    const conn = await GatewayConnection.open({
      url: this.wsUrl,
      WebSocket: WebSocketImpl,
      protocol: PROTOCOL,
      ...(this.opts.token !== undefined ? { token: this.opts.token } : {}),
      ...(this.opts.client ? { client: this.opts.client } : {}),
      ...(options.subscribe ? { subscribe: options.subscribe } : {}),
      signal: AbortSignal.any([this.own.signal, ...(options.signal ? [options.signal] : [])]),
    }).catch((error: unknown) => {
      if (this.closed) throw this.closedError("connect");
      throw error;
    });
    if (this.closed) {
      conn.close();
      throw this.closedError("connect");
    }
    this.sockets.add(conn);
    conn.onClose(() => this.sockets.delete(conn));
    return conn;
  }

  /**
   * Closes the client: its in-flight calls and streams are aborted (they throw
   * GATEWAY_CLIENT_CLOSED), the sockets it opened are closed, later calls throw. Idempotent;
   * signals passed in by callers are left alone.
   * @example
   * client.close(); client.closed; // true
   */
  close(): void {
    if (this.closed) return;
    this.own.abort(this.closedError("close"));
    for (const conn of this.sockets) conn.close();
    this.sockets.clear();
  }

  // ---- transport ----

  private async call(method: string, params: unknown, options: CallOptions): Promise<{ envelope: RpcEnvelope; status?: number }> {
    this.assertOpen(method);
    if (this.isUnix) {
      const conn = await this.unixConnection(options.signal);
      return { envelope: await this.guard(method, options.signal, conn.requestRaw(method, params ?? {})) };
    }
    const res = await this.post(method, rpcPath(method), params ?? {}, options.signal);
    return { envelope: await readEnvelope(method, res), status: res.status };
  }

  private get isUnix(): boolean {
    return this.baseUrl.startsWith("ws+unix:");
  }

  private get wsUrl(): string {
    // ws's form is `ws+unix:<socket path>:<request path>`.
    if (this.isUnix) return this.baseUrl.slice("ws+unix:".length).includes(":/") ? this.baseUrl : `${this.baseUrl}:/`;
    return `${this.baseUrl.replace(/^http/, "ws")}/`;
  }

  private headers(json: boolean): Record<string, string> {
    return {
      ...this.opts.headers,
      ...(json ? { "content-type": "application/json" } : {}),
      ...(this.opts.token !== undefined ? { authorization: `Bearer ${this.opts.token}` } : {}),
    };
  }

  private async post(method: string, path: string, body: unknown, signal: AbortSignal | undefined, accept?: string): Promise<Response> {
    return this.request(method, path, { method: "POST", headers: { ...this.headers(true), ...(accept ? { accept } : {}) }, body: JSON.stringify(body) }, signal);
  }

  private async request(method: string, path: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const fetchImpl = this.opts.fetch ?? globalThis.fetch;
    try {
      return await fetchImpl(url, { ...init, signal: AbortSignal.any([this.own.signal, ...(signal ? [signal] : [])]) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (this.closed) throw this.closedError(method);
      throw unavailableError(method, url, error);
    }
  }

  /** An SSE stream of an HTTP route: its messages with parsed JSON data; a non-stream answer is read as an envelope error. */
  private async *sse(method: string, path: string, body: unknown, signal: AbortSignal | undefined, onBytes?: () => void): AsyncGenerator<{ event: string; seq?: number; payload: unknown }> {
    const res = body === undefined ? await this.request(method, path, { headers: { ...this.headers(false), accept: "text/event-stream" } }, signal) : await this.post(method, path, body, signal, "text/event-stream");
    if (!isEventStream(res)) {
      const envelope = await readEnvelope(method, res);
      if (!envelope.ok) throw envelopeError(method, envelope.error, res.status);
      throw new GatewayRpcError({ method, code: "INVALID_GATEWAY_RESPONSE", status: res.status, message: `${method} answered JSON instead of an event stream; is ${this.baseUrl} a Flow gateway?` });
    }
    try {
      for await (const m of readSse(res.body!, onBytes)) {
        if (signal?.aborted) throw signal.reason;
        if (this.closed) throw this.closedError(method);
        let payload: unknown;
        try {
          payload = JSON.parse(m.data);
        } catch {
          throw new GatewayRpcError({ method, code: "INVALID_GATEWAY_RESPONSE", status: res.status, message: `${method} sent an event whose data is not JSON: ${m.data.slice(0, 120)}` });
        }
        if (m.event === "error") throw new GatewayRpcError({ method, code: "INTERNAL", status: res.status, message: (payload as { message?: string }).message ?? `${method} failed on the gateway.` });
        yield { event: m.event, ...(m.id !== undefined && /^\d+$/.test(m.id) ? { seq: Number(m.id) } : {}), payload };
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (this.closed) throw this.closedError(method);
      if (error instanceof FlowError) throw error;
      throw unavailableError(method, `${this.baseUrl}${path}`, error);
    }
    // Consumers return at the stream's `end` event; a body that just stops was dropped.
    throw unavailableError(method, `${this.baseUrl}${path}`, new Error("the event stream ended without its end event"));
  }

  private async *runEvents(params: RpcParams<"streamRunEvents">, signal: AbortSignal | undefined, onBytes?: () => void): AsyncGenerator<RunEventFrame> {
    this.assertOpen("streamRunEvents");
    if (this.isUnix) {
      yield* this.runEventsOverSocket(params, signal, onBytes);
      return;
    }
    for await (const m of this.sse("streamRunEvents", rpcPath("streamRunEvents"), params, signal, onBytes)) {
      if (m.event === "end") return;
      if (m.event === "run.event" && m.seq !== undefined) yield { type: "event", event: m.event, runId: params.runId, seq: m.seq, payload: m.payload as RunEventFrame["payload"] };
    }
  }

  private async *runEventsOverSocket(params: RpcParams<"streamRunEvents">, signal: AbortSignal | undefined, onBytes?: () => void): AsyncGenerator<RunEventFrame> {
    const conn = await this.connect({ subscribe: [{ runId: params.runId, afterSeq: params.afterSeq ?? 0 }], ...(signal ? { signal } : {}) });
    try {
      for await (const frame of conn.events(signal)) {
        onBytes?.();
        if (frame.event !== "run.event" || frame.runId !== params.runId) continue;
        yield frame;
        if (TERMINAL_EVENT_TYPES.has(frame.payload.type)) return;
      }
      if (signal?.aborted) throw signal.reason;
      if (this.closed) throw this.closedError("streamRunEvents");
      throw unavailableError("streamRunEvents", this.wsUrl, new Error("the socket closed"));
    } finally {
      conn.close();
    }
  }

  private unixConnection(signal: AbortSignal | undefined): Promise<GatewayConnection> {
    const current = this.unixSocket;
    if (current) return current.then((c) => (c.open ? c : ((this.unixSocket = undefined), this.unixConnection(signal))));
    const opening = this.connect(signal ? { signal } : {});
    this.unixSocket = opening;
    opening.catch(() => (this.unixSocket = undefined));
    return opening;
  }

  private async guard<T>(method: string, signal: AbortSignal | undefined, work: Promise<T>): Promise<T> {
    const abort = AbortSignal.any([this.own.signal, ...(signal ? [signal] : [])]);
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal?.aborted ? signal.reason : this.closedError(method));
      if (abort.aborted) return onAbort();
      abort.addEventListener("abort", onAbort, { once: true });
      work.then(resolve, reject).finally(() => abort.removeEventListener("abort", onAbort));
    });
  }

  private assertOpen(method: string): void {
    if (this.closed) throw this.closedError(method);
  }

  private closedError(method: string): GatewayRpcError {
    return new GatewayRpcError({ method, code: "GATEWAY_CLIENT_CLOSED", message: `The gateway client for ${this.baseUrl} is closed, so ${method} was not (or no longer) sent; make a new GatewayClient.` });
  }
}

// One typed method per unary RPC method, named after the registry (never a hand-kept list).
export interface GatewayClient<W extends GatewayWorkflows = GatewayWorkflows> extends GatewayRpcMethods<W> {}
for (const method of Object.keys(METHOD_SCOPES) as RpcMethodName[]) {
  if (method === "streamRunEvents" || method === "streamDevTools") continue;
  Object.defineProperty(GatewayClient.prototype, method, {
    value(this: GatewayClient, params?: unknown, options?: CallOptions) {
      return this.rpc(method, params ?? {}, options);
    },
    writable: true,
    configurable: true,
  });
}

/** Worth a reconnect: nothing answered, a proxy's 5xx while the gateway restarts, or the gateway shedding load. */
function retryable(error: unknown): boolean {
  if (isGatewayUnavailableError(error)) return true;
  if (!(error instanceof GatewayRpcError)) return false;
  return (error.code === "HTTP_ERROR" && error.status >= 500) || error.code === "GATEWAY_OVERLOADED" || error.code === "SUBSCRIBER_TOO_SLOW";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
