/**
 * The client and the data layer when the gateway goes away: a `flow serve` process SIGKILLed
 * mid-run and started again on the same port while a resilient event stream and live
 * collections are open (no event lost or repeated; the collections keep their rows while
 * offline and converge to the database's), and a server answering HTML instead of an event
 * stream (the status parks at `offline`, one notice, and it recovers when the real gateway
 * comes back on that port).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createTcpServer, connect as tcpConnect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { QueryClient } from "@tanstack/query-core";
import Database from "better-sqlite3";
import { describe, expect, it, onTestFinished } from "vitest";
import { flowProcess } from "../testing/flow-process.js";
import { createCollections, type DataNotice } from "durable-flow/data";
import { GatewayClient, type RunEventFrame } from "durable-flow/gateway-client";
import { tempDir } from "../testing/backends.js";
import { gatewayWorkflows } from "../server/fixtures/gateway-workflows.js";
import { Gateway } from "../server/gateway.js";
import { startTestGateway } from "../server/gateway-testing.js";
import { until } from "./testing.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVE_DIR = join(ROOT, "node/server/fixtures/serve");
const FAST = { baseMs: 50, maxMs: 400 };

/** `flow serve` of the fixture workflows on the store at `db`, in a temp cwd. */
async function serve(dir: string, port: number): Promise<{ child: ChildProcess; url: string; exited: Promise<unknown> }> {
  const { child, output, exited } = flowProcess(["serve", SERVE_DIR, "--port", String(port)], { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "tasks.log") }, dir);
  const m = await until(() => /listening on (http:\/\/\S+)/.exec(output()), (v) => v !== null, `flow serve to listen (${output()})`);
  return { child, url: m![1]!, exited };
}

const stepsStarted = (dir: string) => (existsSync(join(dir, "tasks.log")) ? readFileSync(join(dir, "tasks.log"), "utf8").trim().split("\n") : []);

describe("when the gateway goes away", () => {
  it("a SIGKILLed and restarted gateway: the resilient stream loses and repeats nothing, the collections keep their rows and converge", { timeout: 90_000 }, async () => {
    const dir = tempDir("flow-client-kill-");
    const first = await serve(dir, 0);
    const port = Number(new URL(first.url).port);
    const client = new GatewayClient({ baseUrl: first.url });
    onTestFinished(() => client.close());
    const cols = createCollections({ kind: "local", apiBaseUrl: first.url }, new QueryClient(), { backoff: FAST });
    onTestFinished(() => cols.close());
    const statuses: string[] = [];
    const notices: DataNotice[] = [];
    cols.onStatus((s) => statuses.push(s));
    cols.onNotice((n) => notices.push(n));
    expect(await cols.connect()).toBe("online");
    await cols.runs.preload();

    const { runId } = await cols.launch({ workflow: "slow", runId: "survivor", input: { steps: 4, stepMs: 400 } });
    const frames: RunEventFrame[] = [];
    let reconnects = 0;
    const streamed = (async () => {
      for await (const f of client.streamRunEventsResilient({ runId }, { backoff: FAST, onReconnect: () => reconnects++ })) frames.push(f);
    })();
    await until(() => stepsStarted(dir), (l) => l.includes("step-1"), "step-1 to start");
    await until(() => frames.some((f) => (f.payload as { nodeId?: string }).nodeId === "step-1"), (v) => v, "step-1's events");
    const rowsBefore = cols.runs.toArray.length;
    first.child.kill("SIGKILL");
    await first.exited;

    await until(() => cols.status, (s) => s === "offline", "the status offline");
    await expect(cols.data.api.listRuns()).rejects.toMatchObject({ code: "GATEWAY_UNAVAILABLE" });
    expect(cols.runs.toArray.length).toBe(rowsBefore);
    expect(cols.runs.get(runId)?.status).toBe("running");

    await serve(dir, port);
    await streamed;
    const seqs = frames.map((f) => f.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect((frames.at(-1)!.payload as { type: string }).type).toBe("RunFinished");
    expect(reconnects).toBeGreaterThan(0);
    expect(stepsStarted(dir).filter((s) => s === "step-0")).toHaveLength(1);

    await until(() => cols.runs.get(runId)?.status, (s) => s === "finished", "the runs row to converge");
    const db = new Database(join(dir, "flow.db"), { readonly: true });
    const stored = db.prepare(`SELECT run_id, status FROM _flow_runs ORDER BY run_id`).all() as Array<{ run_id: string; status: string }>;
    const storedSeqs = db.prepare(`SELECT seq FROM _flow_events WHERE run_id = ? ORDER BY seq`).all(runId) as Array<{ seq: number }>;
    db.close();
    expect(cols.runs.toArray.map((r) => [r.runId, r.status]).sort()).toEqual(stored.map((r) => [r.run_id, r.status]));
    expect(seqs).toEqual(storedSeqs.map((r) => r.seq));
    expect(statuses).toEqual(expect.arrayContaining(["offline", "online"]));
    expect(statuses.at(-1)).toBe("online");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: "info", code: "GATEWAY_UNAVAILABLE" });
  });

  it("a connection that goes silent (a frozen proxy) is dropped after idleTimeoutMs and the stream resumes after the last seq", { timeout: 30_000 }, async () => {
    const t = await startTestGateway();
    const target = new URL(t.url);
    // A TCP proxy whose open connections can be frozen: bytes stop, sockets stay open.
    const live = new Set<{ client: Socket; upstream: Socket }>();
    const proxy = createTcpServer((client) => {
      const upstream = tcpConnect(Number(target.port), target.hostname);
      client.pipe(upstream);
      upstream.pipe(client);
      const pair = { client, upstream };
      live.add(pair);
      const drop = () => (live.delete(pair), client.destroy(), upstream.destroy());
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    onTestFinished(() => {
      for (const { client, upstream } of live) client.destroy(), upstream.destroy();
      proxy.close();
    });
    const client = new GatewayClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
    onTestFinished(() => client.close());
    const { runId } = await client.launchRun({ workflow: "slow", input: { steps: 6, stepMs: 150 } });
    const frames: RunEventFrame[] = [];
    let reconnects = 0;
    for await (const f of client.streamRunEventsResilient({ runId }, { idleTimeoutMs: 400, backoff: FAST, onReconnect: () => reconnects++ })) {
      frames.push(f);
      if (frames.length === 3) for (const { upstream } of live) upstream.unpipe(), upstream.pause(); // freeze what is open now
    }
    expect(reconnects).toBeGreaterThan(0);
    const seqs = frames.map((f) => f.seq);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect((frames.at(-1)!.payload as { type: string }).type).toBe("RunFinished");
    expect(seqs).toEqual((await t.gateway.host.db.listEvents(runId)).map((e) => e.seq));
  });

  it("an HTML answer parks the status at offline (one notice, last rows kept) until the real gateway answers on that port", { timeout: 60_000 }, async () => {
    const html = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>dev server</p>"));
    await new Promise<void>((r) => html.listen(0, "127.0.0.1", r));
    const port = (html.address() as AddressInfo).port;
    const url = `http://127.0.0.1:${port}`;
    const cols = createCollections({ kind: "local", apiBaseUrl: url }, new QueryClient(), { backoff: FAST });
    onTestFinished(() => cols.close());
    const notices: DataNotice[] = [];
    cols.onNotice((n) => notices.push(n));
    expect(await cols.connect()).toBe("offline");
    await cols.runs.preload().catch(() => {});
    expect(cols.runs.toArray).toEqual([]);
    await expect(cols.data.api.listRuns()).rejects.toMatchObject({ code: "GATEWAY_UNAVAILABLE" });
    let requests = 0;
    html.on("request", () => requests++);
    await until(() => requests, (n) => n >= 3, "several reconnect attempts");
    expect(cols.status).toBe("offline");
    expect(notices).toHaveLength(1);
    await new Promise((r) => html.close(r));
    html.closeAllConnections();

    const dbPath = join(tempDir("flow-client-html-"), "flow.db");
    const workflows = gatewayWorkflows(dbPath);
    const gateway = new Gateway({ workspaceRoot: dirname(dbPath) });
    for (const key of ["greet", "deploy", "slow"] as const) gateway.register(key, workflows[key]);
    onTestFinished(() => gateway.close());
    await gateway.listen({ port, host: "127.0.0.1" });
    // The first call may meet a kept-alive socket of the HTML server: GATEWAY_UNAVAILABLE, then it answers.
    const launched = await until(() => cols.data.api.launchRun({ workflow: "greet" }).catch(() => undefined), (r) => r !== undefined, "a launch on the real gateway");
    const runId = launched!.runId;
    await until(() => cols.status, (s) => s === "online", "the status online");
    await until(() => cols.runs.get(runId)?.status, (s) => s === "finished", "the run's row");
    expect(notices).toHaveLength(1);
  });
});
