import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { FlowDb, openFlowBackend } from "durable-flow";
import { freshPostgresSchema } from "../testing/postgres-test-db.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/multi-worker.tsx", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface WorkerEvent {
  worker: string;
  event: string;
  [key: string]: unknown;
}

/** A worker process and the events it printed, with a way to wait for one. */
function startWorker(name: string, env: Record<string, string>, log: WorkerEvent[]) {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE], {
    cwd: ROOT,
    env: { ...process.env, FLOW_WORKER_NAME: name, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const waiters: Array<{ test: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const e = JSON.parse(line) as WorkerEvent;
    log.push(e);
    for (const w of waiters.splice(0)) (w.test(e) ? w.resolve(e) : waiters.push(w));
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  return {
    child,
    name,
    exited,
    /** Resolves with the first event (already printed or to come) that passes `test`. */
    until(test: (e: WorkerEvent) => boolean, what: string): Promise<WorkerEvent> {
      const seen = log.find((e) => e.worker === name && test(e));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        void exited.then((signal) => reject(new Error(`worker ${name} exited (${signal}) before ${what}: ${stderr}`)));
      });
    },
  };
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

describe("many workers on one PostgreSQL", () => {
  it("never runs a run twice at once, and takes over a killed worker's run once its heartbeat is stale", async () => {
    const db = await freshPostgresSchema();
    const log: WorkerEvent[] = [];
    const env = { FLOW_DATABASE_URL: db.url, FLOW_CLAIM_STALE_MS: "1500" };
    // Three workers start together against a fresh database (they prepare it in turn).
    const a = startWorker("A", { ...env, FLOW_START_RUN: "r1", FLOW_BLOCK_AT: "t3" }, log);
    const b = startWorker("B", env, log);
    const c = startWorker("C", env, log);
    running.push(a.child, b.child, c.child);
    const ownerA = (await a.until((e) => e.event === "ready", "ready")).ownerId as string;

    // A owns the run and hangs in t3. While A lives (heartbeat every 200 ms), B and C poll for
    // longer than the stale limit and never see the run as claimable.
    await a.until((e) => e.event === "task" && e.nodeId === "t3", "starting t3");
    const from = log.length;
    const polls = (w: typeof b) => w.until(() => log.slice(from).filter((x) => x.worker === w.name && x.event === "poll").length >= 20, "20 polls");
    await Promise.all([polls(b), polls(c)]);
    expect(log.filter((e) => e.event === "claiming" || (e.event === "task" && e.worker !== "A"))).toEqual([]);
    expect(log.filter((e) => e.event === "poll" && e.worker !== "A").every((e) => e.stale === 0)).toBe(true);

    a.child.kill("SIGKILL");
    expect(await a.exited).toBe("SIGKILL");
    const finished = await Promise.race([b, c].map((w) => w.until((e) => e.event === "done" && e.runId === "r1", "finishing r1")));
    expect(finished.status).toBe("finished");
    const winner = finished.worker;
    const loser = winner === "B" ? "C" : "B";
    // The other worker either never tried, or tried at the same moment and was refused.
    expect(log.filter((e) => e.worker === loser && e.event === "claiming").length).toBe(log.filter((e) => e.worker === loser && e.event === "claim-refused").length);
    expect(log.filter((e) => e.worker === loser && (e.event === "task" || e.event === "done"))).toEqual([]);

    // Who ran what: A ran t1, t2 and started t3; the winner re-ran t3 (at-least-once) and the rest.
    const tasks = log.filter((e) => e.event === "task").map((e) => `${e.worker}:${e.nodeId}`);
    expect(tasks).toEqual(["A:t1", "A:t2", "A:t3", `${winner}:t3`, `${winner}:t4`, `${winner}:t5`, `${winner}:t6`]);

    const api = await openFlowBackend({ step: z.object({ n: z.number().int(), by: z.string() }), output: z.object({ total: z.number().int() }) }, { env: { FLOW_DATABASE_URL: db.url } });
    try {
      const flowDb = new FlowDb(api.db);
      const run = await flowDb.requireRun("r1");
      expect(run).toMatchObject({ status: "finished", output: { total: 21 }, ownerId: null });
      // Every task output row exists exactly once.
      const counts = await flowDb.store.query<{ node_id: string; n: number }>(`SELECT node_id, COUNT(*) AS n FROM step WHERE run_id = ? GROUP BY node_id ORDER BY node_id`, ["r1"]);
      expect(counts).toEqual(["t1", "t2", "t3", "t4", "t5", "t6"].map((node_id) => ({ node_id, n: 1 })));
      const rows = await flowDb.listOutputs("r1", "step");
      expect(rows.map((r) => [r.nodeId, r.by])).toEqual([["t1", "A"], ["t2", "A"], ["t3", winner], ["t4", winner], ["t5", winner], ["t6", winner]]);
      const t3 = await flowDb.listAttempts("r1", "t3");
      expect(t3.map((x) => x.state)).toEqual(["cancelled", "finished"]);
      const resumed = (await flowDb.listEvents("r1")).filter((e) => e.type === "RunResumed");
      expect(resumed).toHaveLength(1);
      expect(resumed[0]).toMatchObject({ takeover: true, previousOwnerId: ownerA });
    } finally {
      await api.close!();
      await db.drop();
    }
  }, 60_000);
});
