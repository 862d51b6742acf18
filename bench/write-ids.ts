/**
 * What write ids cost (docs/performance.md "Write ids"), one JSON line per measure:
 *
 *   npx tsx bench/write-ids.ts [launches=200] [steps=300]
 *
 * - `launch`: `POST /v1/api/runs` over loopback HTTP, 8 callers at once, without and with a
 *   `flow-write-id` (the ledger row in the launch's transaction, the answer stored after).
 * - `run-loop`: a run of `steps` tasks on a Gateway that never saw a write id, then on one whose
 *   store carries the write-id hooks (every transaction asks the async context for a write
 *   scope); ms per task. The workspace is a git repository, as users' are.
 */
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gatewayWorkflows } from "../node/server/fixtures/gateway-workflows.js";
import { Gateway } from "../node/server/gateway.js";
import { scratchDir } from "./support/scratch.js";

const launches = Number(process.argv[2] ?? 200);
const steps = Number(process.argv[3] ?? 300);

async function gateway(): Promise<{ gateway: Gateway; url: string }> {
  const dir = scratchDir("flow-bench-wid-");
  execFileSync("git", ["init", "-q", dir]);
  // The store outside the repository: the runs' snapshots would otherwise race its writes.
  const workflows = gatewayWorkflows(join(scratchDir("flow-bench-wid-db-"), "flow.db"));
  const gw = new Gateway({ heartbeatMs: 15_000, workspaceRoot: dir }).register("greet", workflows.greet).register("slow", workflows.slow);
  const server = await gw.listen({ port: 0, host: "127.0.0.1" });
  return { gateway: gw, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const post = (url: string, body: unknown, writeId?: string) =>
  fetch(`${url}/v1/api/runs`, { method: "POST", headers: { "content-type": "application/json", ...(writeId ? { "flow-write-id": writeId } : {}) }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);

async function launchRate(url: string, withIds: boolean): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < launches) await post(url, { workflow: "greet", input: { name: "bench" } }, withIds ? randomUUID() : undefined);
    }),
  );
  return launches / ((performance.now() - started) / 1000);
}

async function runLoop(g: { gateway: Gateway; url: string }): Promise<number> {
  const { runId } = (await post(g.url, { workflow: "slow", input: { steps, stepMs: 0 } })).result;
  const started = performance.now();
  for (;;) {
    const run = await g.gateway.host.db.requireRun(runId);
    if (run.status === "finished") break;
    await new Promise((r) => setTimeout(r, 5));
  }
  return (performance.now() - started) / steps;
}

const plain = await gateway();
const hooked = await gateway();
await post(hooked.url, { workflow: "greet", input: {} }, randomUUID()); // installs the store hooks
/** Until every run the launches started has finished, so the next measure runs on a quiet Gateway. */
async function settle(g: { gateway: Gateway }): Promise<void> {
  while (g.gateway.host.activeRuns().length > 0) await new Promise((r) => setTimeout(r, 20));
}
for (let round = 0; round < 2; round++) {
  for (const [name, g, ids] of [["launch without ids", plain, false], ["launch with ids", hooked, true]] as const) {
    console.log(JSON.stringify({ bench: "launch", name, round, launches, perSecond: Math.round(await launchRate(g.url, ids)) }));
    await settle(g);
  }
}
for (let round = 0; round < 2; round++) {
  for (const [name, g] of [["store without hooks", plain], ["store with hooks", hooked]] as const) {
    console.log(JSON.stringify({ bench: "run-loop", name, round, steps, msPerTask: Number((await runLoop(g)).toFixed(3)) }));
  }
}
console.log(JSON.stringify({ loadavg: (await import("node:os")).loadavg().map((l) => Number(l.toFixed(1))) }));
await Promise.all([plain.gateway.close(), hooked.gateway.close()]);
