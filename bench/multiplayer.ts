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
 */
import { parseArgs } from "node:util";
import { startTeamFixture, type TeamFixture } from "../e2e/electric/team-fixture.js";

const { values } = parseArgs({ options: { members: { type: "string" }, writes: { type: "string", default: "200" } } });
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

const t = await startTeamFixture();
try {
  for (const watchers of cases) console.log(JSON.stringify(await runCase(t, watchers)));
} finally {
  await t.close();
}
