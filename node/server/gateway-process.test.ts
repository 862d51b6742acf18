/**
 * The Gateway across real processes: `flow serve` SIGKILLed mid-run and started again picks
 * the run up (the dead owner's claim is taken over) and a subscriber that reconnects with
 * afterSeq sees every event exactly once, in order; a run executed by `flow up` beside a
 * gateway streams live to the gateway's subscribers through the out-of-process bridge.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { flowProcess } from "../testing/flow-process.js";
import { tempDir } from "../testing/backends.js";
import { FrameClient, startTestGateway, until } from "./gateway-testing.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVE_DIR = join(ROOT, "node/server/fixtures/serve");

/** Runs the flow CLI in `cwd` (a temp dir: runs take it as rootDir, so the working tree is left alone). */
const flow = flowProcess;

async function serve(env: Record<string, string>, cwd: string) {
  const p = flow(["serve", SERVE_DIR, "--port", "0"], env, cwd);
  const line = await until(() => /listening on (http:\/\/\S+)/.exec(p.output()), (m) => m !== null, `flow serve to listen (output: ${p.output()})`);
  return { ...p, url: line![1]!, wsUrl: `${line![1]!.replace("http", "ws")}/` };
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
const runSeqs = (c: FrameClient, runId: string) => c.frames.filter((f) => f.event === "run.event" && f.runId === runId).map((f) => f.seq as number);
const finished = (runId: string) => (f: any) => f.event === "run.event" && f.runId === runId && f.payload.type === "RunFinished";

describe("a gateway process", () => {
  it("killed with SIGKILL mid-run and started again resumes the run; a subscriber resuming with afterSeq sees each event once, in order", { timeout: 90_000 }, async () => {
    const dir = tempDir("flow-gw-proc-");
    const env = { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "tasks.log") };
    const first = await serve(env, dir);
    const c1 = await FrameClient.open(first.wsUrl);
    await c1.connect();
    const runId = (await c1.request("launchRun", { workflow: "slow", runId: "survivor", input: { steps: 4, stepMs: 400 } })).result.runId as string;
    await c1.request("streamRunEvents", { runId });
    await until(() => lines(env.FLOW_TEST_LOG), (l) => l.includes("step-1"), "step-1 to start");
    await c1.waitFor((f) => f.event === "run.event" && f.payload.type === "TaskStarted" && f.payload.nodeId === "step-1");
    first.child.kill("SIGKILL");
    await first.exited;
    const seen = runSeqs(c1, runId);

    const second = await serve(env, dir);
    const c2 = await FrameClient.open(second.wsUrl);
    await c2.connect({ subscribe: [{ runId, afterSeq: seen.at(-1) }] });
    await c2.waitFor(finished(runId), 40_000);
    const all = [...seen, ...runSeqs(c2, runId)];
    expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    expect(c2.frames.find((f) => f.event === "run.event" && f.payload.type === "RunResumed")?.payload).toMatchObject({ takeover: true, previousStatus: "running" });
    const log = lines(env.FLOW_TEST_LOG);
    expect(log.filter((l) => l === "step-0")).toHaveLength(1);
    expect(log.filter((l) => l === "step-3")).toHaveLength(1);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("streams a run executed by flow up beside it to its subscribers, live, through the event bridge", { timeout: 60_000 }, async () => {
    const t = await startTestGateway({ outOfProcessEventBridgePollMs: 50 });
    const up = flow(["up", join(SERVE_DIR, "slow.tsx"), "--run-id", "elsewhere", "--input", '{"steps":6,"stepMs":150}', "--log-dir", "none", "--quiet"], { FLOW_TEST_DB: t.dbPath }, dirname(t.dbPath));
    await until(() => t.gateway.host.db.getRun("elsewhere"), (r) => r !== undefined, "the run row");
    const c = await FrameClient.open(t.wsUrl);
    await c.connect();
    const sub = await c.request("streamRunEvents", { runId: "elsewhere" });
    await c.waitFor(finished("elsewhere"), 40_000);
    const seqs = runSeqs(c, "elsewhere");
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(sub.result.lastSeq).toBeLessThan(seqs.length);
    expect(t.gateway.host.activeRun("elsewhere")).toBeUndefined();
    expect(await up.exited).toBe(0);
  });
});
