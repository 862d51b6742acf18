/**
 * Live collections benchmark (durable-flow/data), one JSON line per measure
 * (docs/performance.md):
 *
 *   npx tsx bench/live-collections.ts
 *
 * - `change-to-row`: a gateway with 1000 runs, a registry whose `runs` collection holds them;
 *   a `greet` run is launched and the time from the engine publishing its `RunFinished` event
 *   (in the gateway's process, which is this one) to the run's row reading `finished` in the
 *   live collection (change stream -> GET /v1/api/runs/:id -> upsert) is measured, 200 times
 *   one after the other; p50/p99/max. Goal p99 < 50 ms.
 * - `load-runs`: 10,000 stored runs; a fresh registry's `runs.preload()` (20 pages of 500 over
 *   loopback HTTP into the collection). Goal < 1 s.
 */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { QueryClient } from "@tanstack/query-core";
import { createCollections } from "durable-flow/data";
import { gatewayWorkflows } from "../node/server/fixtures/gateway-workflows.js";
import { Gateway } from "../node/server/gateway.js";
import { scratchDir } from "./support/scratch.js";

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const round = (x: number) => Math.round(x * 10) / 10;

async function gatewayWith(runs: number) {
  const dir = scratchDir("flow-bench-cols-");
  const workflows = gatewayWorkflows(join(dir, "flow.db"));
  const gateway = new Gateway({ workspaceRoot: dir }).register("greet", workflows.greet);
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  const store = gateway.host.db.store;
  const now = Date.now() - runs;
  await store.transaction(async (tx) => {
    for (let i = 0; i < runs; i++) {
      await tx.execute(`INSERT INTO _flow_runs (run_id, workflow_name, status, owner_id, heartbeat_at_ms, created_at_ms, updated_at_ms) VALUES (?, 'greet', 'finished', NULL, NULL, ?, ?)`, [`seed-${i}`, now + i, now + i]);
    }
  });
  return { gateway, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function changeToRow(): Promise<void> {
  const { gateway, url } = await gatewayWith(1000);
  const cols = createCollections({ kind: "local", apiBaseUrl: url }, new QueryClient());
  await cols.connect();
  await cols.runs.preload();
  const loaded = cols.runs.size;
  const latencies: number[] = [];
  for (let i = 0; i < 200; i++) {
    const runId = `bench-${i}`;
    let published = 0;
    const seen = new Promise<void>((resolve) => {
      const sub = cols.runs.subscribeChanges(() => {
        if (published && cols.runs.get(runId)?.status === "finished") {
          latencies.push(performance.now() - published);
          sub.unsubscribe();
          resolve();
        }
      });
    });
    const stop = await gateway.host.subscribeRunEvents(runId, 0, (e) => {
      if (e.type === "RunFinished") published = performance.now();
    });
    await gateway.host.startRun({ workflowKey: "greet", runId, input: {} });
    await seen;
    stop();
  }
  console.log(JSON.stringify({ bench: "live-collections", measure: "change-to-row", runsLoaded: loaded, samples: latencies.length, p50Ms: round(pct(latencies, 50)), p99Ms: round(pct(latencies, 99)), maxMs: round(Math.max(...latencies)) }));
  cols.close();
  await gateway.close();
}

async function loadRuns(): Promise<void> {
  const { gateway, url } = await gatewayWith(10_000);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const cols = createCollections({ kind: "local", apiBaseUrl: url }, new QueryClient());
    const t0 = performance.now();
    await cols.runs.preload();
    times.push(performance.now() - t0);
    if (cols.runs.size !== 10_000) throw new Error(`loaded ${cols.runs.size} runs, not 10000`);
    cols.close();
  }
  console.log(JSON.stringify({ bench: "live-collections", measure: "load-runs", runs: 10_000, firstMs: Math.round(times[0]!), bestMs: Math.round(Math.min(...times)), ms: times.map(Math.round) }));
  await gateway.close();
}

await changeToRow();
await loadRuns();
