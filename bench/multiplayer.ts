/**
 * Multiplayer benchmark (docs/multiplayer.md, docs/performance.md "Multiplayer"): the time from
 * a write by one member (`cols.launch` in multiplayer mode) to the row in other members'
 * `runs` collections, over a team Gateway on the test PostgreSQL with the Electric stand-in
 * (e2e/electric) behind its shape proxy. One JSON line per case on stdout.
 *
 *   npx tsx bench/multiplayer.ts                    # 1 and 20 watching members, 200 writes each
 *   npx tsx bench/multiplayer.ts --members 5 --writes 50
 *
 * Writes are sequential: the next starts once every watcher has the previous one. Members are
 * data-layer registries in this process (Node, not browsers: no rendering), each with its own
 * shape stream through the Gateway; the Gateway, the stand-in and the engine running the
 * launched runs share the process too. Fields: members, writes, p50Ms/p99Ms/maxMs (write start
 * to a watcher having the row, over every write × watcher), allP50Ms/allP99Ms (to the last
 * watcher having it), launchP50Ms (until `launch` resolved: the writer's own row synced).
 *
 *   npx tsx bench/multiplayer.ts --tasks 20         # task changes, run on another Gateway
 *
 * `--tasks N` (issue #25): N `release` runs executed by the fixture's Gateway A, watched by a
 * member whose collections read a second Gateway B of the workspace (`nodes(runId)`); the time
 * is from a task's `TaskFinished` (its event's timestamp, same process clock) to the task's
 * row turning `finished` in the member's collection. Fields: runs, tasks, p50Ms/p99Ms/maxMs.
 */
import { parseArgs } from "node:util";
import { QueryClient } from "@tanstack/query-core";
import { startTeamFixture, startTeamGateway, type TeamFixture } from "../e2e/electric/team-fixture.js";
import { createTeamCollections } from "../sync/index.js";

const { values } = parseArgs({ options: { members: { type: "string" }, writes: { type: "string", default: "200" }, tasks: { type: "string" } } });
const writes = Number(values.writes);
const cases = values.members ? [Number(values.members)] : [1, 20];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! * 10) / 10;
};

async function runCase(t: TeamFixture, watchers: number): Promise<Record<string, unknown>> {
  const writer = t.member("ana");
  const others = Array.from({ length: watchers }, () => t.member("bea"));
  // Every member connects its change stream as the app does; in multiplayer mode it leaves
  // `runs` to the shape, so what is measured is Electric's fan-out through the proxy.
  await Promise.all([writer, ...others].flatMap((c) => [c.connect(), c.runs.preload()]));
  const seen = new Map<string, Map<number, number>>();
  let wake: (() => void) | undefined;
  others.forEach((c, i) =>
    c.runs.subscribeChanges((changes) => {
      const now = performance.now();
      for (const ch of changes) {
        if (ch.type !== "insert") continue;
        const m = seen.get(String(ch.key)) ?? new Map<number, number>();
        if (!m.has(i)) m.set(i, now);
        seen.set(String(ch.key), m);
      }
      wake?.();
    }),
  );
  const perWatcher: number[] = [];
  const toAll: number[] = [];
  const launch: number[] = [];
  for (let w = 0; w < writes; w++) {
    const runId = `bench-${watchers}-${w}-${Date.now()}`;
    const start = performance.now();
    await writer.launch({ workflow: "release", runId, input: { service: "bench", shards: 1, workMs: 0 } });
    launch.push(performance.now() - start);
    while ((seen.get(runId)?.size ?? 0) < watchers) await new Promise<void>((r) => (wake = r));
    const times = [...seen.get(runId)!.values()].map((at) => at - start);
    perWatcher.push(...times);
    toAll.push(Math.max(...times));
  }
  for (const c of [writer, ...others]) c.close();
  return { bench: "multiplayer", members: watchers + 1, watchers, writes, p50Ms: pct(perWatcher, 50), p99Ms: pct(perWatcher, 99), maxMs: pct(perWatcher, 100), allP50Ms: pct(toAll, 50), allP99Ms: pct(toAll, 99), launchP50Ms: pct(launch, 50) };
}

async function tasksCase(t: TeamFixture, runs: number): Promise<Record<string, unknown>> {
  const b = await startTeamGateway(t.storeUrl, t.electric.url);
  const watcher = createTeamCollections({ kind: "multiplayer", apiBaseUrl: b.url, electricBaseUrl: `${b.url}/sync`, workspaceId: "acme", token: "bea" }, new QueryClient());
  const lat: number[] = [];
  try {
    await Promise.all([watcher.connect(), watcher.runs.preload()]);
    for (let r = 0; r < runs; r++) {
      const res = await t.call("ana", "POST", "/v1/api/runs", { workflow: "release", input: { service: "bench", shards: 2, workMs: 300 } });
      const runId = res.body.result.runId as string;
      const nodes = watcher.nodes(runId);
      await nodes.preload();
      const loadedAt = Date.now();
      const finishedAt = new Map<string, number>();
      const sub = nodes.subscribeChanges((changes) => {
        const now = Date.now();
        for (const ch of changes) if (ch.value.state === "finished" && !finishedAt.has(ch.value.nodeId)) finishedAt.set(ch.value.nodeId, now);
      });
      while (!["build", "test-0", "test-1"].every((n) => finishedAt.has(n))) await new Promise((w) => setTimeout(w, 2));
      sub.unsubscribe();
      const { events } = (await t.call("ana", "GET", `/v1/api/runs/${runId}/events`)).body.result as { events: Array<{ type: string; nodeId?: string; timestampMs: number }> };
      for (const e of events) if (e.type === "TaskFinished" && e.timestampMs > loadedAt && finishedAt.has(e.nodeId!)) lat.push(finishedAt.get(e.nodeId!)! - e.timestampMs);
      await t.call("ana", "POST", `/v1/api/runs/${runId}/cancel`);
    }
  } finally {
    watcher.close();
    await b.gateway.close();
  }
  return { bench: "multiplayer-tasks", runs, tasks: lat.length, p50Ms: pct(lat, 50), p99Ms: pct(lat, 99), maxMs: pct(lat, 100) };
}

const t = await startTeamFixture();
try {
  if (values.tasks) console.log(JSON.stringify(await tasksCase(t, Number(values.tasks))));
  else for (const watchers of cases) console.log(JSON.stringify(await runCase(t, watchers)));
} finally {
  await t.close();
}
