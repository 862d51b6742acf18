import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createFlow, FlowDb } from "durable-flow";
import { tempDir } from "../testing/backends.js";

// Issue #10: a task that always throws retried 111,563 times in 20 s, two Ctrl-C did nothing and
// the --log-dir file was never written. Waits now grow by default, and Ctrl-C works at any moment.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/engine/fixtures/failing-workflow.tsx");

interface Started {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
  dir: string;
  db: string;
}

const children: ChildProcess[] = [];
// A test that fails midway must not leave its `flow up` process running.
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

function startUp(mode: string): Started {
  const dir = tempDir("flow-interrupt-");
  const db = join(dir, "flow.db");
  const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", FIXTURE, "--run-id", "r1", "--json", "--log-dir", join(dir, "logs")], {
    cwd: dir,
    env: { ...process.env, FLOW_TEST_DB: db, FLOW_TEST_MODE: mode, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", () => {});
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, stdout: () => out, exited, dir, db };
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

const events = (s: Started) =>
  s
    .stdout()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; retryInMs?: number; status?: string });

async function attemptsOf(db: string): Promise<number> {
  return (await new FlowDb(createFlow({}, { dbPath: db }).db).listAttempts("r1")).length;
}

describe("interrupting a run from the terminal", () => {
  it("waits 1 s, then 2 s between attempts of a failing task, and one Ctrl-C pauses it during the wait, writing its log", async () => {
    const s = startUp("default");
    await until(() => events(s).filter((e) => e.type === "TaskFailed").length >= 2, 15_000);
    s.child.kill("SIGINT");
    const code = await Promise.race([s.exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 5000))]);
    expect(code).toBe(0);
    const failed = events(s).filter((e) => e.type === "TaskFailed");
    expect(failed.slice(0, 2).map((e) => e.retryInMs)).toEqual([1000, 2000]);
    expect(events(s).at(-1)).toMatchObject({ type: "result", status: "paused" });
    expect(await attemptsOf(s.db)).toBeLessThanOrEqual(3);
    const log = join(s.dir, "logs", "r1.ndjson");
    expect(existsSync(log)).toBe(true);
    expect(readFileSync(log, "utf8")).toContain('"RunPaused"');
  }, 30_000);

  it("stops a task retried with no wait at all at the first Ctrl-C", async () => {
    const s = startUp("spin");
    await until(() => events(s).filter((e) => e.type === "TaskFailed").length >= 50, 15_000);
    s.child.kill("SIGINT");
    const code = await Promise.race([s.exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 5000))]);
    expect(code).toBe(0);
    expect(events(s).at(-1)).toMatchObject({ type: "result", status: "paused" });
  }, 30_000);

  it("cancels at the second Ctrl-C while a task is still running", async () => {
    const s = startUp("slow");
    await until(() => events(s).some((e) => e.type === "TaskStarted"), 15_000);
    s.child.kill("SIGINT");
    await new Promise((r) => setTimeout(r, 200));
    expect(s.child.exitCode).toBeNull(); // pausing waits for the running task
    s.child.kill("SIGINT");
    const code = await Promise.race([s.exited, new Promise<"hung">((r) => setTimeout(() => r("hung"), 5000))]);
    expect(code).toBe(130);
    expect(events(s).at(-1)).toMatchObject({ type: "result", status: "cancelled" });
  }, 30_000);
});
