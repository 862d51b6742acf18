/**
 * @module node/server/gateway-testing
 * Helpers of the Gateway tests (test-only; not exported): a gateway over the fixture
 * workflows on a fresh SQLite file, listening on a free loopback port and closed after the
 * test, and a WebSocket client that collects frames and waits for the one it needs.
 */
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";
import { rpcPath } from "../../core/api/internal.js";
import WebSocket from "ws";
import { tempDir } from "../testing/index.js";
import { type GatewayFixture, gatewayWorkflows } from "./fixtures/gateway-workflows.js";
import { Gateway } from "./gateway.js";
import type { GatewayOptions, GatewayRegisterOptions } from "./gateway-options.js";

export interface TestGateway {
  gateway: Gateway;
  url: string;
  wsUrl: string;
  dbPath: string;
  workflows: GatewayFixture;
}

/** A listening gateway with `greet`, `deploy` and `slow` registered (options per key). */
export async function startTestGateway(options: GatewayOptions = {}, register: Partial<Record<keyof GatewayFixture, GatewayRegisterOptions>> = {}, dbPath = join(tempDir("flow-gw-"), "flow.db")): Promise<TestGateway> {
  const workflows = gatewayWorkflows(dbPath);
  // Runs get the temp dir as rootDir, so nothing touches the working tree (or its git).
  const gateway = new Gateway({ workspaceRoot: dirname(dbPath), ...options });
  for (const key of ["greet", "deploy", "slow"] as const) gateway.register(key, workflows[key], register[key]);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  try {
    onTestFinished(() => gateway.close());
  } catch {
    // Outside a test (beforeAll): the caller closes it.
  }
  const { port } = server.address() as AddressInfo;
  return { gateway, url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/`, dbPath, workflows };
}

/** Polls `read` until `ok` holds (what a store or another process changes has no event here). */
export async function until<T>(read: () => T | Promise<T>, ok: (v: T) => boolean, what: string, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** POST /v1/rpc/<method> with a JSON body; resolves to status and parsed envelope. */
export async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}${rpcPath(method)}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(params) });
  return { status: res.status, body: await res.json() };
}

/** A WebSocket client that keeps every frame it receives. */
export class FrameClient {
  readonly frames: any[] = [];
  private waiters: Array<() => void> = [];
  closeCode: number | undefined;
  private nextId = 1;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data) => {
      this.frames.push(JSON.parse(data.toString()));
      this.wake();
    });
    ws.on("close", (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  static async open(url: string, headers: Record<string, string> = {}): Promise<FrameClient> {
    const ws = new WebSocket(url, { headers });
    onTestFinished(() => ws.terminate());
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new FrameClient(ws);
  }

  send(frame: unknown): void {
    this.ws.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  /** Sends `connect` and waits for `connected` (or an error frame). */
  async connect(extra: Record<string, unknown> = {}): Promise<any> {
    this.send({ type: "connect", protocol: 1, ...extra });
    return this.waitFor((f) => f.type === "connected" || f.type === "error");
  }

  /** Sends a `req` frame and waits for its `res`. */
  async request(method: string, params?: unknown): Promise<any> {
    const id = this.nextId++;
    this.send({ type: "req", id, method, params });
    return this.waitFor((f) => f.type === "res" && f.id === id);
  }

  /** The first frame (from the start) matching `pred`, waiting up to `ms`. */
  async waitFor(pred: (frame: any) => boolean, ms = 10_000): Promise<any> {
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.frames.find(pred);
      if (found) return found;
      if (this.closeCode !== undefined) throw new Error(`socket closed (${this.closeCode}) before the frame came; frames: ${this.summary()}`);
      if (Date.now() > deadline) throw new Error(`no such frame within ${ms} ms; frames: ${this.summary()}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits for the socket to close; resolves with the close code. */
  async closed(ms = 10_000): Promise<number> {
    const deadline = Date.now() + ms;
    while (this.closeCode === undefined) {
      if (Date.now() > deadline) throw new Error("socket did not close");
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.closeCode;
  }

  /** The frames received, one short line each (for failure messages). */
  summary(): string {
    return this.frames.map((f) => `${f.type}${f.event ? `:${f.event}` : ""}${f.seq !== undefined ? `#${f.seq}` : ""}${f.error ? `(${f.error.code})` : ""}`).join(" ");
  }

  private wake(): void {
    const waiters = this.waiters.splice(0);
    for (const w of waiters) w();
  }
}
