/**
 * Runs the library examples (examples/library-*.tsx) in-process on a fresh SQLite store per
 * test, with their scripted agents, and asserts the rows each component writes and what its
 * agents were asked. Crash-and-resume of every component is node/engine/library-crash.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createFlow, FlowDb, listPendingApprovals, runWorkflow, submitApproval, submitHumanTask } from "durable-flow";
import type { OutputTarget } from "durable-flow";

const TMP = mkdtempSync(join(tmpdir(), "flow-library-"));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(TMP, { recursive: true, force: true });
});
vi.stubEnv("FLOW_EXAMPLE_DB", join(TMP, "default.db"));
let stores = 0;
const freshDb = () => join(TMP, `library-${++stores}.db`);

const rowsOf = async (db: FlowDb, runId: string, table: OutputTarget) =>
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

describe("examples/library-fanout.tsx", () => {
  it("gathers and synthesizes, votes, checks by majority, routes tickets and compares the sidecar", async () => {
    const ex = await import("./library-fanout.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const agents = ex.fanoutAgents();
    const tickets = [
      { id: "t1", text: "invoice charged twice" },
      { id: "t2", text: "crash on login" },
      { id: "t3", text: "where is the logo" },
    ];
    const r = await runWorkflow(ex.chooseVendor(api, agents), { input: { vendor: "acme", tickets } });
    expect(r).toMatchObject({ status: "finished", output: { vendor: "acme", decision: "acme", checksPassed: true, replies: 3, cheaperWins: false } });
    const db = new FlowDb(api.db);
    const { outputs } = api;
    // GatherAndSynthesize: three sources (two at a time), then one brief naming them all.
    expect((await rowsOf(db, r.runId, outputs.finding)).map((f) => f.nodeId).sort()).toEqual(["research:docs", "research:pricing", "research:reviews"]);
    expect(await rowsOf(db, r.runId, outputs.brief)).toEqual([{ nodeId: "research:synthesis", iteration: 0, summary: "Brief from docs, pricing, reviews" }]);
    // Panel: each panelist asked in its role; the moderator got the tally and the winner.
    expect(agents.panelists[1]!.calls[0]!.prompt).toContain("You are the panel's buyer.");
    expect(agents.moderator.calls[0]!.prompt).toContain('Votes: {"acme":2,"globex":1}. The vote chose "acme"');
    expect((await rowsOf(db, r.runId, outputs.opinion)).map((o) => o.vote)).toEqual(["acme", "acme", "globex"]);
    // CheckSuite: SLA failed, two of three passed: a majority.
    const checks = await rowsOf(db, r.runId, outputs.check);
    expect(checks.find((c) => c.nodeId === "due-diligence:sla")).toMatchObject({ passed: false, summary: "99.5% < 99.9%" });
    expect(checks.find((c) => c.nodeId === "due-diligence:verdict")).toMatchObject({ passed: true, summary: "2 of 3 checks passed (majority)", failed: ["sla"] });
    // ClassifyAndRoute: billing, bug, and the unknown category to the default desk.
    expect((await rowsOf(db, r.runId, outputs.label)).map((l) => [l.nodeId, l.category])).toEqual([
      ["support:classify-t1", "billing"],
      ["support:classify-t2", "bug"],
      ["support:classify-t3", "other"],
    ]);
    expect((await rowsOf(db, r.runId, outputs.reply)).map((l) => [l.nodeId, l.desk])).toEqual([
      ["support:handle-t1", "billing"],
      ["support:handle-t2", "bug"],
      ["support:handle-t3", "default"],
    ]);
    expect(agents.desks.bug.calls[0]!.prompt).toContain("Reproduce and answer.");
    // Sidecar: the big model covers both words, the small one half of them.
    expect(await rowsOf(db, r.runId, outputs.delta)).toEqual([{ nodeId: "recommend:delta", iteration: 0, primaryScore: 1, sidecarScore: 0.5, delta: -0.5, cheaperWins: false }]);
    expect((await rowsOf(db, r.runId, outputs.recommendation)).map((x) => x.nodeId)).toEqual(["recommend", "recommend:sidecar"]);
    // Aspects: the research spent 1200 tokens of its 2000, shown on the block in frames.
    expect(JSON.stringify((await db.getFrame(r.runId))!.xml)).toContain('"id":"research-budget","tokens":"1200"');
  });

  it("skips the synthesis once the research spent its Aspects token budget", async () => {
    const ex = await import("./library-fanout.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const agents = ex.fanoutAgents();
    const r = await runWorkflow(ex.chooseVendor(api, agents, { researchTokens: 1000 }), { input: { vendor: "acme", tickets: [] } });
    expect(r.status).toBe("finished");
    expect(agents.writer.calls).toEqual([]);
    expect((await new FlowDb(api.db).listNodes(r.runId)).find((n) => n.nodeId === "research:synthesis")?.state).toBe("cancelled");
  });

  it("reports no consensus when fewer than minAgree panelists agree", async () => {
    const ex = await import("./library-fanout.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const agents = ex.fanoutAgents(["acme", "globex", "initech"]);
    const r = await runWorkflow(ex.chooseVendor(api, agents, { strategy: "consensus" }), { input: { vendor: "acme", tickets: [] } });
    expect(r).toMatchObject({ status: "finished", output: { decision: "undecided", replies: 0 } });
    expect(agents.moderator.calls[0]!.prompt).toContain("No consensus (2 of 3 needed)");
  });
});

describe("examples/library-flows.tsx", () => {
  it("pages by table, escalates to the senior, gates risky steps on approval, debates, writes the postmortem and moves tickets", async () => {
    const ex = await import("./library-flows.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const agents = ex.flowsAgents(false);
    const wf = ex.handleIncident(api, agents);
    const input = { severity: "sev2" as const, service: "api", followUps: [{ id: "f1", title: "alert on queue depth" }, { id: "f2", title: "add a canary" }] };
    const first = await runWorkflow(wf, { input });
    expect(first.status).toBe("waiting-approval");
    const db = new FlowDb(api.db);
    const { outputs } = api;
    // The safe step ran; the risky one waits with the runbook's request.
    expect((await rowsOf(db, first.runId, outputs.step)).map((s) => s.nodeId)).toEqual(["runbook:health"]);
    const pending = await listPendingApprovals(api, { runId: first.runId });
    expect(pending.map((p) => [p.nodeId, p.request.request])).toEqual([
      ["runbook:drain", { title: "Run risky step drain?", summary: "Restoring api", metadata: { risk: "risky", step: "drain", command: "kubectl drain api" } }],
    ]);
    await submitApproval(api, { runId: first.runId, nodeId: "runbook:drain", decision: "approve", decidedBy: "ana" });
    const second = await runWorkflow(wf, { runId: first.runId, resume: true });
    expect(second.status).toBe("waiting-approval");
    // The critical step: denied, and the runbook's onDeny "skip" goes on without it.
    await submitApproval(api, { runId: first.runId, nodeId: "runbook:restart", decision: "deny", decidedBy: "ana" });
    const done = await runWorkflow(wf, { runId: first.runId, resume: true });
    expect(done).toMatchObject({
      status: "finished",
      output: { paged: ["oncall"], resolvedBy: "senior", restored: false, choice: "rollback", postmortem: "Edited: Draft from outline: 1. impact 2. cause 3. actions", ticketsDone: 2 },
    });
    expect((await db.listNodes(first.runId)).find((n) => n.nodeId === "runbook:restart")?.state).toBe("skipped");
    expect((await rowsOf(db, first.runId, outputs.step)).map((s) => [s.nodeId, s.log])).toEqual([
      ["runbook:drain", "kubectl drain api"],
      ["runbook:health", "api unhealthy"],
    ]);
    // EscalationChain: the bot escalated, the senior answered with what the bot said.
    expect(await rowsOf(db, first.runId, outputs.escalation)).toEqual([{ nodeId: "customer", iteration: 0, resolvedBy: "senior", level: 1, escalated: true }]);
    expect(agents.senior.calls[0]!.prompt).toContain("Have you tried restarting?");
    // Debate: one argument per side per round, the opponent seeing the proposer's.
    expect((await rowsOf(db, first.runId, outputs.argument)).map((a) => [a.nodeId, a.argument])).toEqual([
      ["plan:against-1", "roll back, round 1"],
      ["plan:against-2", "roll back, round 2"],
      ["plan:for-1", "fix forward, round 1"],
      ["plan:for-2", "fix forward, round 2"],
    ]);
    expect(agents.optimist.calls.map((c) => c.nodeId)).toEqual(["plan:for-1", "plan:for-2"]);
    expect(agents.skeptic.calls[0]!.prompt).toContain("Round 1, for: fix forward, round 1");
    // Kanban: each ticket went through triage, then fix with the triage note.
    expect((await rowsOf(db, first.runId, outputs.ticket)).map((t) => [t.nodeId, t.note])).toEqual([
      ["follow-ups:f1:fix", 'fixed after "triaged f1"'],
      ["follow-ups:f1:triage", "triaged f1"],
      ["follow-ups:f2:fix", 'fixed after "triaged f2"'],
      ["follow-ups:f2:triage", "triaged f2"],
    ]);
  });

  it("reaches a person when every level escalates, and takes a sev3 to the default rule", async () => {
    const ex = await import("./library-flows.js");
    const api = createFlow(ex.schemas, { dbPath: freshDb() });
    const wf = ex.handleIncident(api, ex.flowsAgents(true));
    const first = await runWorkflow(wf, { input: { severity: "sev3", service: "web", followUps: [] } });
    expect(first.status).toBe("waiting-approval");
    const waits = (await new FlowDb(api.db).listNodes(first.runId)).filter((n) => n.state.startsWith("waiting"));
    expect(waits.map((n) => n.nodeId).sort()).toEqual(["customer:human"]);
    await submitHumanTask(api, { runId: first.runId, nodeId: "customer:human", value: { text: "Sorry, fixed now." }, submittedBy: "lee" });
    await runWorkflow(wf, { runId: first.runId, resume: true });
    await submitApproval(api, { runId: first.runId, nodeId: "runbook:drain", decision: "approve" });
    await runWorkflow(wf, { runId: first.runId, resume: true });
    await submitApproval(api, { runId: first.runId, nodeId: "runbook:restart", decision: "approve" });
    const done = await runWorkflow(wf, { runId: first.runId, resume: true });
    expect(done).toMatchObject({ status: "finished", output: { paged: ["ticket-queue"], resolvedBy: "human", restored: true, ticketsDone: 0 } });
    expect(await rowsOf(new FlowDb(api.db), first.runId, api.outputs.escalation)).toEqual([{ nodeId: "customer", iteration: 0, resolvedBy: "human", level: 2, escalated: true }]);
  });
});
