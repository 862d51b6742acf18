/**
 * Gateway benchmark, one JSON line per measure (docs/performance.md):
 *
 *   npx tsx --expose-gc bench/gateway.ts
 *
 * - `launch-rate`: `POST /v1/rpc/launchRun` over loopback HTTP, 8 callers at once, each launch
 *   answered once its run row exists (the runs then execute in the gateway).
 * - `fanout`: 100 WebSocket subscribers of one run; the gateway's event hub is fed 1000
 *   events/s (TaskFinished-shaped, stamped when published) for 5 s; delivery latency = receive
 *   time in the client process - publish time (one machine clock), p50/p99/max.
 * - `idle-connections`: 1000 WebSockets connected (handshake done) and idle; the gateway
 *   process's RSS and heap growth, total and per connection (after GC).
 *
 * WebSocket clients run in a child process (`--clients`), so the gateway's memory and event
 * loop are its own. `fanout` also reports the gateway's CPU time per event and the machine's
 * load average, since latency percentiles on a shared machine mostly measure the others.
 */
import { type ChildProcess, fork } from "node:child_process";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import type { FlowEvent } from "durable-flow";
import { Gateway } from "../node/server/gateway.js";
import { gatewayWorkflows } from "../node/server/fixtures/gateway-workflows.js";
import { scratchDir } from "./support/scratch.js";

type ToClients = { cmd: "open"; url: string; n: number; runId?: string; afterSeq?: number } | { cmd: "report" } | { cmd: "close" };
type FromClients = { ready: number } | { latencies: number[] };

if (process.argv.includes("--clients")) await clientProcess();
else await main();

async function main(): Promise<void> {
  const dir = scratchDir("flow-bench-gw-");
  const workflows = gatewayWorkflows(join(dir, "flow.db"));
  const gateway = new Gateway({ heartbeatMs: 15_000, workspaceRoot: dir }).register("greet", workflows.greet).register("deploy", workflows.deploy);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  // Idle connections first, on a fresh gateway, so the other measures' garbage is not counted.
  const clients = await spawnClients();
  await ask(clients, { cmd: "open", url: url.replace("http", "ws"), n: 10 });
  await ask(clients, { cmd: "close" });
  console.log(JSON.stringify(await idleConnections(url, clients, 1000)));
  await ask(clients, { cmd: "close" });

  console.log(JSON.stringify(await launchRate(url, 400, 8)));
  await Promise.all(gateway.host.activeRuns().map((r) => r.done));

  console.log(JSON.stringify(await fanout(gateway, url, clients, 100, 1000, 5000)));
  clients.kill();
  await gateway.close();
}

async function launchRate(url: string, total: number, concurrency: number) {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const res = await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", body: JSON.stringify({ workflow: "greet", input: { name: "bench" } }) });
        if (!(await res.json()).ok) throw new Error("launchRun failed");
      }
    }),
  );
  const ms = performance.now() - start;
  return { bench: "gateway", measure: "launch-rate", launches: total, concurrency, ms: Math.round(ms), perSecond: Math.round((total / ms) * 1000) };
}

async function fanout(gateway: Gateway, url: string, clients: ChildProcess, subscribers: number, perSecond: number, durationMs: number) {
  const launched = await (await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", body: JSON.stringify({ workflow: "deploy", input: {} }) })).json();
  const runId = launched.result.runId as string;
  await gateway.host.activeRun(runId)?.done;
  const [row] = await gateway.host.db.store.query<{ n: unknown }>(`SELECT MAX(seq) AS n FROM _flow_events WHERE run_id = ?`, [runId]);
  let seq = Number(row!.n);
  await ask(clients, { cmd: "open", url: url.replace("http", "ws"), n: subscribers, runId, afterSeq: seq });
  const total = Math.round((perSecond * durationMs) / 1000);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const event = { type: "TaskFinished", runId, nodeId: `task-${i % 50}`, iteration: 0, attempt: 1, durationMs: 3, timestampMs: Date.now(), seq: ++seq } as FlowEvent;
    gateway.host.publishRunEvent(event);
  }
  await new Promise((r) => setTimeout(r, 500));
  const used = process.cpuUsage(cpu);
  const { latencies } = (await ask(clients, { cmd: "report" })) as { latencies: number[] };
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return {
    bench: "gateway",
    measure: "fanout",
    subscribers,
    eventsPerSecond: perSecond,
    events: total,
    delivered: latencies.length,
    expected: total * subscribers,
    p50Ms: pct(50),
    p99Ms: pct(99),
    maxMs: latencies.at(-1),
    // The gateway process's CPU per published event (fan-out to every subscriber included):
    // what decides latency once the machine is busy.
    gatewayCpuUsPerEvent: Math.round((used.user + used.system) / total),
    loadAverage1m: (await import("node:os")).loadavg()[0],
  };
}

async function idleConnections(url: string, clients: ChildProcess, n: number) {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  await ask(clients, { cmd: "open", url: url.replace("http", "ws"), n });
  await new Promise((r) => setTimeout(r, 500));
  gc?.();
  const after = process.memoryUsage();
  const mb = (b: number) => Math.round((b / 1024 / 1024) * 10) / 10;
  return {
    bench: "gateway",
    measure: "idle-connections",
    connections: n,
    rssGrowthMb: mb(after.rss - before.rss),
    heapGrowthMb: mb(after.heapUsed - before.heapUsed),
    rssPerConnectionKb: Math.round((after.rss - before.rss) / n / 1024),
    rssTotalMb: mb(after.rss),
    gcExposed: gc !== undefined,
  };
}

function spawnClients(): Promise<ChildProcess> {
  return Promise.resolve(fork(fileURLToPath(import.meta.url), ["--clients"], { execArgv: process.execArgv.filter((a) => a !== "--expose-gc"), stdio: "inherit" }));
}

function ask(child: ChildProcess, msg: ToClients): Promise<FromClients> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as FromClients));
    child.send(msg);
  });
}

/** The client side: opens sockets, connects (and subscribes), records event latencies. */
async function clientProcess(): Promise<void> {
  let sockets: WebSocket[] = [];
  let latencies: number[] = [];
  process.on("message", async (msg: ToClients) => {
    if (msg.cmd === "open") {
      const opened = await Promise.all(
        Array.from({ length: msg.n }, () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(msg.url);
            ws.on("error", reject);
            ws.on("message", (data) => {
              const text = data.toString();
              // Event frames are timed without parsing them all: the client stays cheap.
              const stamp = text.startsWith('{"type":"event","event":"run.event"') ? /"timestampMs":(\d+)/.exec(text) : null;
              if (stamp) return void latencies.push(Date.now() - Number(stamp[1]));
              const f = JSON.parse(text) as { type: string };
              if (f.type === "connected") {
                if (msg.runId) ws.send(JSON.stringify({ type: "req", id: 1, method: "streamRunEvents", params: { runId: msg.runId, afterSeq: msg.afterSeq ?? 0 } }));
                else resolve(ws);
              } else if (f.type === "res") resolve(ws);
            });
            ws.on("open", () => ws.send(JSON.stringify({ type: "connect", protocol: 1 })));
          }),
        ),
      );
      sockets.push(...opened);
      process.send!({ ready: sockets.length });
    } else if (msg.cmd === "report") {
      process.send!({ latencies });
      latencies = [];
    } else {
      for (const ws of sockets) ws.terminate();
      sockets = [];
      process.send!({ ready: 0 });
    }
  });
}
