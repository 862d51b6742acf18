import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createFlow, FlowDb } from "durable-flow";
import { tempDir } from "../testing/backends.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/engine/fixtures/crash-workflow.tsx");
const SQUARES_SUM = [1, 2, 3, 4, 5, 6, 7, 8].reduce((s, n) => s + n * n, 0);

function flowUp(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> } {
  const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", FIXTURE, "--log-dir", "none", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stdout += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal, stdout })),
  );
  return { child, done };
}

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error("timed out waiting for the workflow process");
    await new Promise((r) => setTimeout(r, 10));
  }
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

describe("a run killed with SIGKILL", () => {
  it("resumes in a new process without re-running completed tasks and ends like an uninterrupted run", async () => {
    const dir = tempDir();
    const env = { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "tasks.log") };

    // Kill the first process while it is in the middle of the run.
    const first = flowUp(["--run-id", "crashy", "--input", "{}"], env);
    await until(() => lines(env.FLOW_TEST_LOG).filter((l) => l.startsWith("end")).length >= 3 && lines(env.FLOW_TEST_LOG).at(-1)!.startsWith("start"));
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");

    const db = new FlowDb(createFlow({}, { dbPath: env.FLOW_TEST_DB }).db);
    const before = await db.requireRun("crashy");
    expect(before.status).toBe("running");
    const finishedBefore = (await db.listNodes("crashy")).filter((n) => n.state === "finished").map((n) => n.nodeId);
    const eventsBefore = await db.listEvents("crashy");
    expect(finishedBefore.length).toBeGreaterThanOrEqual(3);

    // A new process resumes at once: the dead owner's pid is gone on this host.
    const second = flowUp(["--run-id", "crashy", "--resume"], env);
    const resumed = await second.done;
    expect(resumed.code, resumed.stdout).toBe(0);

    const log = lines(env.FLOW_TEST_LOG);
    for (const id of finishedBefore) expect(log.filter((l) => l === `start ${id}`)).toHaveLength(1);
    const all = ["s1", "s2", "s3", "s4", "p5", "p6", "p7", "p8"];
    for (const id of all) expect(log.filter((l) => l === `end ${id}`).length).toBeGreaterThanOrEqual(1);

    const after = await db.requireRun("crashy");
    expect(after).toMatchObject({ status: "finished", output: { sum: SQUARES_SUM } });
    const rows = await db.store.query<{ node_id: string; n: number; sq: number }>(`SELECT node_id, n, sq FROM square WHERE run_id = ? ORDER BY n`, ["crashy"]);
    expect(rows.map((r) => [r.node_id, r.sq])).toEqual(all.map((id, i) => [id, (i + 1) * (i + 1)]));
    // Nothing persisted before the crash was lost: the old events are still the prefix of the log.
    const eventsAfter = await db.listEvents("crashy");
    expect(eventsAfter.slice(0, eventsBefore.length)).toEqual(eventsBefore);
    expect(eventsAfter.map((e) => e.seq)).toEqual(eventsAfter.map((_, i) => i + 1));
    expect(eventsAfter.find((e) => e.seq === eventsBefore.length + 1)).toMatchObject({ type: "RunResumed", takeover: true });

    // An uninterrupted run of the same workflow ends with the same outputs.
    const clean = flowUp(["--run-id", "clean", "--input", "{}"], { ...env, FLOW_TEST_TASK_MS: "1" });
    expect((await clean.done).code).toBe(0);
    const cleanRows = await db.store.query<{ node_id: string; sq: number }>(`SELECT node_id, n, sq FROM square WHERE run_id = ? ORDER BY n`, ["clean"]);
    expect(cleanRows.map((r) => [r.node_id, r.sq])).toEqual(rows.map((r) => [r.node_id, r.sq]));
    expect((await db.requireRun("clean")).output).toEqual(after.output);
  }, 60_000);
});
