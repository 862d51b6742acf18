/**
 * Stops of real processes (issue 23): Ctrl+C or SIGTERM of `flow serve` and of `npm start`
 * parks every running run before the process exits, even when the signal arrives more than
 * once (a terminal sends it to the whole process group and npm/tsx relay it again); a run
 * paused that way is resumed by the next host serving its workflow, while a run a person
 * paused stays paused.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { tempDir } from "../testing/backends.js";
import { flowDbFile } from "../testing/flow-db-file.js";
import { FrameClient, until } from "./gateway-testing.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVE_DIR = join(ROOT, "node/server/fixtures/serve");

function start(cmd: string, args: string[], env: Record<string, string>, cwd: string, detached = false) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) (detached ? process.kill(-child.pid!, "SIGKILL") : child.kill("SIGKILL"));
  });
  return { child, output: () => out, exited };
}

async function serve(env: Record<string, string>, cwd: string) {
  const p = start(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "serve", SERVE_DIR, "--port", "0"], env, cwd);
  const line = await until(() => /listening on (http:\/\/\S+)/.exec(p.output()), (m) => m !== null, `flow serve to listen (output: ${p.output()})`);
  const c = await FrameClient.open(`${line![1]!.replace("http", "ws")}/`);
  await c.connect();
  return { ...p, c };
}

/** The node process that runs the app's Gateway under npm and tsx (tsx starts it with its preflight). */
function appProcess(pgid: number): number | undefined {
  const ps = spawnSync("ps", ["-o", "pid=,args=", "-g", String(pgid)], { encoding: "utf8" }).stdout;
  const line = ps.split("\n").find((l) => l.includes("preflight") && l.includes("start-app"));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
const runOf = (dbPath: string, runId: string) => flowDbFile(dbPath).getRun(runId);

describe("stopping a host", () => {
  it("flow serve: SIGINT parks running runs as shutdown, the next flow serve resumes them; a person's pause stays", { timeout: 120_000 }, async () => {
    const dir = tempDir("flow-stop-");
    const env = { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "tasks.log") };
    const first = await serve(env, dir);
    await first.c.request("launchRun", { workflow: "slow", runId: "stopped", input: { steps: 6, stepMs: 300 } });
    await first.c.request("launchRun", { workflow: "slow", runId: "held", input: { steps: 6, stepMs: 300 } });
    await until(() => lines(env.FLOW_TEST_LOG), (l) => l.filter((x) => x === "step-1").length >= 2, "both runs at step-1");
    expect((await first.c.request("pauseRun", { runId: "held" })).result).toMatchObject({ status: "pausing" });
    await until(() => runOf(env.FLOW_TEST_DB, "held"), (r) => r?.status === "paused", "held to pause");
    // Twice, as a terminal's Ctrl+C plus a wrapper's relay would deliver it.
    first.child.kill("SIGINT");
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);
    expect(await runOf(env.FLOW_TEST_DB, "stopped")).toMatchObject({ status: "paused", pauseReason: "shutdown" });
    expect(await runOf(env.FLOW_TEST_DB, "held")).toMatchObject({ status: "paused", pauseReason: "person" });

    const second = await serve(env, dir);
    await until(() => runOf(env.FLOW_TEST_DB, "stopped"), (r) => r?.status === "finished", "the stopped run to finish after the restart", 60_000);
    expect(await runOf(env.FLOW_TEST_DB, "held")).toMatchObject({ status: "paused", pauseReason: "person" });
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("npm start: Ctrl+C to the process group parks the running run every time, and the next start resumes it", { timeout: 300_000 }, async () => {
    const dir = tempDir("flow-npm-start-");
    const env = { FLOW_APP_DB: join(dir, "flow.db"), PORT: "0", NO_COLOR: "1" };
    for (let round = 0; round < 3; round++) {
      const app = start("npm", ["start", "--silent"], env, ROOT, true);
      const line = await until(() => /running at (http:\/\/\S+)\//.exec(app.output()), (m) => m !== null, `npm start to listen (output: ${app.output()})`, 240_000);
      const c = await FrameClient.open(`${line![1]!.replace("http", "ws")}/`);
      await c.connect();
      const runId = `p${round}`;
      await c.request("launchRun", { workflow: "pipeline", runId, input: { tasks: 40, workMs: 200 } });
      await until(() => runOf(env.FLOW_APP_DB, runId), (r) => r?.status === "running", `${runId} to run`);
      if (round > 0) await until(() => runOf(env.FLOW_APP_DB, `p${round - 1}`), (r) => r?.status === "running" || r?.status === "finished", "the earlier run to be resumed");
      await new Promise((r) => setTimeout(r, 500));
      const gateway = appProcess(app.child.pid!);
      process.kill(-app.child.pid!, "SIGINT"); // what Ctrl+C in a terminal does
      // ... and the copy a wrapper relays late (tsx sends its own when its child seems not to
      // have heard it): with a one-shot handler this one killed the process mid-pause. Sent 20 ms
      // later, while the run is being parked (a quiet machine parks and exits within 100 ms); a
      // process already gone has nothing left to kill.
      await new Promise((r) => setTimeout(r, 20));
      if (gateway) sendIfAlive(gateway, "SIGINT");
      // npm answers a signal by dying of it; what counts is the Gateway below it (tsx and
      // node): the group is gone once it has parked the run and exited.
      await app.exited;
      expect(gateway, "the app's node process under npm and tsx").toBeGreaterThan(0);
      await until(() => groupAlive(app.child.pid!), (alive) => !alive, "the app's processes to exit", 30_000);
      expect(app.output()).not.toMatch(/Error/);
      expect(await runOf(env.FLOW_APP_DB, runId)).toMatchObject({ status: "paused", pauseReason: "shutdown", ownerId: null });
    }
  });
});

/** Sends `signal` to `pid` unless it has exited already. */
function sendIfAlive(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}
