/**
 * `GatewayClient` against a real Gateway over loopback (fetch and `ws`, nothing mocked): every
 * typed method, run event streams resumed with afterSeq, WebSocket connections, auth errors
 * with requiredScope, what counts as "unavailable", and close()'s ownership rules.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { GatewayClient, GatewayRpcError, isGatewayUnavailableError } from "durable-flow/gateway-client";
import { dirname, join } from "node:path";
import { tempDir } from "../testing/backends.js";
import { gatewayWorkflows } from "../server/fixtures/gateway-workflows.js";
import { Gateway } from "../server/gateway.js";
import { startTestGateway, type TestGateway } from "../server/gateway-testing.js";
import { collect, until } from "./testing.js";

const WS = WebSocket as never;
const types = (frames: Array<{ payload: unknown }>) => frames.map((f) => (f.payload as { type: string }).type);

async function rejection(p: Promise<unknown>): Promise<GatewayRpcError> {
  const error = await p.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayRpcError);
  return error as GatewayRpcError;
}

/** A plain HTTP server answering every request with `status` and an HTML page (a dev server, a proxy error page). */
async function htmlServer(status: number): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => res.writeHead(status, { "content-type": "text/html" }).end("<!doctype html><title>app</title>"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("GatewayClient", () => {
  let t: TestGateway;
  let client: GatewayClient;
  beforeAll(async () => {
    t = await startTestGateway({ heartbeatMs: 1000 });
    client = new GatewayClient({ baseUrl: `${t.url}/`, WebSocket: WS, client: { id: "test", version: "1" } });
  });
  afterAll(async () => {
    client.close();
    await t.gateway.close();
  });

  it("strips the trailing slash and defaults to http://127.0.0.1:7331 outside a browser", () => {
    expect(client.baseUrl).toBe(t.url);
    expect(new GatewayClient().baseUrl).toBe("http://127.0.0.1:7331");
  });

  it("calls every RPC method through its typed method", async () => {
    const { runId, workflow } = await client.launchRun({ workflow: "greet", input: { name: "ada" }, options: { startedBy: { harness: "test" } } });
    expect(workflow).toBe("greet");
    const events = await collect(client.streamRunEvents({ runId }));
    expect(types(events).at(-1)).toBe("RunFinished");

    const run = await client.getRun({ runId });
    expect(run).toMatchObject({ runId, status: "finished", workflowKey: "greet", startedBy: { harness: "test" } });
    expect(run.nodes.map((n) => n.nodeId)).toEqual(["hello"]);
    expect((await client.listRuns({ limit: 5 })).runs.map((r) => r.runId)).toContain(runId);
    expect((await client.listWorkflows()).map((w) => w.key)).toEqual(["greet", "deploy", "slow"]);
    expect(await client.getNodeOutput({ runId, nodeId: "hello" })).toMatchObject({ row: { text: "hello ada" } });
    expect((await client.whatHappened({ runId })).status).toBe("finished");
    expect(Array.isArray(await client.listPrompts({ runId }))).toBe(true);

    // a run that waits for a signal: listed, signalled (launch defaults input), cancelled
    const waiting = await client.launchRun({ workflow: "deploy", input: { ref: "pr-7" } });
    await until(() => client.getRun({ runId: waiting.runId }), (r) => r.status === "waiting-event", "the run to wait");
    expect(await client.listApprovals({ runId: waiting.runId })).toEqual([]);
    expect(await client.submitSignal({ name: "go", correlationId: "pr-7", payload: { sha: "abc" }, deliveryId: "d1" })).toMatchObject({ status: "accepted" });
    await until(() => client.getRun({ runId: waiting.runId }), (r) => r.status === "finished", "the run to finish");
    const parked = await client.launchRun({ workflow: "deploy" });
    await until(() => client.getRun({ runId: parked.runId }), (r) => r.status === "waiting-event", "the run to wait");
    expect(await client.cancelRun({ runId: parked.runId })).toEqual({ runId: parked.runId, status: "cancelled" });
    expect((await client.resumeRun({ runId })).runId).toBe(runId);

    expect((await rejection(client.pauseRun({ runId: parked.runId }))).code).toBe("INVALID_TRANSITION");
    expect(await rejection(client.submitApproval({ runId, nodeId: "hello", decision: "approve" }))).toMatchObject({ method: "submitApproval", status: 404 });
    // A task that ran no CLI agent has no session a person could take over.
    expect(await rejection(client.hijackRun({ runId, nodeId: "hello" }))).toMatchObject({ code: "HIJACK_UNSUPPORTED", status: 422, method: "hijackRun" });
    // diffs need the run's workspace snapshots, which these tests turn off
    expect(await rejection(client.getNodeDiff({ runId, nodeId: "hello" }))).toMatchObject({ code: "VCS_FAILED", method: "getNodeDiff" });
    expect(await rejection(client.getRunDiff({ runId }))).toMatchObject({ code: "VCS_FAILED", method: "getRunDiff" });
    const rewound = await client.rewindRun({ runId, nodeId: "hello", restoreVcs: false, resume: false });
    expect(rewound).toMatchObject({ runId, success: true, resetNodes: ["hello"] });

    const cron = await client.cronCreate({ cronId: "c1", workflow: "greet", schedule: "0 0 1 1 *" });
    expect(cron).toMatchObject({ cronId: "c1", enabled: true, input: {} });
    expect((await client.cronList()).map((c) => c.cronId)).toContain("c1");
    expect((await client.cronRun({ cronId: "c1" })).cronId).toBe("c1");
    expect(await client.cronDelete({ cronId: "c1" })).toEqual({ cronId: "c1", deleted: true });
    expect(await rejection(client.cronDelete({ cronId: "c1" }))).toMatchObject({ code: "CRON_NOT_FOUND", status: 404 });
  });

  it("resumes a run's event stream after afterSeq, each seq once and in order", async () => {
    const { runId } = await client.launchRun({ workflow: "slow", input: { steps: 3, stepMs: 5 } });
    const all = await collect(client.streamRunEvents({ runId }));
    const seqs = all.map((f) => f.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    const tail = await collect(client.streamRunEvents({ runId, afterSeq: 4 }));
    expect(tail.map((f) => f.seq)).toEqual(seqs.slice(4));
    expect(tail.map((f) => f.payload)).toEqual(all.slice(4).map((f) => f.payload));
    expect(await collect(client.streamRunEvents({ runId, afterSeq: seqs.at(-1) }))).toEqual([]);
    expect((await rejection(collect(client.streamRunEvents({ runId: "nope" })))).code).toBe("RUN_NOT_FOUND");
    expect((await rejection(collect(client.streamRunEventsResilient({ runId: "nope" })))).code).toBe("RUN_NOT_FOUND");

    // the resilient stream resumes after afterSeq too, and just ends when the caller aborts
    const long = await client.launchRun({ workflow: "slow", input: { steps: 20, stepMs: 100 } });
    const ac = new AbortController();
    const seen: number[] = [];
    for await (const f of client.streamRunEventsResilient({ runId: long.runId, afterSeq: 1 }, { signal: ac.signal })) {
      seen.push(f.seq);
      if (seen.length === 2) ac.abort();
    }
    expect(seen).toEqual([2, 3]);
    await client.cancelRun({ runId: long.runId });
  });

  it("answers rpcRaw with the envelope and rpc with the result; an unknown method is METHOD_NOT_FOUND", async () => {
    expect(await client.rpcRaw("getRun", { runId: "nope" })).toMatchObject({ ok: false, error: { code: "RUN_NOT_FOUND" } });
    expect((await client.rpcRaw("listWorkflows")).ok).toBe(true);
    expect(await rejection(client.rpc("noSuchMethod", {}))).toMatchObject({ code: "METHOD_NOT_FOUND", status: 404, method: "noSuchMethod" });
  });

  it("talks to extensions over RPC and SSE", async () => {
    t.gateway.extend("repo", {
      rpc: { status: async (params) => ({ branch: "main", echo: params }) },
      streams: { ticks: async function* (params) { for (let i = 0; i < (params as { n: number }).n; i++) yield { i }; } },
    });
    expect(await client.extensionRpc("repo", "status", { x: 1 })).toEqual({ branch: "main", echo: { x: 1 } });
    expect(await collect(client.streamExtension("repo", "ticks", { n: 3 }))).toEqual([{ i: 0 }, { i: 1 }, { i: 2 }]);
  });

  it("streams devtools frames: the current graph snapshot first", async () => {
    const { runId } = await client.launchRun({ workflow: "greet" });
    await collect(client.streamRunEvents({ runId }));
    const ac = new AbortController();
    const frames = client.streamDevTools({ runId }, { signal: ac.signal });
    const first = await frames.next();
    expect(first.value).toMatchObject({ event: "devtools.frame", runId, payload: { runId, tasks: [expect.objectContaining({ nodeId: "hello" })] } });
    ac.abort();
    await frames.return(undefined);
  });

  it("connects over WebSocket: requests, raw envelopes, subscribed events in order; close rejects what is pending", async () => {
    const { runId } = await client.launchRun({ workflow: "slow", input: { steps: 2, stepMs: 5 } });
    const conn = await client.connect({ subscribe: [{ runId, afterSeq: 0 }] });
    expect(conn.handshake).toMatchObject({ protocol: 1, heartbeatMs: 1000, identity: null });
    expect(((await conn.request("getRun", { runId })) as { runId: string }).runId).toBe(runId);
    expect(await conn.requestRaw("getRun", { runId: "nope" })).toMatchObject({ ok: false, error: { code: "RUN_NOT_FOUND" } });
    const seen: number[] = [];
    for await (const f of conn.events()) {
      if (f.event !== "run.event") continue;
      seen.push(f.seq!);
      if ((f.payload as { type: string }).type === "RunFinished") break;
    }
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    const pending = conn.request("listRuns", {});
    conn.close();
    expect((await rejection(pending)).code).toMatch(/GATEWAY_CLIENT_CLOSED|GATEWAY_UNAVAILABLE/);
    expect((await rejection(conn.request("listRuns", {}))).code).toBe("GATEWAY_CLIENT_CLOSED");
  });

  it("carries the gateway's code, HTTP status and requiredScope; the token goes in the WebSocket handshake too", async () => {
    const secured = await startTestGateway({ auth: { mode: "token", tokens: { reader: { role: "viewer", scopes: ["run:read"], userId: "rita" } } } });
    const reader = new GatewayClient({ baseUrl: secured.url, token: "reader", WebSocket: WS });
    expect(await reader.listWorkflows()).toHaveLength(3);
    expect(await rejection(reader.launchRun({ workflow: "greet" }))).toMatchObject({ code: "FORBIDDEN", status: 403, requiredScope: "run:write", method: "launchRun" });
    const conn = await reader.connect();
    expect(conn.handshake.identity).toMatchObject({ userId: "rita" });
    expect(await rejection(conn.request("cronCreate", { workflow: "greet", schedule: "* * * * *" }))).toMatchObject({ code: "FORBIDDEN", requiredScope: "cron:write" });
    const stranger = new GatewayClient({ baseUrl: secured.url, token: "nobody", WebSocket: WS });
    expect(await rejection(stranger.listRuns())).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    expect((await rejection(stranger.connect())).code).toBe("UNAUTHORIZED");
    for (const c of [reader, stranger]) c.close();
  });

  it("talks to a gateway on a Unix socket (ws+unix:) over one WebSocket: RPC calls and run streams", async () => {
    const dbPath = join(tempDir("flow-client-unix-"), "flow.db");
    const workflows = gatewayWorkflows(dbPath);
    const gateway = new Gateway({ workspaceRoot: dirname(dbPath) }).register("greet", workflows.greet);
    const socketPath = join(dirname(dbPath), "gw.sock");
    await gateway.listen({ path: socketPath });
    const unix = new GatewayClient({ baseUrl: `ws+unix:${socketPath}`, WebSocket: WS });
    try {
      expect((await unix.listWorkflows()).map((w) => w.key)).toEqual(["greet"]);
      const { runId } = await unix.launchRun({ workflow: "greet", input: { name: "unix" } });
      const frames = await collect(unix.streamRunEvents({ runId }));
      expect(frames.map((f) => f.seq)).toEqual(Array.from({ length: frames.length }, (_, i) => i + 1));
      expect((frames.at(-1)!.payload as { type: string }).type).toBe("RunFinished");
      expect(await rejection(unix.getRun({ runId: "nope" }))).toMatchObject({ code: "RUN_NOT_FOUND", method: "getRun" });
    } finally {
      unix.close();
      await gateway.close();
    }
  });

  it("calls an answer unavailable only when nothing speaking the protocol answered", async () => {
    const dead = await htmlServer(200);
    const refused = dead.url;
    await new Promise((r) => dead.server.close(r));
    const nobody = await rejection(new GatewayClient({ baseUrl: refused }).listRuns());
    expect(nobody.code).toBe("GATEWAY_UNAVAILABLE");
    expect(isGatewayUnavailableError(nobody)).toBe(true);

    const page = await htmlServer(200);
    const html = await rejection(new GatewayClient({ baseUrl: page.url }).listRuns());
    expect(html).toMatchObject({ code: "INVALID_GATEWAY_RESPONSE", status: 200 });
    expect(isGatewayUnavailableError(html)).toBe(true);
    page.server.close();

    const proxy = await htmlServer(502);
    const bad = await rejection(new GatewayClient({ baseUrl: proxy.url }).listRuns());
    expect(bad).toMatchObject({ code: "HTTP_ERROR", status: 502 });
    expect(isGatewayUnavailableError(bad)).toBe(false);
    proxy.server.close();

    expect(isGatewayUnavailableError(await rejection(client.getRun({ runId: "nope" })))).toBe(false);
  });

  it("close() aborts its own streams and calls, leaves the caller's signal alone, and refuses later calls", async () => {
    const mine = new GatewayClient({ baseUrl: t.url, WebSocket: WS });
    const { runId } = await mine.launchRun({ workflow: "slow", input: { steps: 50, stepMs: 200 } });
    const caller = new AbortController();
    const stream = mine.streamRunEvents({ runId }, { signal: caller.signal });
    expect((await stream.next()).value?.seq).toBe(1);
    const conn = await mine.connect();
    const pending = stream.next();
    mine.close();
    mine.close();
    expect(mine.closed).toBe(true);
    expect((await rejection(pending)).code).toBe("GATEWAY_CLIENT_CLOSED");
    expect(caller.signal.aborted).toBe(false);
    expect(conn.open).toBe(false);
    expect((await rejection(mine.listRuns())).code).toBe("GATEWAY_CLIENT_CLOSED");
    expect((await rejection(mine.streamRunEvents({ runId }).next())).code).toBe("GATEWAY_CLIENT_CLOSED");
    await client.cancelRun({ runId });
  });
});
