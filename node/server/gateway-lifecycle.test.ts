/**
 * The Gateway's lifecycle: SPEC defaults, listen on a Unix socket with the timeouts applied,
 * /metrics, pick-up of parked runs that can continue on start, and close() aborting the runs
 * it executes and closing its sockets.
 */
import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { FlowDb, submitSignal } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { gatewayWorkflows } from "./fixtures/gateway-workflows.js";
import { Gateway } from "./gateway.js";
import { cronPollMs } from "./gateway-options.js";
import { FrameClient, rpc, startTestGateway, until } from "./gateway-testing.js";

/** A gateway that launched two runs (each parks on its signal) and then closed. */
async function twoParkedRunsOfAClosedGateway() {
  const first = await startTestGateway();
  const ids: string[] = [];
  for (let i = 0; i < 2; i++) {
    const runId = (await rpc(first.url, "launchRun", { workflow: "deploy", input: {} })).body.result.runId as string;
    await first.gateway.host.activeRun(runId)?.done;
    ids.push(runId);
  }
  await first.gateway.close();
  return { first, ids };
}

describe("Gateway", () => {
  it("has SPEC.md's defaults and clamps the cron poll to 1-15 s", () => {
    const { options } = new Gateway();
    expect(options).toMatchObject({
      protocol: 1,
      features: ["streaming", "runs"],
      heartbeatMs: 15000,
      maxBodyBytes: 1048576,
      maxPayload: 1048576,
      maxConnections: 1000,
      eventWindowSize: 10000,
      outOfProcessEventBridge: true,
      outOfProcessEventBridgePollMs: 1000,
      headersTimeout: 30000,
      requestTimeout: 60000,
      operatorUi: { path: "/console" },
      workspaceRoot: process.cwd(),
    });
    expect(new Gateway({ defaults: { outOfProcessEventBridge: false, outOfProcessEventBridgePollMs: 250 } }).options).toMatchObject({ outOfProcessEventBridge: false, outOfProcessEventBridgePollMs: 250 });
    expect([cronPollMs(200), cronPollMs(5000), cronPollMs(60_000)]).toEqual([1000, 5000, 15000]);
    expect(() => new Gateway({ maxConnections: 0 })).toThrow(/maxConnections must be a positive number/);
  });

  it("listens on a Unix socket with its timeouts, for HTTP and WebSocket alike", async () => {
    const dir = tempDir("flow-gw-sock-");
    const path = join(dir, "gw.sock");
    const gateway = new Gateway({ workspaceRoot: dir, headersTimeout: 12_000, requestTimeout: 34_000 }).register("greet", gatewayWorkflows(join(dir, "flow.db")).greet);
    const server = await gateway.listen({ path, port: 9 });
    try {
      expect(server.address()).toBe(path);
      expect([server.headersTimeout, server.requestTimeout]).toEqual([12_000, 34_000]);
      const health = await new Promise<string>((resolve, reject) => {
        request({ socketPath: path, path: "/health" }, (res) => {
          let body = "";
          res.on("data", (d) => (body += d));
          res.on("end", () => resolve(body));
        })
          .on("error", reject)
          .end();
      });
      expect(JSON.parse(health)).toMatchObject({ ok: true, protocol: 1 });
      const ws = await FrameClient.open(`ws+unix:${path}:/`);
      expect((await ws.connect()).type).toBe("connected");
    } finally {
      await gateway.close();
    }
  });

  it("serves /metrics with the gateway's counters, behind the gateway's auth", async () => {
    const t = await startTestGateway({ auth: { mode: "token", tokens: { ops: { role: "operator", scopes: ["*"] } } } });
    const ws = await FrameClient.open(t.wsUrl);
    await ws.connect({ token: "ops" });
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer ops" } })).text();
    expect(text).toMatch(/^flow_gateway_ws_connections 1$/m);
    expect(text).toMatch(/^flow_gateway_ws_frames_total\{direction="in",kind="connect"\} 1$/m);
    expect(text).toMatch(/^flow_http_requests_total\{method="GET",status="401"\} 1$/m);
  });

  it("resumes on start a parked run whose signal was delivered while no gateway ran", async () => {
    const first = await startTestGateway();
    const runId = (await rpc(first.url, "launchRun", { workflow: "deploy", input: {} })).body.result.runId as string;
    await first.gateway.host.activeRun(runId)?.done;
    await first.gateway.close();
    await submitSignal(first.workflows.deploy, { name: "go", runId, payload: { sha: "while-down" } });
    const second = await startTestGateway({}, {}, first.dbPath);
    await second.gateway.host.activeRun(runId)?.done;
    expect((await second.gateway.host.db.requireRun(runId)).status).toBe("finished");
  });

  it("takes over on start a run left running by another host's process whose claim heartbeat is stale, and leaves a fresh one alone", async () => {
    const { first, ids } = await twoParkedRunsOfAClosedGateway();
    const [stale, fresh] = ids as [string, string];
    const store = first.gateway.host.db.store;
    // What a process on another machine leaves when it dies mid-run (stale), or while it still runs (fresh).
    await store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = 'other-host:4242:dead', heartbeat_at_ms = ? WHERE run_id = ?`, [Date.now() - 120_000, stale]);
    await store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = 'other-host:4343:live', heartbeat_at_ms = ? WHERE run_id = ?`, [Date.now(), fresh]);
    const second = await startTestGateway({}, {}, first.dbPath);
    await second.gateway.host.activeRun(stale)?.done;
    const resumed = (await second.gateway.host.db.listEvents(stale)).find((e) => e.type === "RunResumed");
    expect(resumed).toMatchObject({ takeover: true, previousOwnerId: "other-host:4242:dead", previousStatus: "running" });
    expect((await second.gateway.host.db.requireRun(stale)).status).toBe("waiting-event");
    expect(second.gateway.host.activeRun(fresh)).toBeUndefined();
    expect(await second.gateway.host.db.requireRun(fresh)).toMatchObject({ status: "running", ownerId: "other-host:4343:live" });
  });

  it("starts even when a run it picks up cannot resume, and still resumes the others", async () => {
    const { first, ids } = await twoParkedRunsOfAClosedGateway();
    const [broken, fine] = ids as [string, string];
    const store = first.gateway.host.db.store;
    const stale = Date.now() - 120_000;
    await store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = 'other-host:1:dead', heartbeat_at_ms = ?, iterations_json = '{' WHERE run_id = ?`, [stale, broken]);
    await store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = 'other-host:1:dead', heartbeat_at_ms = ? WHERE run_id = ?`, [stale, fine]);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const second = await startTestGateway({}, {}, first.dbPath);
      await second.gateway.host.activeRun(fine)?.done;
      expect((await second.gateway.host.db.requireRun(fine)).status).toBe("waiting-event");
      expect(await store.query(`SELECT status, owner_id FROM _flow_runs WHERE run_id = ?`, [broken])).toEqual([{ status: "running", owner_id: "other-host:1:dead" }]);
      await until(() => warnings, (w) => w.some((m) => m.includes(`run ${broken} could not be picked up`)), "the warning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("bridges events another process writes to live subscribers, unless outOfProcessEventBridge is false", async () => {
    const bridged = await startTestGateway({ outOfProcessEventBridgePollMs: 50 });
    const unbridged = await startTestGateway({ outOfProcessEventBridge: false }, {}, bridged.dbPath);
    // A second connection to the same SQLite file writes as another process would.
    const other = gatewayWorkflows(bridged.dbPath).greet;
    const store = new FlowDb(other).store;
    const now = Date.now();
    await store.execute(`INSERT INTO _flow_runs (run_id, workflow_name, status, owner_id, heartbeat_at_ms, created_at_ms, updated_at_ms) VALUES ('outside', 'elsewhere', 'running', 'other-host:1:x', ?, ?, ?)`, [now, now, now]);
    const write = (seq: number) => store.execute(`INSERT INTO _flow_events (run_id, seq, type, timestamp_ms, payload_json) VALUES ('outside', ?, 'LoopIteration', ?, ?)`, [seq, Date.now(), JSON.stringify({ loopId: "l", iteration: seq })]);
    await write(1);
    const [a, b] = [await FrameClient.open(bridged.wsUrl), await FrameClient.open(unbridged.wsUrl)];
    for (const c of [a, b]) {
      await c.connect();
      expect((await c.request("streamRunEvents", { runId: "outside" })).result.lastSeq).toBe(1);
    }
    await write(2);
    await write(3);
    await a.waitFor((f) => f.event === "run.event" && f.seq === 3);
    expect(a.frames.filter((f) => f.event === "run.event").map((f) => f.seq)).toEqual([1, 2, 3]);
    await new Promise((r) => setTimeout(r, 200));
    expect(b.frames.filter((f) => f.event === "run.event").map((f) => f.seq)).toEqual([1]);
  });

  it("close() aborts the runs it executes, closes its sockets and refuses new requests", async () => {
    const t = await startTestGateway();
    const ws = await FrameClient.open(t.wsUrl);
    await ws.connect();
    const cancelled = (await ws.request("launchRun", { workflow: "slow", input: { steps: 20, stepMs: 100 } })).result.runId as string;
    const other = await startTestGateway({}, {}, join(tempDir("flow-gw-"), "flow.db"));
    const paused = (await rpc(other.url, "launchRun", { workflow: "slow", input: { steps: 20, stepMs: 100 } })).body.result.runId as string;
    await Promise.all([t.gateway.close(), other.gateway.close({ runs: "pause" })]);
    expect(await ws.closed()).toBe(1001);
    expect((await t.gateway.host.db.requireRun(cancelled)).status).toBe("cancelled");
    expect((await other.gateway.host.db.requireRun(paused)).status).toBe("paused");
    expect(t.gateway.host.activeRuns()).toEqual([]);
    await expect(fetch(`${t.url}/health`)).rejects.toThrow();
    expect((await t.gateway.fetch(new Request("http://gw/health"))).status).toBe(503);
    const refused = await new Promise<string>((resolve) => {
      const late = new WebSocket(t.wsUrl);
      late.on("error", (e) => resolve(String(e)));
      late.on("open", () => resolve("open"));
    });
    expect(refused).not.toBe("open");
  });
});
