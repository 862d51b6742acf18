/**
 * Runs the library examples (examples/library-*.tsx) in-process on a fresh SQLite store per
 * test, with their scripted agents, and asserts the rows each component writes and what its
 * agents were asked. Crash-and-resume of every component is node/engine/library-crash.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createFlow, FlowDb, runWorkflow } from "durable-flow";

const TMP = mkdtempSync(join(tmpdir(), "flow-library-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
process.env.FLOW_EXAMPLE_DB = join(TMP, "default.db");
let stores = 0;
const freshDb = () => join(TMP, `library-${++stores}.db`);

const rowsOf = async (db: FlowDb, runId: string, table: unknown) =>
  (await db.listOutputs(runId, table)).map(({ runId: _r, ...row }) => row as Record<string, unknown>);

describe("examples/library-iterate.tsx", () => {
  it("polls, fixes until clean, reviews until approved, optimizes to the target and pages on drift", async () => {
    const ex = await import("./library-iterate.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const agents = ex.iterateAgents(2);
    const r = await runWorkflow(ex.hardenRelease(api, agents, { pollMs: 5 }), {
      input: { version: "3.1.0", buildReadyAfter: 3, vulnerable: ["lodash", "minimist"] },
      stayWhileWaiting: true,
    });
    expect(r).toMatchObject({
      status: "finished",
      output: { version: "3.1.0", buildChecks: 3, changelog: "3.1: faster sync. Breaking changes: none.", tweet: "Flow 3.1 is out: faster sync.", drifted: true },
    });
    const db = new FlowDb(api.db);
    const { outputs } = api;
    // Poller: three checks, the third satisfied, with durable timers between them.
    expect((await rowsOf(db, r.runId, outputs.probe)).map((p) => [p.nodeId, p.iteration, p.satisfied])).toEqual([
      ["build:check", 0, false],
      ["build:check", 1, false],
      ["build:check", 2, true],
    ]);
    const timers = (await db.listNodes(r.runId)).filter((n) => n.nodeId === "build:wait");
    expect(timers.map((n) => [n.iteration, n.state])).toEqual([
      [1, "finished"],
      [2, "finished"],
    ]);
    // ScanFixVerify: one round found both packages, the fix patched them, verify passed.
    expect((await rowsOf(db, r.runId, outputs.scan)).map((s) => s.findings)).toEqual([["lodash", "minimist"]]);
    expect((await rowsOf(db, r.runId, outputs.fix)).map((s) => s.patched)).toEqual([["lodash", "minimist"]]);
    expect((await rowsOf(db, r.runId, outputs.verify)).map((s) => [s.nodeId, s.passed])).toEqual([["audit:verify", true]]);
    // ReviewLoop: rejected once, then approved; the second draft was asked with the feedback.
    expect((await rowsOf(db, r.runId, outputs.review)).map((s) => s.approved)).toEqual([false, true]);
    expect(agents.writer.calls[1]!.prompt).toContain("Say whether anything breaks.");
    // Optimizer: the long tweet scored below 1, the shorter one reached the target.
    const scores = (await rowsOf(db, r.runId, outputs.score)).map((s) => s.score as number);
    expect(scores).toHaveLength(2);
    expect(scores[0]).toBeLessThan(1);
    expect(scores[1]).toBe(1);
    // DriftDetector: replicas differ from the baseline, so the alert ran.
    expect((await rowsOf(db, r.runId, outputs.diff)).map((d) => [d.drifted, d.changed])).toEqual([[true, ["replicas"]]]);
    expect(await rowsOf(db, r.runId, outputs.page)).toEqual([{ nodeId: "page-oncall", iteration: 0, to: "oncall", message: "Config drift: replicas" }]);
  });

  it("fails with LOOP_MAX_ITERATIONS when the build never goes green (Poller onTimeout fail)", async () => {
    const ex = await import("./library-iterate.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const r = await runWorkflow(ex.hardenRelease(api, ex.iterateAgents(3), { pollMs: 1 }), {
      input: { version: "3.1.0", buildReadyAfter: 99, vulnerable: [] },
      stayWhileWaiting: true,
    });
    expect(r).toMatchObject({ status: "failed", error: { code: "LOOP_MAX_ITERATIONS", details: { loopId: "build", maxIterations: 5 } } });
    expect(await new FlowDb(api.db).listOutputs(r.runId, api.outputs.probe)).toHaveLength(5);
  });
});
