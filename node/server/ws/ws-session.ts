/**
 * @module node/server/ws/ws-session
 * One WebSocket connection of the Gateway: the `connect` handshake (protocol, token, client
 * identity, initial subscriptions), `req` frames answered by `res` frames, run subscriptions
 * and extension streams. Frame formats: node/server/ws/frames.ts and docs/hosting.md.
 *
 * A frame the gateway cannot take is answered with an `error` frame and the socket stays
 * open; a failed handshake (bad token, other protocol) closes it with code 1008.
 */
import type { WebSocket } from "ws";
import { checkScope, errorEnvelope } from "../../../core/api/index.js";
import type { Authenticate, CallerIdentity, GatewayHost } from "../../../core/api/index.js";
import { FlowError } from "../../../core/errors.js";
import { ExtensionRegistry } from "../extensions.js";
import { type ConnectFrame, isSubscription, parseClientFrame, type RequestFrame, type ServerFrame } from "./frames.js";
import { type FrameSink, RunStream } from "./run-stream.js";

/** What a session needs from its gateway. */
export interface WsSessionContext {
  host: GatewayHost;
  authenticate: Authenticate;
  /** Calls a built-in RPC method as `caller` (scope check included). */
  invoke(method: string, params: unknown, caller: CallerIdentity | null): Promise<unknown>;
  extensions: ExtensionRegistry;
  protocol: number;
  features: string[];
  heartbeatMs: number;
  eventWindowSize: number;
  maxSubscriberBufferBytes: number;
  /** Counts frames for /metrics. */
  onFrame?(direction: "in" | "out", kind: string): void;
  /** Counts subscriptions the gateway dropped (SUBSCRIBER_TOO_SLOW) for /metrics. */
  onSubscriptionDropped?(code: string): void;
}

/** The close code of a socket whose caller's role or scopes changed (docs/hosting.md). */
export const IDENTITY_CHANGED_CLOSE = 4001;

/** True when two identities grant the same: same user, role and scopes. */
function sameGrant(a: CallerIdentity | null, b: CallerIdentity | null): boolean {
  if (a === null || b === null) return a === b;
  return a.userId === b.userId && a.role === b.role && [...a.scopes].sort().join() === [...b.scopes].sort().join();
}

/** The methods a socket handles itself (besides extensions). */
const SUBSCRIBE = "streamRunEvents";
const UNSUBSCRIBE = "unsubscribeRunEvents";

export class WsSession implements FrameSink {
  identity: CallerIdentity | null = null;
  private connected = false;
  private readonly streams = new Map<string, RunStream>();
  private readonly extStreams = new Map<string | number, AbortController>();
  private alive = true;

  constructor(
    readonly id: string,
    private readonly ws: WebSocket,
    private readonly upgradeHeaders: Headers,
    private readonly ctx: WsSessionContext,
  ) {
    ws.on("message", (data, isBinary) => void this.onMessage(isBinary ? null : data.toString()));
    ws.on("pong", () => {
      this.alive = true;
    });
    ws.on("close", () => this.dispose());
  }

  /** Number of run subscriptions (for metrics). */
  get subscriptionCount(): number {
    return this.streams.size;
  }

  sendText(frame: string | Buffer): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    if (this.ws.bufferedAmount > this.ctx.maxSubscriberBufferBytes) return false;
    this.ws.send(frame, { binary: false });
    this.ctx.onFrame?.("out", "event");
    return true;
  }

  sendForced(text: string): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(text);
  }

  /** Heartbeat tick: terminates a peer that did not answer the last ping; else pings and sends `run.heartbeat` per subscription. */
  heartbeat(nowMs: number): void {
    if (!this.alive) {
      this.ws.terminate();
      return;
    }
    this.alive = false;
    this.ws.ping();
    for (const stream of this.streams.values()) stream.heartbeat(nowMs);
  }

  /** Drops the socket without a close handshake (a peer that does not answer). */
  terminate(): void {
    this.dispose();
    this.ws.terminate();
  }

  /** Closes the socket (gateway closing). */
  close(code: number, reason: string): void {
    this.dispose();
    this.ws.close(code, reason);
  }

  private send(frame: ServerFrame): void {
    this.sendForced(JSON.stringify(frame));
    this.ctx.onFrame?.("out", frame.type);
  }

  private async onMessage(text: string | null): Promise<void> {
    let frame;
    try {
      if (text === null) throw new FlowError("FRAME_INVALID", "Binary frames are not part of the protocol; send JSON text frames.");
      frame = parseClientFrame(text);
    } catch (error) {
      this.ctx.onFrame?.("in", "invalid");
      const id = (error as FlowError).details?.id as string | number | undefined;
      this.send({ type: "error", ...(id !== undefined ? { id } : {}), error: errorEnvelope(error).error });
      return;
    }
    this.ctx.onFrame?.("in", frame.type);
    if (frame.type === "connect") return this.onConnect(frame);
    if (!this.connected) {
      this.send({ type: "error", id: frame.id, error: errorEnvelope(new FlowError("FRAME_INVALID", "Send the connect frame first: {type: \"connect\", protocol, token?}.")).error });
      return;
    }
    await this.onRequest(frame);
  }

  private async onConnect(frame: ConnectFrame): Promise<void> {
    if (this.connected) {
      this.send({ type: "error", error: errorEnvelope(new FlowError("FRAME_INVALID", "This socket is connected already; connect is sent once.")).error });
      return;
    }
    try {
      if (frame.protocol !== this.ctx.protocol) {
        throw new FlowError("PROTOCOL_UNSUPPORTED", `This gateway speaks protocol ${this.ctx.protocol}, not ${frame.protocol}; use a client for protocol ${this.ctx.protocol}.`, { protocol: this.ctx.protocol });
      }
      if (frame.token !== undefined) this.upgradeHeaders.set("authorization", `Bearer ${frame.token}`);
      this.identity = await this.authenticate();
    } catch (error) {
      this.send({ type: "error", error: errorEnvelope(error).error });
      this.ws.close(1008, FlowError.from(error).code);
      return;
    }
    this.connected = true;
    this.send({ type: "connected", protocol: this.ctx.protocol, features: this.ctx.features, heartbeatMs: this.ctx.heartbeatMs, identity: this.identity, connectionId: this.id });
    for (const sub of frame.subscribe ?? []) {
      await this.subscribe(sub.runId, sub.afterSeq ?? 0).catch((error: unknown) => this.send({ type: "error", error: errorEnvelope(error).error }));
    }
  }

  /** The caller as the Gateway's auth sees it now (a team Gateway reads the member's current role). */
  private authenticate(): Promise<CallerIdentity | null> {
    return this.ctx.authenticate(new Request("http://gateway/", { headers: this.upgradeHeaders }));
  }

  /**
   * Re-reads the caller's identity (a role changed or a member was removed, docs/hosting.md
   * "WebSocket protocol"): a socket whose caller's role or scopes changed is closed with 4001
   * (`IDENTITY_CHANGED`), one that no longer authenticates with 1008 and the error's code;
   * the client reconnects and gets its current identity. Runs before every request, and on
   * every socket when a team's membership changes. True when the socket stays open.
   */
  async revalidate(): Promise<boolean> {
    if (!this.connected) return false;
    let next: CallerIdentity | null;
    try {
      next = await this.authenticate();
    } catch (error) {
      this.close(1008, FlowError.from(error).code);
      return false;
    }
    if (sameGrant(this.identity, next)) return true;
    this.close(IDENTITY_CHANGED_CLOSE, "IDENTITY_CHANGED");
    return false;
  }

  private async onRequest(frame: RequestFrame): Promise<void> {
    // Every request is checked against the caller's identity as it is now, not at connect.
    if (!(await this.revalidate())) return;
    try {
      const result = await this.dispatch(frame);
      this.send({ type: "res", id: frame.id, ok: true, result });
    } catch (error) {
      this.send({ type: "res", id: frame.id, ok: false, error: errorEnvelope(error).error });
    }
  }

  private async dispatch(frame: RequestFrame): Promise<unknown> {
    const params = frame.params ?? {};
    if (frame.method === SUBSCRIBE || frame.method === UNSUBSCRIBE) {
      if (!isSubscription(params)) throw new FlowError("INVALID_ARGUMENT", `${frame.method} takes {runId, afterSeq?} (afterSeq a non-negative integer).`, { method: frame.method });
      if (frame.method === UNSUBSCRIBE) {
        this.streams.get(params.runId)?.stop();
        this.streams.delete(params.runId);
        return { runId: params.runId };
      }
      return this.subscribe(params.runId, params.afterSeq ?? 0);
    }
    if (ExtensionRegistry.isExtensionMethod(frame.method)) {
      const controller = new AbortController();
      const ctx = { caller: this.identity, signal: controller.signal, host: this.ctx.host };
      if (!this.ctx.extensions.isStream(frame.method)) return this.ctx.extensions.call(frame.method, params, ctx);
      const iterable = this.ctx.extensions.stream(frame.method, params, ctx);
      this.extStreams.set(frame.id, controller);
      void this.pump(frame.id, iterable, controller);
      return { streamId: frame.id };
    }
    return this.ctx.invoke(frame.method, params, this.identity);
  }

  /** Every subscription, at connect or later, is checked the way the `streamRunEvents` RPC is. */
  private async subscribe(runId: string, afterSeq: number): Promise<{ runId: string; afterSeq: number; lastSeq: number }> {
    checkScope(this.identity, SUBSCRIBE);
    this.streams.get(runId)?.stop();
    const stream = new RunStream(runId, afterSeq, this, (s, code) => {
      if (this.streams.get(runId) === s) this.streams.delete(runId);
      this.ctx.onSubscriptionDropped?.(code);
    });
    this.streams.set(runId, stream);
    try {
      const { afterSeq: from, lastSeq } = await stream.start(this.ctx.host, this.ctx.eventWindowSize);
      return { runId, afterSeq: from, lastSeq };
    } catch (error) {
      stream.stop();
      if (this.streams.get(runId) === stream) this.streams.delete(runId);
      throw error;
    }
  }

  private async pump(streamId: string | number, iterable: AsyncIterable<unknown>, controller: AbortController): Promise<void> {
    try {
      for await (const payload of iterable) {
        if (controller.signal.aborted) return;
        this.send({ type: "event", event: "ext.data", streamId, payload });
      }
      this.send({ type: "event", event: "ext.end", streamId, payload: null });
    } catch (error) {
      this.send({ type: "event", event: "ext.error", streamId, payload: errorEnvelope(error).error });
    } finally {
      this.extStreams.delete(streamId);
    }
  }

  private dispose(): void {
    for (const stream of this.streams.values()) stream.stop();
    this.streams.clear();
    for (const controller of this.extStreams.values()) controller.abort();
    this.extStreams.clear();
  }
}
