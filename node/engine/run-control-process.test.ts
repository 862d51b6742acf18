/**
 * Issue 23 across real processes: a run remembers the directory it started in (a `flow up`
 * from another folder resuming it runs its git commands there), and a run executed by one
 * process is cancelled or paused from another (`flow cancel`, `flow pause`, a Gateway's
 * `cancelRun` on a run `flow up` started).
 */
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { flowDbFile } from "../testing/flow-db-file.js";
import { flowProcess } from "../testing/flow-process.js";
import { FrameClient, until } from "../server/gateway-testing.js";
import { tempDir } from "../testing/backends.js";
import { tempRepo } from "../vcs/testing.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONTROL_DIR = join(ROOT, "node/engine/fixtures/control");
const FIXTURE = join(CONTROL_DIR, "control.tsx");

const flow = (args: string[], env: Record<string, string>, cwd: string) => flowProcess(args, { NO_COLOR: "1", ...env }, cwd);

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);
const requestedOf = async (db: string, runId: string) =>
  (await flowDbFile(db).store.query<{ requested_state: string | null }>(`SELECT requested_state FROM _flow_runs WHERE run_id = ?`, [runId]))[0]?.requested_state ?? null;
const heartbeatOf = async (db: string, runId: string) =>
  (await flowDbFile(db).store.query<{ heartbeat_at_ms: number | null }>(`SELECT heartbeat_at_ms FROM _flow_runs WHERE run_id = ?`, [runId]))[0]?.heartbeat_at_ms ?? null;
const statusOf = async (db: string, runId: string) => (await flowDbFile(db).requireRun(runId)).status;

/** Waits for the fixture's `slow` task to start (a loaded machine takes long to start a CLI). */
async function slowStarted(env: { FLOW_TEST_LOG: string }, what: string): Promise<void> {
  await until(() => lines(env.FLOW_TEST_LOG), (l) => l.some((x) => x.startsWith("slow start")), what, 120_000);
}

function setup(prefix: string) {
  const dir = tempDir(prefix);
  return { dir, env: { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_LOG: join(dir, "tasks.log") } };
}

describe("controlling runs across processes (issue 23)", () => {
  it("a run started with --root-dir A and resumed by flow up from folder B runs its git commands in A", { timeout: 300_000 }, async () => {
    const { env } = setup("flow-rootdir-");
    const a = realpathSync(tempRepo());
    const b = realpathSync(tempRepo());
    const first = flow(["up", FIXTURE, "--run-id", "r1", "--root-dir", a, "--json", "--log-dir", "none"], env, b);
    await slowStarted(env, `slow to start (${first.output()})`);
    first.child.kill("SIGKILL");
    await first.exited;
    // From folder B, no --root-dir: the run works where it recorded.
    const second = flow(["up", FIXTURE, "--run-id", "r1", "--resume", "--json", "--log-dir", "none"], { ...env, FLOW_TEST_TASK_MS: "10" }, b);
    expect(await second.exited, second.output()).toBe(0);
    expect(lines(env.FLOW_TEST_LOG)).toEqual([`where ${a}`, `slow start ${a}`, `slow start ${a}`, "slow end", "after"]);
    const run = await flowDbFile(env.FLOW_TEST_DB).requireRun("r1");
    expect(run).toMatchObject({ status: "finished", rootDir: a, workflowPath: FIXTURE });
  });

  it("refuses to resume a run whose directory is gone, naming it (RUN_WORKSPACE_MISSING)", { timeout: 300_000 }, async () => {
    const { env, dir } = setup("flow-rootdir-gone-");
    const a = realpathSync(tempRepo());
    const first = flow(["up", FIXTURE, "--run-id", "r1", "--root-dir", a, "--log-dir", "none"], env, dir);
    await slowStarted(env, "slow to start");
    first.child.kill("SIGKILL");
    await first.exited;
    rmSync(a, { recursive: true, force: true });
    const second = flow(["up", FIXTURE, "--run-id", "r1", "--resume", "--log-dir", "none"], env, dir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain("RUN_WORKSPACE_MISSING");
    expect(second.output()).toContain(a);
  });

  it("flow pause and flow cancel stop a run that another flow up process executes; flow resume continues it", { timeout: 300_000 }, async () => {
    const { env, dir } = setup("flow-control-");
    const repo = realpathSync(tempRepo());
    const release = join(dir, "release");
    const up = flow(["up", FIXTURE, "--run-id", "r1", "--root-dir", repo, "--json", "--log-dir", "none"], { ...env, FLOW_TEST_RELEASE: release }, dir);
    await slowStarted(env, `slow to start (${up.output()})`);
    const pause = flow(["pause", "r1", "--db", env.FLOW_TEST_DB], env, dir);
    // The request is on the run; the in-flight task is let finish, then the other process parks the run.
    await until(() => requestedOf(env.FLOW_TEST_DB, "r1"), (r) => r === "pause", `the pause request (${pause.output()})`, 120_000);
    // The owner's claim heartbeat reads the request; then the in-flight task may end. A beat
    // that started after the request was seen has read it once the next beat is written (each
    // beat is armed when the previous one finished).
    const seen = Date.now();
    const first = await until(() => heartbeatOf(env.FLOW_TEST_DB, "r1"), (at) => at !== null && at > seen, "a heartbeat after the pause request", 120_000);
    await until(() => heartbeatOf(env.FLOW_TEST_DB, "r1"), (at) => at !== null && at > first!, "the heartbeat after that", 120_000);
    writeFileSync(release, "");
    expect(await pause.exited, pause.output()).toBe(0);
    expect(pause.output()).toContain("Run r1 is paused");
    expect(await up.exited, up.output()).toBe(0);
    expect(up.output()).toContain('"status":"paused"');
    expect(lines(env.FLOW_TEST_LOG)).toContain("slow end");
    expect(lines(env.FLOW_TEST_LOG)).not.toContain("after");

    // Resumed in this terminal, by run id alone (the run recorded its workflow file).
    const { env: env2, dir: dir2 } = setup("flow-control-2-");
    const up2 = flow(["up", FIXTURE, "--run-id", "r2", "--root-dir", repo, "--json", "--log-dir", "none"], env2, dir2);
    await slowStarted(env2, `slow to start (${up2.output()})`);
    const cancel = flow(["cancel", "r2", "--db", env2.FLOW_TEST_DB], env2, dir2);
    expect(await cancel.exited, cancel.output()).toBe(0);
    expect(cancel.output()).toContain("Run r2 is cancelled");
    expect(await up2.exited, up2.output()).toBe(130);
    expect(lines(env2.FLOW_TEST_LOG)).toContain("slow aborted");
    expect(await statusOf(env2.FLOW_TEST_DB, "r2")).toBe("cancelled");

    const resume = flow(["resume", "r1", "--db", env.FLOW_TEST_DB, "--json"], env, dir);
    expect(await resume.exited, resume.output()).toBe(0);
    expect(await statusOf(env.FLOW_TEST_DB, "r1")).toBe("finished");
    expect(lines(env.FLOW_TEST_LOG).at(-1)).toBe("after");
  });

  it("a Gateway serving the workflow cancels a run flow up started, and names the workflow", { timeout: 300_000 }, async () => {
    const { env, dir } = setup("flow-gw-cancel-");
    const repo = realpathSync(tempRepo());
    const up = flow(["up", FIXTURE, "--run-id", "r1", "--root-dir", repo, "--json", "--log-dir", "none"], env, dir);
    await slowStarted(env, `slow to start (${up.output()})`);
    const serve = flow(["serve", CONTROL_DIR, "--port", "0"], env, dir);
    const line = await until(() => /listening on (http:\/\/\S+)/.exec(serve.output()), (m) => m !== null, `flow serve to listen (${serve.output()})`, 120_000);
    const client = await FrameClient.open(`${line![1]!.replace("http", "ws")}/`);
    await client.connect();
    const workflows = (await client.request("listWorkflows")).result as { workflows?: Array<{ key: string; name: string | null }> } | Array<{ key: string; name: string | null }>;
    const rows = Array.isArray(workflows) ? workflows : (workflows.workflows ?? []);
    expect(rows.find((w) => w.key === "control")?.name).toBe("control");
    const cancelled = await client.request("cancelRun", { runId: "r1" });
    expect(cancelled.error ?? null).toBeNull();
    expect(cancelled.result).toMatchObject({ runId: "r1", status: "cancelled" });
    expect(await up.exited, up.output()).toBe(130);
    expect(lines(env.FLOW_TEST_LOG)).toContain("slow aborted");
  });

  it("the workflow hash is the same under flow up (tsx) and vitest: resuming here warns of no change", { timeout: 300_000 }, async () => {
    const { env } = setup("flow-hash-");
    const repo = realpathSync(tempRepo());
    const up = flow(["up", FIXTURE, "--run-id", "r1", "--root-dir", repo, "--log-dir", "none"], env, repo);
    await slowStarted(env, `slow to start (${up.output()})`);
    up.child.kill("SIGKILL");
    await up.exited;
    for (const [name, value] of Object.entries({ ...env, FLOW_TEST_TASK_MS: "10" })) vi.stubEnv(name, value);
    onTestFinished(() => void vi.unstubAllEnvs());
    const { default: workflow } = await import("./fixtures/control/control.js");
    const { runWorkflow } = await import("../index.js");
    const seen: string[] = [];
    const result = await runWorkflow(workflow, { runId: "r1", resume: true, logDir: null, onProgress: (e) => void seen.push(e.type) });
    expect(result.status).toBe("finished");
    expect(seen).toContain("RunResumed");
    expect(seen).not.toContain("WorkflowChanged");
    await (await import("../../core/binding.js")).bindingOf(workflow).store.close();
  });
});
