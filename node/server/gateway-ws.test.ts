/**
 * The Gateway's WebSocket protocol with a real `ws` client: handshake, request/response,
 * run streams (order, afterSeq resume, replay window, backpressure), bad frames, the
 * connection limit (a raw HTTP upgrade gets 503) and extensions.
 */
import { connect as netConnect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import WebSocket from "ws";
import { FrameClient, rpc, startTestGateway, type TestGateway } from "./gateway-testing.js";

const runEvents = (c: FrameClient, runId: string) => c.frames.filter((f) => f.type === "event" && f.event === "run.event" && f.runId === runId);
const seqs = (c: FrameClient, runId: string) => runEvents(c, runId).map((f) => f.seq as number);
const isTerminal = (runId: string) => (f: any) => f.event === "run.event" && f.runId === runId && ["RunFinished", "RunFailed", "RunCancelled"].includes(f.payload.type);

/** Inserts a run with `n` events of ~`pad` bytes each, as another process would have written them. */
async function seedForeignRun(t: TestGateway, runId: string, n: number, pad: number): Promise<void> {
  const store = t.gateway.host.db.store;
  const now = Date.now();
  await store.execute(`INSERT INTO _flow_runs (run_id, workflow_name, status, owner_id, heartbeat_at_ms, created_at_ms, updated_at_ms) VALUES (?, 'elsewhere', 'finished', NULL, NULL, ?, ?)`, [runId, now, now]);
  await store.transaction(async (tx) => {
    for (let seq = 1; seq <= n; seq++) {
      await tx.execute(`INSERT INTO _flow_events (run_id, seq, type, timestamp_ms, payload_json) VALUES (?, ?, 'TaskFinished', ?, ?)`, [runId, seq, now, JSON.stringify({ nodeId: `n${seq}`, iteration: 0, attempt: 1, durationMs: 1, pad: "x".repeat(pad) })]);
    }
  });
}

describe("WebSocket protocol", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ maxPayload: 64 * 1024, eventWindowSize: 50, heartbeatMs: 300, maxSubscriberBufferBytes: 64 * 1024 });
    t.gateway.extend("repo", {
      rpc: { status: async (params) => ({ branch: "main", echo: params }) },
      streams: {
        count: async function* (params) {
          for (let i = 0; i < (params as { n: number }).n; i++) yield { i };
        },
      },
    });
  });
  afterAll(() => t.gateway.close());

  it("answers connect with protocol, features, heartbeat policy and identity, and refuses another protocol", async () => {
    const c = await FrameClient.open(t.wsUrl);
    expect(await c.connect({ client: { id: "cli", version: "0.1.0", platform: "linux" } })).toMatchObject({ type: "connected", protocol: 1, features: ["streaming", "runs"], heartbeatMs: 300, identity: null });
    const other = await FrameClient.open(t.wsUrl);
    expect(await other.connect({ protocol: 2 })).toMatchObject({ type: "error", error: { code: "PROTOCOL_UNSUPPORTED" } });
    expect(await other.closed()).toBe(1008);
  });

  it("answers malformed frames with an error frame, stores nothing, and keeps the socket open", async () => {
    const c = await FrameClient.open(t.wsUrl);
    c.send({ type: "req", id: 1, method: "launchRun", params: { workflow: "greet", input: {} } });
    expect(await c.waitFor((f) => f.type === "error" && f.id === 1)).toMatchObject({ error: { code: "FRAME_INVALID" } });
    await c.connect();
    c.send("{not json");
    c.send('{"type":"subscribe"}');
    c.send('{"type":"req","method":"listRuns"}');
    c.send("[1,2]");
    await c.waitFor(() => c.frames.filter((f) => f.type === "error").length >= 5);
    expect(c.frames.filter((f) => f.type === "error").map((f) => f.error.code)).toEqual(Array(5).fill("FRAME_INVALID"));
    expect((await c.request("noSuchMethod", {})).error.code).toBe("METHOD_NOT_FOUND");
    expect((await c.request("launchRun", { workflow: 42 })).error.code).toBe("INVALID_ARGUMENT");
    expect((await c.request("listRuns", {})).ok).toBe(true);
    expect(c.closeCode).toBeUndefined();
    const [row] = await t.gateway.host.db.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM _flow_runs WHERE workflow_name = 'greet'`);
    expect(Number(row!.n)).toBe(0);
  });

  it("refuses a frame over maxPayload by closing with 1009, and nothing of it is stored", async () => {
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    c.send({ type: "req", id: 1, method: "launchRun", params: { workflow: "greet", runId: "too-big", input: { name: "x".repeat(70 * 1024) } } });
    expect(await c.closed()).toBe(1009);
    expect(await t.gateway.host.db.getRun("too-big")).toBeUndefined();
  });

  it("streams a run's events in seq order, each once, from launch to finish", async () => {
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    const launched = await c.request("launchRun", { workflow: "slow", input: { steps: 4, stepMs: 5 } });
    const runId = launched.result.runId as string;
    expect((await c.request("streamRunEvents", { runId, afterSeq: 0 })).ok).toBe(true);
    await c.waitFor(isTerminal(runId));
    const got = seqs(c, runId);
    expect(got).toEqual(Array.from({ length: got.length }, (_, i) => i + 1));
    expect(runEvents(c, runId).at(-1).payload.type).toBe("RunFinished");
    const end = c.frames.findIndex(isTerminal(runId));
    const beat = await c.waitFor((f) => f.event === "run.heartbeat" && f.runId === runId && c.frames.indexOf(f) > end);
    expect(beat).toMatchObject({ seq: got.length, payload: { atMs: expect.any(Number) } });
  });

  it("resumes with afterSeq after a reconnect: every event exactly once, in order", async () => {
    const first = await FrameClient.open(t.wsUrl);
    await first.connect();
    const runId = (await first.request("launchRun", { workflow: "deploy", input: {} })).result.runId as string;
    await first.request("streamRunEvents", { runId });
    await first.waitFor((f) => f.event === "run.event" && f.runId === runId && f.payload.type === "RunWaiting");
    const seen = seqs(first, runId);
    first.ws.close();
    await first.closed();
    expect((await rpc(t.url, "submitSignal", { name: "go", runId, payload: { sha: "abc123" } })).status).toBe(200);
    const second = await FrameClient.open(t.wsUrl);
    await second.connect({ subscribe: [{ runId, afterSeq: seen.at(-1) }] });
    await second.waitFor(isTerminal(runId));
    const all = [...seen, ...seqs(second, runId)];
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(runEvents(second, runId).map((f) => f.payload.type)).toContain("SignalReceived");
  });

  it("sends run.gap_resync and the newest eventWindowSize events when a resume is older than the window", async () => {
    await seedForeignRun(t, "long-run", 120, 10);
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    const res = await c.request("streamRunEvents", { runId: "long-run", afterSeq: 5 });
    expect(res.result).toEqual({ runId: "long-run", afterSeq: 70, lastSeq: 120 });
    await c.waitFor((f) => f.event === "run.event" && f.seq === 120);
    const gap = c.frames.find((f) => f.event === "run.gap_resync");
    expect(gap).toMatchObject({ runId: "long-run", seq: 70, payload: { requestedAfterSeq: 5, resumedAfterSeq: 70, lastSeq: 120, windowSize: 50 } });
    expect(c.frames.indexOf(gap)).toBeLessThan(c.frames.findIndex((f) => f.event === "run.event"));
    expect(seqs(c, "long-run")).toEqual(Array.from({ length: 50 }, (_, i) => 71 + i));
    expect((await c.request("streamRunEvents", { runId: "no-such-run" })).error.code).toBe("RUN_NOT_FOUND");
  });

  it("drops a subscriber that stops reading with run.error instead of buffering without bound", async () => {
    // A Gateway of its own, with the default heartbeat: a paused client answers no ping, and the
    // shared one's 300 ms heartbeat could terminate it (1006) before the drop is seen on a busy machine.
    const t = await startTestGateway({ maxPayload: 64 * 1024, eventWindowSize: 50, maxSubscriberBufferBytes: 64 * 1024 });
    onTestFinished(() => t.gateway.close());
    await seedForeignRun(t, "firehose", 50, 200_000);
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    c.ws.pause();
    c.send({ type: "req", id: "sub", method: "streamRunEvents", params: { runId: "firehose", afterSeq: 0 } });
    const dropped = async () => (await t.gateway.metrics.droppedSubscriptions.get()).values.reduce((n, v) => n + v.value, 0);
    while ((await dropped()) === 0) await new Promise((r) => setTimeout(r, 10));
    c.ws.resume();
    const error = await c.waitFor((f) => f.event === "run.error");
    expect(error).toMatchObject({ runId: "firehose", payload: { code: "SUBSCRIBER_TOO_SLOW" } });
    const delivered = seqs(c, "firehose");
    expect(delivered.length).toBeLessThan(50);
    expect(delivered).toEqual(Array.from({ length: delivered.length }, (_, i) => i + 1));
    expect(error.seq).toBe(delivered.at(-1) ?? 0);
    await c.waitFor((f) => f.type === "res" && f.id === "sub");
    expect(c.frames.slice(c.frames.indexOf(error) + 1).filter((f) => f.event === "run.event")).toEqual([]);
  });

  it("calls extension methods and streams over WebSocket and HTTP", async () => {
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    expect((await c.request("ext.repo.status", { q: 1 })).result).toEqual({ branch: "main", echo: { q: 1 } });
    const stream = await c.request("ext.repo.count", { n: 3 });
    await c.waitFor((f) => f.event === "ext.end" && f.streamId === stream.result.streamId);
    expect(c.frames.filter((f) => f.event === "ext.data").map((f) => f.payload)).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
    expect((await c.request("ext.repo.nope", {})).error.code).toBe("METHOD_NOT_FOUND");
    expect((await rpc(t.url, "ext.repo.status", { q: 2 })).body).toEqual({ ok: true, result: { branch: "main", echo: { q: 2 } } });
    const sse = await (await fetch(`${t.url}/v1/ext/repo/count/stream?params=${encodeURIComponent('{"n":2}')}`)).text();
    expect(sse.match(/^event: data$/gm)?.length).toBe(2);
    expect(sse).toMatch(/^event: end$/m);
  });
});

describe("connection limit", () => {
  it("answers the 1001st concurrent upgrade with HTTP 503 under the default maxConnections", async () => {
    const t = await startTestGateway();
    const sockets = await Promise.all(
      Array.from({ length: 1000 }, () => new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(t.wsUrl);
        ws.once("open", () => resolve(ws));
        ws.once("error", reject);
      })),
    );
    const head = await new Promise<string>((resolve, reject) => {
      const { port } = new URL(t.url);
      const s = netConnect(Number(port), "127.0.0.1", () => {
        s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      });
      let data = "";
      s.on("data", (d) => (data += d.toString()));
      s.on("end", () => resolve(data));
      s.on("error", reject);
    });
    expect(head.split("\r\n")[0]).toBe("HTTP/1.1 503 Service Unavailable");
    expect(JSON.parse(head.slice(head.indexOf("\r\n\r\n") + 4)).error.code).toBe("GATEWAY_OVERLOADED");
    sockets[0]!.close();
    await new Promise((r) => sockets[0]!.once("close", r));
    const again = await FrameClient.open(t.wsUrl);
    expect((await again.connect()).type).toBe("connected");
    for (const ws of sockets) ws.terminate();
  });
});
