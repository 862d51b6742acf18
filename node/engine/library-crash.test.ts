/**
 * Every library component survives a SIGKILL in its middle: the three library examples run
 * in a real `flow up` process that is killed while a component is half done (an agent step
 * in flight, or a timer or approval pending), and resumed in a new process each time. At the
 * end, no step that had finished before a kill ran again, and the run ends finished.
 * (DecisionTable has no step of its own to interrupt: it only chooses what renders.)
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createFlow, submitApproval } from "durable-flow";
import { tempDir } from "../testing/backends.js";

const TASK_MS = "80";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/engine/fixtures/library-crash-workflow.tsx");

/** Where to act: kill when `nodeId@iteration` is in `state`, or approve it when it waits. */
type Point = { kill: string; state: "in-progress" | "waiting-timer" | "waiting-approval"; component: string } | { approve: string };

const INPUTS: Record<string, unknown> = {
  iterate: { version: "3.1.0", buildReadyAfter: 2, vulnerable: ["lodash"] },
  fanout: { vendor: "acme", tickets: [{ id: "t1", text: "invoice twice" }, { id: "t2", text: "crash on login" }] },
  flows: { severity: "sev2", service: "api", followUps: [{ id: "f1", title: "alert on queue depth" }, { id: "f2", title: "add a canary" }] },
};

const POINTS: Record<string, Point[]> = {
  iterate: [
    { kill: "build:wait@1", state: "waiting-timer", component: "Poller" },
    { kill: "audit:fix@0", state: "in-progress", component: "ScanFixVerify" },
    { kill: "changelog:review@0", state: "in-progress", component: "ReviewLoop" },
    { kill: "announce:generate@1", state: "in-progress", component: "Optimizer" },
    { kill: "config:compare@0", state: "in-progress", component: "DriftDetector" },
  ],
  fanout: [
    { kill: "research:synthesis@0", state: "in-progress", component: "GatherAndSynthesize (inside Aspects)" },
    { kill: "panel:moderator@0", state: "in-progress", component: "Panel" },
    { kill: "due-diligence:license@0", state: "in-progress", component: "CheckSuite" },
    { kill: "support:handle-t2@0", state: "in-progress", component: "ClassifyAndRoute" },
    { kill: "recommend:sidecar@0", state: "in-progress", component: "Sidecar" },
  ],
  flows: [
    { kill: "customer:level-2@0", state: "in-progress", component: "EscalationChain" },
    { kill: "runbook:drain@0", state: "waiting-approval", component: "Runbook" },
    { approve: "runbook:drain" },
    { approve: "runbook:restart" },
    { kill: "plan:against-1@0", state: "in-progress", component: "Debate" },
    { kill: "pm-draft@0", state: "in-progress", component: "ContentPipeline" },
    { kill: "follow-ups:f2:fix@0", state: "in-progress", component: "Kanban" },
  ],
};

interface FlowProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Set once the process exited: its code and what it printed on stderr. */
  ended?: { code: number | null; stderr: string };
}

function flowUp(args: string[], env: Record<string, string>, cwd: string): FlowProcess {
  // The process works in a scratch directory: in the repository it would snapshot its files.
  const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", FIXTURE, "--log-dir", "none", "--wait", "--quiet", ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const proc: FlowProcess = { child, exited: new Promise((resolve) => child.on("exit", (code) => ((proc.ended = { code, stderr }), resolve(code)))) };
  return proc;
}

/** Waits for `check`, failing at once if the workflow process ended on its own meanwhile. */
async function until(check: () => boolean, what: string, proc: FlowProcess, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (proc.ended) throw new Error(`the flow process exited (${proc.ended.code}) before ${what}: ${proc.ended.stderr}`);
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// The three examples run side by side: most of their time is spent starting processes.
describe("library examples killed mid-component", () => {
  it.concurrent.each(Object.keys(POINTS))("%s resumes after every kill without repeating a finished step", async (example) => {
    const dir = tempDir();
    const dbPath = join(dir, "flow.db");
    const env = { FLOW_EXAMPLE_DB: dbPath, FLOW_TEST_EXAMPLE: example, FLOW_TEST_TASK_MS: TASK_MS };
    const runId = `crash-${example}`;
    const points = POINTS[example]!;
    // Each process holds the next step the test kills in (see the fixture).
    const holding = (from: number) => {
      const next = points.slice(from).find((p) => "kill" in p && p.state === "in-progress");
      return { ...env, ...(next && "kill" in next ? { FLOW_TEST_HOLD: next.kill } : {}) };
    };
    let proc = flowUp(["--run-id", runId, "--input", JSON.stringify(INPUTS[example])], holding(0), dir);
    let reader: Database.Database | undefined;
    const db = () => (reader ??= new Database(dbPath, { readonly: true, fileMustExist: true }));
    const state = (key: string) => {
      const [nodeId, iteration] = key.split("@");
      try {
        return (db().prepare(`SELECT state FROM _flow_nodes WHERE run_id = ? AND node_id = ? AND iteration = ?`).get(runId, nodeId, Number(iteration)) as { state: string } | undefined)?.state;
      } catch {
        return undefined;
      }
    };
    const attempts = () =>
      new Map(
        (db().prepare(`SELECT node_id || '@' || iteration AS k, COUNT(*) AS n, SUM(CASE WHEN state = 'finished' THEN 1 ELSE 0 END) AS f FROM _flow_attempts WHERE run_id = ? GROUP BY node_id, iteration`).all(runId) as Array<{ k: string; n: number; f: number }>).map((r) => [r.k, r]),
      );
    const settledAtKills: Array<{ component: string; finished: Map<string, number> }> = [];
    const api = createFlow({}, { dbPath });

    for (const [index, point] of points.entries()) {
      if ("approve" in point) {
        await until(() => state(`${point.approve}@0`) === "waiting-approval", `${point.approve} to wait`, proc);
        await submitApproval(api, { runId, nodeId: point.approve, decision: "approve", decidedBy: "test" });
        continue;
      }
      await until(() => state(point.kill) === point.state, `${point.kill} ${point.state}`, proc);
      proc.child.kill("SIGKILL");
      await proc.exited;
      const finished = new Map([...attempts()].filter(([, r]) => r.f > 0).map(([k, r]) => [k, r.n]));
      expect(finished.size, `steps finished before the kill in ${point.component}`).toBeGreaterThan(0);
      settledAtKills.push({ component: point.component, finished });
      proc = flowUp(["--run-id", runId, "--resume"], holding(index + 1), dir);
    }
    expect(await proc.exited).toBe(0);
    const run = db().prepare(`SELECT status FROM _flow_runs WHERE run_id = ?`).get(runId) as { status: string };
    expect(run.status).toBe("finished");
    const end = attempts();
    for (const { component, finished } of settledAtKills) {
      for (const [key, n] of finished) expect(end.get(key)!.n, `${key} finished before the kill in ${component}, then ran again`).toBe(n);
    }
    for (const [key, r] of end) expect(r.f, `${key} finished more than once`).toBe(1);
    reader?.close();
  }, 120_000);
});
