/**
 * @module node/server/ws/ws-endpoint
 * WebSocket upgrades of the Gateway (`ws`, noServer mode) on its root path `/`. The limits:
 * an upgrade beyond `maxConnections` (counted before the handshake is accepted, pending ones
 * included) or during close is answered with a plain HTTP 503; a browser `Origin` outside
 * `allowedOrigins` with 403; frames over `maxPayload` close the socket with 1009. One timer
 * drives the heartbeat of every socket. See docs/hosting.md "WebSocket protocol".
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import { errorEnvelope } from "../../../core/api/index.js";
import { FlowError, httpStatusOf } from "../../../core/errors.js";
import { lazyPackage } from "../../../core/util/index.js";
import { assertOriginAllowed } from "../auth/origin.js";
import { WsSession, type WsSessionContext } from "./ws-session.js";

/** ws, loaded when a Gateway is made (docs/package.md "What loads when"). */
const ws = lazyPackage<typeof import("ws")>(import.meta, "ws", () => import("ws"));

export interface WsEndpointOptions extends WsSessionContext {
  maxConnections: number;
  maxPayload: number;
  allowedOrigins: string[] | undefined;
  /** Paths upgrades are accepted on (default `/`). */
  paths?: string[];
}

/** The Gateway's WebSocket endpoint. */
export class WsEndpoint {
  private readonly wss: WebSocketServer;
  private readonly sessions = new Set<WsSession>();
  /** Upgrades accepted or in their handshake: what `maxConnections` limits. */
  private connections = 0;
  private closing = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private nextId = 1;
  /** Resolves `close()` once the last connection is gone. */
  private drained: (() => void) | undefined;

  constructor(private readonly opts: WsEndpointOptions) {
    this.wss = new (ws().WebSocketServer)({ noServer: true, maxPayload: opts.maxPayload, clientTracking: false });
  }

  get connectionCount(): number {
    return this.connections;
  }

  get subscriptionCount(): number {
    let n = 0;
    for (const s of this.sessions) n += s.subscriptionCount;
    return n;
  }

  /** True when this endpoint takes upgrades for the request's path. */
  accepts(req: IncomingMessage): boolean {
    const path = (req.url ?? "/").split("?")[0]!;
    return (this.opts.paths ?? ["/"]).includes(path);
  }

  /** Re-reads every connected caller's identity (a team's membership changed): see WsSession.revalidate. */
  async revalidate(): Promise<void> {
    await Promise.all([...this.sessions].map((s) => s.revalidate()));
  }

  start(): void {
    this.timer ??= setInterval(() => {
      const now = this.opts.host.now();
      for (const session of this.sessions) session.heartbeat(now);
    }, this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** The `upgrade` listener of the HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    try {
      if (this.closing) throw new FlowError("GATEWAY_OVERLOADED", "The gateway is closing; connect to another one or retry shortly.");
      if (this.connections >= this.opts.maxConnections) {
        throw new FlowError("GATEWAY_OVERLOADED", `The gateway holds its maximum of ${this.opts.maxConnections} WebSocket connections (maxConnections); retry later.`, { maxConnections: this.opts.maxConnections });
      }
      assertOriginAllowed(this.opts.allowedOrigins, req.headers.origin);
    } catch (error) {
      refuse(socket, error);
      return;
    }
    this.connections++;
    let counted = true;
    const release = () => {
      if (counted) this.connections--;
      counted = false;
      if (this.connections === 0) this.drained?.();
    };
    socket.once("close", release);
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const session = new WsSession(`ws-${this.nextId++}`, ws, headers, this.opts);
      this.sessions.add(session);
      ws.on("close", () => {
        this.sessions.delete(session);
        release();
      });
      // ws closes the socket itself after a protocol error (1009 for a frame over maxPayload).
      ws.on("error", () => {});
    });
  }

  /**
   * Refuses new upgrades, closes every socket (1001) and waits for them to go; sockets whose
   * peer does not answer the close within 2 s are terminated.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.timer) clearInterval(this.timer);
    const drained = new Promise<void>((resolve) => {
      this.drained = resolve;
      if (this.connections === 0) resolve();
    });
    for (const s of [...this.sessions]) s.close(1001, "gateway closing");
    const late = setTimeout(() => {
      for (const s of this.sessions) s.terminate();
    }, 2000);
    await drained;
    clearTimeout(late);
    this.wss.close();
  }
}

/** Answers an upgrade with a plain HTTP error response carrying the error envelope. */
function refuse(socket: Duplex, error: unknown): void {
  const envelope = errorEnvelope(error);
  const status = httpStatusOf(envelope.error.code);
  const body = JSON.stringify(envelope);
  const reason = status === 503 ? "Service Unavailable" : status === 403 ? "Forbidden" : "Error";
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}
