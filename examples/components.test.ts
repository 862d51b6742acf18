/**
 * Runs every component example for real: in-process through `runWorkflow` on a fresh SQLite
 * store per test, delivering with the library's own delivery functions; the approvals example's
 * documented command lines through the CLI's entry (`main(argv, io)`); and the `flow` binary in
 * a child process where the process is the point (`flow up` of a default export, a worktree of
 * the working directory's repository). Each example module is
 * imported once with `FLOW_EXAMPLE_DB` pointing into a temp directory, so its default store
 * (used by `main()` and the CLI) never lands in the repository.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createFlow,
  FlowDb,
  type FlowEvent,
  listPendingApprovals,
  listRunsToWake,
  removeRunWorkspaces,
  runWorkflow,
  submitApproval,
  submitEvent,
  submitHumanTask,
  submitSignal,
} from "durable-flow";
import type { CliIO } from "../node/cli/command.js";
import { main as cliMain } from "../node/cli/main.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TMP = mkdtempSync(join(tmpdir(), "flow-components-"));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(TMP, { recursive: true, force: true });
});

let stores = 0;
/** A fresh store file for one test. */
const freshDb = (name: string) => join(TMP, `${name}-${++stores}.db`);

/** Imports an example with its default store in the temp directory. */
async function load<T>(name: string, importer: () => Promise<T>): Promise<T> {
  vi.stubEnv("FLOW_EXAMPLE_DB", join(TMP, `${name}-default.db`));
  return importer();
}

/** Runs the `flow` CLI in a child process. */
function flowCli(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, "node/cli/bin.mjs"), ...args], { cwd: opts.cwd ?? TMP, env: { ...process.env, ...opts.env }, encoding: "utf8" }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the `flow` CLI's own entry (`main(argv, io)`) in this process, in the temp directory. */
async function flowMain(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: TMP, env: {}, isTTY: false };
  const code = await cliMain(argv, io);
  return { code, stdout, stderr };
}

/** The `RunResult` a `flow up --quiet` printed. */
const resultOf = (stdout: string) => JSON.parse(stdout.slice(stdout.indexOf("{"), stdout.lastIndexOf("}") + 1)) as { runId: string; status: string; output?: Record<string, unknown> };

const finishedOrder = (events: FlowEvent[]) => events.filter((e) => e.type === "TaskFinished").map((e) => (e as { nodeId: string }).nodeId);

const quietly = () => vi.spyOn(console, "log").mockImplementation(() => undefined);

describe("examples/control-flow.tsx", () => {
  let ex: typeof import("./control-flow.js");
  beforeAll(async () => {
    ex = await load("control-flow", () => import("./control-flow.js"));
  });

  it("classifies in parallel, writes the migration guide of a breaking change, trims the notes in a loop, tags and announces", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("control-flow") });
    const commits = ["feat: streaming replies", "fix!: drop the v1 API", "chore: bump deps"];
    const r = await runWorkflow(ex.releaseNotes(api), { input: { version: "2.0.0", commits, maxWords: 12 } });
    expect(r).toMatchObject({ status: "finished", output: { version: "2.0.0", breaking: true } });
    expect((r.output as { notes: string }).notes).toBe("2.0.0:\n- breaking: drop the v1 API\n- feature: streaming replies\nMigration:\nBefore upgrading to 2.0.0: drop the v1 API");
    const db = new FlowDb(api.db);
    const states = Object.fromEntries((await db.listNodes(r.runId)).map((n) => [`${n.nodeId}#${n.iteration}`, n.state]));
    expect(states).toMatchObject({ "classify-0#0": "finished", "classify-1#0": "finished", "classify-2#0": "finished", "migration-guide#0": "finished", "upgrade-note#0": "cancelled", "draft#0": "finished", "draft#1": "finished", "tag#0": "finished", "announce#0": "finished" });
    // The first draft (15 words) was too long; the second pass dropped the chore line.
    expect((await db.listOutputs(r.runId, "draft")).map((d) => d.words)).toEqual([15, 11]);
    expect(Object.fromEntries((await db.listOutputs(r.runId, "published")).map((p) => [p.nodeId, p.ref]))).toEqual({ tag: "v2.0.0", announce: "#200" });
  });

  it("takes the else branch without a breaking change, and a dry run skips the release steps", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("control-flow") });
    const r = await runWorkflow(ex.releaseNotes(api), { input: { version: "1.3.0", commits: ["feat: retries", "fix: typo"], dryRun: true } });
    expect(r).toMatchObject({ status: "finished", output: { breaking: false, notes: "1.3.0:\n- feature: retries\n- fix: typo" } });
    const db = new FlowDb(api.db);
    const ids = (await db.listNodes(r.runId)).map((n) => n.nodeId);
    expect(ids).toContain("upgrade-note");
    expect(ids).not.toContain("migration-guide");
    expect(ids).not.toContain("tag");
    expect(await db.listOutputs(r.runId, "published")).toEqual([]);
  });

  it("runs its default export with flow up", async () => {
    const input = JSON.stringify({ version: "0.9.0", commits: ["fix: crash on start"] });
    const cli = await flowCli(["up", join(ROOT, "examples/control-flow.tsx"), "--input", input, "--quiet"], { env: { FLOW_EXAMPLE_DB: join(TMP, "control-flow-cli.db") } });
    expect(cli.code, cli.stderr).toBe(0);
    expect(resultOf(cli.stdout)).toMatchObject({ status: "finished", output: { version: "0.9.0", breaking: false } });
  });
});

describe("examples/approvals.tsx", () => {
  let ex: typeof import("./approvals.js");
  beforeAll(async () => {
    ex = await load("approvals", () => import("./approvals.js"));
  });

  it("goes through the documented CLI steps: up, approvals, submit, approve, approve --select, resumes", async () => {
    // The real commands, in this process (each `flow` child process would spend seconds loading).
    const db = join(TMP, "approvals-default.db"); // the store of the example's default export
    const file = join(ROOT, "examples/approvals.tsx");
    const up = (...args: string[]) => flowMain(["up", file, "--run-id", "claim-1", "--quiet", ...args]);
    const parked = await up("--input", '{"employee":"ana"}');
    expect(parked.code).toBe(0);
    expect(resultOf(parked.stdout)).toMatchObject({ runId: "claim-1", status: "waiting-approval" });

    const listed = await flowMain(["approvals", "--db", db, "--json"]);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ runId: "claim-1", nodeId: "claim", kind: "human" })]);
    const submitted = await flowMain(["submit", "claim-1", "claim", "--value", '{"amount":740,"category":"travel","description":"Berlin offsite"}', "--by", "ana", "--db", db]);
    expect(submitted.code).toBe(0);
    expect(resultOf((await up("--resume")).stdout).status).toBe("waiting-approval");

    expect((await flowMain(["approve", "claim-1", "manager", "--by", "bob", "--note", "ok", "--db", db])).code).toBe(0);
    expect(resultOf((await up("--resume")).stdout).status).toBe("waiting-approval");
    // Finance only: without the scope the CLI refuses, with it the choice is recorded.
    const forbidden = await flowMain(["approve", "claim-1", "payout", "--select", "payroll", "--by", "carla", "--db", db]);
    expect(forbidden).toMatchObject({ code: 1, stderr: expect.stringContaining("APPROVAL_FORBIDDEN") });
    expect((await flowMain(["approve", "claim-1", "payout", "--select", "payroll", "--scope", "finance", "--by", "carla", "--db", db])).code).toBe(0);
    const done = await up("--resume");
    expect(resultOf(done.stdout)).toMatchObject({ status: "finished", output: { employee: "ana", amount: 740, method: "payroll", approvedBy: "bob" } });
  });

  it("rejects an invalid claim, passes the gate at once within policy, and needs the finance scope", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("approvals") });
    const wf = ex.expenseClaim(api);
    const events: FlowEvent[] = [];
    const resume = (runId: string) => runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) });
    const parked = await runWorkflow(wf, { input: { employee: "dan" } });
    expect(parked.status).toBe("waiting-approval");
    expect(await listPendingApprovals(api, { runId: parked.runId })).toEqual([
      expect.objectContaining({ nodeId: "claim", kind: "human", request: expect.objectContaining({ prompt: expect.stringContaining("dan: enter the amount") }) }),
    ]);

    await submitHumanTask(api, { runId: parked.runId, nodeId: "claim", value: { amount: -3, category: "food", description: "x" }, submittedBy: "dan" });
    expect((await resume(parked.runId)).status).toBe("waiting-approval");
    expect(events).toContainEqual(expect.objectContaining({ type: "HumanTaskRejected", nodeId: "claim", attempt: 1, issues: expect.stringContaining("amount") }));

    await submitHumanTask(api, { runId: parked.runId, nodeId: "claim", value: { amount: 42, category: "meals", description: "Team lunch" }, submittedBy: "dan" });
    expect((await resume(parked.runId)).status).toBe("waiting-approval");
    // Within policy: the manager gate approved at once, and only finance is asked.
    expect((await listPendingApprovals(api, { runId: parked.runId })).map((p) => p.nodeId)).toEqual(["payout"]);

    const payout = { runId: parked.runId, nodeId: "payout", decision: { selected: "transfer" } } as const;
    await expect(submitApproval(api, { ...payout, actor: { userId: "eve", scopes: ["hr"] } })).rejects.toMatchObject({ code: "APPROVAL_FORBIDDEN" });
    expect(await submitApproval(api, { ...payout, actor: { userId: "carla", scopes: ["finance"] } })).toMatchObject({ status: "accepted" });
    expect(await submitApproval(api, { ...payout, actor: { userId: "carla", scopes: ["finance"] } })).toMatchObject({ status: "duplicate" });

    const done = await resume(parked.runId);
    expect(done).toMatchObject({ status: "finished", output: { employee: "dan", amount: 42, method: "transfer", approvedBy: "gate" } });
    const db = new FlowDb(api.db);
    expect(await db.listOutputs(done.runId, "decision")).toEqual([expect.objectContaining({ nodeId: "manager", approved: true, decidedBy: "gate" })]);
    expect(await db.listOutputs(done.runId, "policy")).toEqual([expect.objectContaining({ needsManager: false, reason: "within policy" })]);
  });

  it("fails the claim when the manager denies it", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("approvals") });
    const wf = ex.expenseClaim(api);
    const parked = await runWorkflow(wf, { input: { employee: "fay", threshold: 100 } });
    await submitHumanTask(api, { runId: parked.runId, nodeId: "claim", value: { amount: 180, category: "equipment", description: "Second monitor" } });
    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("waiting-approval");
    const [pending] = await listPendingApprovals(api, { runId: parked.runId });
    expect(pending).toMatchObject({ nodeId: "manager", request: { request: { title: "Approve 180 EUR of equipment for fay?", summary: "Second monitor (above 100 EUR)" } } });
    await submitApproval(api, { runId: parked.runId, nodeId: "manager", decision: "deny", note: "use the spare one", decidedBy: "bob" });
    const r = await runWorkflow(wf, { runId: parked.runId, resume: true });
    expect(r).toMatchObject({ status: "failed", error: { code: "APPROVAL_DENIED", message: expect.stringContaining("use the spare one") } });
  });

  it("main() delivers every step from code", async () => {
    quietly();
    const r = await ex.main("gil");
    expect(r).toMatchObject({ status: "finished", output: { employee: "gil", amount: 740, method: "payroll", approvedBy: "bob" } });
  });
});

describe("examples/signals.tsx", () => {
  let ex: typeof import("./signals.js");
  beforeAll(async () => {
    ex = await load("signals", () => import("./signals.js"));
  });

  it("parks on the event, the timer and the signal, taking deliveries made early or twice once", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("signals") });
    const wf = ex.order(api);
    const events: FlowEvent[] = [];
    const resume = (runId: string) => runWorkflow(wf, { runId, resume: true, onProgress: (e) => events.push(e) });
    const parked = await runWorkflow(wf, { runId: "order-7", input: { orderId: "7", withdrawal: "500ms" } });
    expect(parked.status).toBe("waiting-event");
    expect(await listRunsToWake(api)).toEqual([]);

    // The warehouse answers before the run gets there: kept until the Signal is reached. Data
    // that does not match the schema is never taken.
    await submitSignal(api, { name: "shipped", runId: "order-7", payload: { tracking: "x" }, deliveryId: "wh-bad" });
    await submitSignal(api, { name: "shipped", runId: "order-7", payload: { tracking: "JD0007" }, deliveryId: "wh-1" });
    const pay = { name: "payment.received", correlationId: "order-7", payload: { amount: 19.5, method: "card" }, deliveryId: "psp-1" };
    expect(await submitEvent(api, pay)).toEqual({ deliveryId: "psp-1", status: "accepted" });
    expect(await submitEvent(api, pay)).toEqual({ deliveryId: "psp-1", status: "duplicate" });
    expect(await listRunsToWake(api)).toEqual(["order-7"]);

    expect((await resume("order-7")).status).toBe("waiting-timer");
    expect(await listRunsToWake(api)).toEqual([]);
    await vi.waitFor(async () => expect(await listRunsToWake(api)).toEqual(["order-7"]), { timeout: 3000, interval: 50 });
    const done = await resume("order-7");
    expect(done).toMatchObject({ status: "finished", output: { orderId: "7", paid: 19.5, tracking: "JD0007", status: "shipped" } });
    expect(events.filter((e) => e.type === "SignalReceived").map((e) => (e as { name: string; deliveryId: string }).deliveryId)).toEqual(["psp-1", "wh-1"]);
    expect(events.filter((e) => e.type === "TimerFired")).toHaveLength(1);
    expect(await new FlowDb(api.db).listOutputs("order-7", "payment")).toEqual([expect.objectContaining({ nodeId: "paid", amount: 19.5, method: "card" })]);
  });

  it("main() stays with the run while the payment and the shipment arrive", async () => {
    quietly();
    const r = await ex.main("8", "JD0008");
    expect(r).toMatchObject({ status: "finished", output: { orderId: "8", tracking: "JD0008", status: "shipped" } });
  });

  it("escalates when the warehouse does not ship in time (onTimeout continue)", async () => {
    quietly();
    const r = await ex.main("9", null, 300);
    expect(r).toMatchObject({ status: "finished", output: { orderId: "9", paid: 59.9, tracking: null, status: "escalated" } });
    const timedOut = (await new FlowDb(ex.api.db).listEvents(r.runId)).filter((e) => e.type === "WaitTimedOut");
    expect(timedOut).toEqual([expect.objectContaining({ nodeId: "shipped", onTimeout: "continue" })]);
  });
});

describe("examples/recovery.tsx", () => {
  let ex: typeof import("./recovery.js");
  beforeAll(async () => {
    ex = await load("recovery", () => import("./recovery.js"));
  });

  it("completes every step and the finally block when nothing fails", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("recovery") });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(ex.checkout(api), { input: { orderId: "A-1", amount: 80 }, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { status: "paid", actions: ["reserve 1 item", "charge 80 EUR", "book a pickup", "unlock the cart"] } });
    expect(finishedOrder(events)).toEqual(["reserve-stock", "charge-card", "book-courier", "unlock-cart", "receipt"]);
  });

  it("undoes the completed steps in reverse order, then catches the saga's failure and unlocks the cart", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("recovery") });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(ex.checkout(api), { input: { orderId: "A-2", amount: 80, failAt: "courier" }, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { status: "cancelled" } });
    expect(finishedOrder(events)).toEqual(["reserve-stock", "charge-card", "refund-card", "release-stock", "apologize", "unlock-cart", "receipt"]);
    expect(events.filter((e) => e.type === "ScopeFailed").map((e) => (e as { scopeId: string }).scopeId)).toEqual(["order", "checkout"]);
    const db = new FlowDb(api.db);
    const [notice] = await db.listOutputs(r.runId, "notice");
    expect(notice?.text).toMatch(/Saga "order" failed and was compensated: .*book a pickup is unavailable for order A-2/);
    const states = Object.fromEntries((await db.listNodes(r.runId)).map((n) => [n.nodeId, n.state]));
    expect(states).toMatchObject({ "book-courier": "failed", "refund-card": "finished", "release-stock": "finished" });
    expect(states["cancel-courier"]).toBeUndefined(); // the failed step is not compensated
  });

  it("has nothing to undo when the first step fails", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("recovery") });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(ex.checkout(api), { input: { orderId: "A-3", amount: 80, failAt: "stock" }, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { status: "cancelled", actions: ["unlock the cart"] } });
    expect(finishedOrder(events)).toEqual(["apologize", "unlock-cart", "receipt"]);
  });

  it("goes on compensating where it stopped after a pause and resume, running nothing twice", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("recovery") });
    const wf = ex.checkout(api);
    const pause = new AbortController();
    const events: FlowEvent[] = [];
    const first = await runWorkflow(wf, {
      input: { orderId: "A-4", amount: 80, failAt: "courier" },
      pauseSignal: pause.signal,
      onProgress: (e) => {
        events.push(e);
        if (e.type === "TaskFinished" && e.nodeId === "refund-card") pause.abort();
      },
    });
    expect(first.status).toBe("paused");
    const r = await runWorkflow(wf, { runId: first.runId, resume: true, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { status: "cancelled" } });
    expect(finishedOrder(events)).toEqual(["reserve-stock", "charge-card", "refund-card", "release-stock", "apologize", "unlock-cart", "receipt"]);
  });
});

describe("examples/runs.tsx", () => {
  let ex: typeof import("./runs.js");
  beforeAll(async () => {
    ex = await load("runs", () => import("./runs.js"));
  });

  it("checks each pull request in a child run, merges one at a time, and continues as new per batch", async () => {
    const checksApi = createFlow(ex.checkSchemas, { dbPath: freshDb("runs-checks") });
    const api = createFlow(ex.schemas, { dbPath: freshDb("runs") });
    const wf = ex.mergeTrain(api, ex.checks(checksApi));
    const events = new Map<string, FlowEvent[]>();
    const onProgress = (e: FlowEvent) => events.set(e.runId, [...(events.get(e.runId) ?? []), e]);
    const chain = [await runWorkflow(wf, { input: { queue: [101, 102, 103, 104, 105], batchSize: 2 }, onProgress })];
    while (chain.at(-1)!.status === "continued") chain.push(await runWorkflow(wf, { runId: chain.at(-1)!.nextRunId!, resume: true, onProgress }));

    expect(chain.map((r) => r.status)).toEqual(["continued", "continued", "finished"]);
    expect(chain[2]!.output).toEqual({ merged: 4, rejected: [103] });
    const db = new FlowDb(api.db);
    expect((await db.requireRun(chain[0]!.runId)).nextRunId).toBe(chain[1]!.runId);
    expect((await db.requireRun(chain[1]!.runId)).input).toEqual({ queue: [103, 104, 105], batchSize: 2, mergedBefore: 2, rejectedBefore: [] });
    expect((await db.requireRun(chain[2]!.runId)).input).toEqual({ queue: [105], batchSize: 2, mergedBefore: 3, rejectedBefore: [103] });

    // Child runs live in the checks store, named after their parent node.
    const checksDb = new FlowDb(checksApi.db);
    const child = await checksDb.requireRun(`${chain[1]!.runId}/check-103@0`);
    expect(child).toMatchObject({ parentRunId: chain[1]!.runId, status: "finished", output: { pr: 103, green: false, failed: ["test"] } });

    // Merges landed in queue order, each one after the previous had finished.
    const merges = (await Promise.all(chain.map((r) => db.listOutputs(r.runId, "merge")))).flat();
    expect(merges.map((m) => [m.pr, m.position])).toEqual([
      [101, 1],
      [102, 2],
      [104, 3],
      [105, 4],
    ]);
    const first = (events.get(chain[0]!.runId) ?? []).filter((e) => (e.type === "TaskStarted" || e.type === "TaskFinished") && e.nodeId.startsWith("merge-"));
    expect(first.map((e) => `${e.type === "TaskStarted" ? "start" : "end"} ${(e as { nodeId: string }).nodeId}`)).toEqual(["start merge-101", "end merge-101", "start merge-102", "end merge-102"]);
    // Each run keeps a short history of its own.
    for (const r of chain) expect((await db.listEvents(r.runId)).length).toBeLessThan(30);
  });

  it("main() follows the chain to the end", async () => {
    quietly();
    const chain = await ex.main([201, 202, 203], 2);
    expect(chain.map((r) => r.status)).toEqual(["continued", "finished"]);
    expect(chain[1]!.output).toEqual({ merged: 2, rejected: [203] });
  });
});

describe("examples/workspaces.tsx", () => {
  let ex: typeof import("./workspaces.js");
  beforeAll(async () => {
    ex = await load("workspaces", () => import("./workspaces.js"));
  });

  it("commits the fix in a worktree and tries the bump in a sandbox, leaving the checkout as it was", async () => {
    const repo = ex.makeRepository(join(TMP, "repo-1"));
    const head = ex.git(repo, "rev-parse", "HEAD");
    const api = createFlow(ex.schemas, { dbPath: freshDb("workspaces") });
    const r = await runWorkflow(ex.workspaces(api), { input: { file: "README.md", typo: "teh", fix: "the" }, rootDir: repo });
    const branch = `flow/${r.runId}/fix`;
    expect(r).toMatchObject({ status: "finished", output: { branch, trialVersion: "2.0.0", trialOk: true } });

    // The checkout the run started from is untouched.
    expect(ex.git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(ex.git(repo, "status", "--porcelain")).toBe("");
    expect(readFileSync(join(repo, "README.md"), "utf8")).toContain("teh demo");
    expect(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version).toBe("1.4.2");
    // The fix is one commit on the run's branch; the bump lives only in the sandbox.
    expect(ex.git(repo, "log", "--format=%s", `main..${branch}`)).toBe('Fix "teh" in README.md');
    expect(ex.git(repo, "show", `${branch}:README.md`)).toContain("the demo");
    const [patch] = await new FlowDb(api.db).listOutputs(r.runId, "patch");
    const [trial] = await new FlowDb(api.db).listOutputs(r.runId, "trial");
    expect(patch?.dir).toBe(join(repo, ".flow", "worktrees", r.runId, "fix"));
    expect(trial?.dir).toBe(join(repo, ".flow", "sandboxes", r.runId, "bump-trial"));
    expect(JSON.parse(readFileSync(join(trial!.dir as string, "package.json"), "utf8")).version).toBe("2.0.0");

    const removed = await removeRunWorkspaces(repo, r.runId, { deleteBranches: true });
    expect(removed).toMatchObject({ branches: [branch] });
    expect(existsSync(patch!.dir as string)).toBe(false);
    expect(existsSync(trial!.dir as string)).toBe(false);
    expect(ex.git(repo, "branch", "--list", branch)).toBe("");
  });

  it("runs with flow up in the working directory's repository", async () => {
    const repo = ex.makeRepository(join(TMP, "repo-2"));
    const cli = await flowCli(["up", join(ROOT, "examples/workspaces.tsx"), "--input", '{"file":"README.md","typo":"teh","fix":"the"}', "--quiet"], {
      cwd: repo,
      env: { FLOW_EXAMPLE_DB: join(TMP, "workspaces-cli.db") },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const r = resultOf(cli.stdout);
    expect(r).toMatchObject({ status: "finished", output: { branch: `flow/${r.runId}/fix` } });
    expect(ex.git(repo, "log", "--format=%s", `main..flow/${r.runId}/fix`)).toBe('Fix "teh" in README.md');
  });
});

describe("examples/alerts.tsx", () => {
  let ex: typeof import("./alerts.js");
  beforeAll(async () => {
    ex = await load("alerts", () => import("./alerts.js"));
  });

  it("raises nothing when the crawl is quick", async () => {
    const api = createFlow(ex.schemas, { dbPath: freshDb("alerts"), alertPolicy: ex.alertPolicy() });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(ex.searchIndex(api), { input: { site: "docs", crawlMs: 20 }, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { site: "docs", pages: 120, terms: 4440 } });
    expect(events.filter((e) => e.type === "AlertRaised")).toEqual([]);
  });

  it("notifies the webhook, asks an operator and pauses a slow crawl, then resumes to publish", async () => {
    const received: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => (received.push(JSON.parse(body)), res.end("ok")));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
      const api = createFlow(ex.schemas, { dbPath: freshDb("alerts"), alertPolicy: ex.alertPolicy(url) });
      const wf = ex.searchIndex(api);
      const events: FlowEvent[] = [];
      const paused = await runWorkflow(wf, { input: { site: "blog", crawlMs: 1200 }, onProgress: (e) => events.push(e) });
      expect(paused.status).toBe("paused");
      const alerts = events.filter((e) => e.type === "AlertRaised");
      expect(alerts.map((a) => a.type === "AlertRaised" && [a.rule, a.reaction, a.severity, a.owner, a.nodeId])).toEqual([
        ["slow", "deliver", "warning", "search-oncall", "crawl"],
        ["needs-a-look", "open-approval", "critical", "search-oncall", "crawl"],
        ["stuck", "pause", "critical", "search-oncall", "crawl"],
      ]);
      // The pause lets the running crawl finish: its row is kept, nothing after it ran.
      expect(finishedOrder(events)).toEqual(["crawl"]);

      await vi.waitFor(() => expect(received).toHaveLength(1), { timeout: 2000 });
      expect(received[0]).toMatchObject({ runId: paused.runId, rule: "slow", nodeId: "crawl", owner: "search-oncall", runbook: "https://wiki.example.com/runbooks/search-index", labels: { team: "search" } });

      const [ask] = await listPendingApprovals(api, { runId: paused.runId });
      expect(ask).toMatchObject({ nodeId: "alert:needs-a-look:crawl", kind: "approval", request: { alert: true, request: { title: "Alert needs-a-look: crawl is slow" } } });
      expect(await submitApproval(api, { runId: paused.runId, nodeId: ask!.nodeId, decision: "approve", note: "site was slow, index is fine", decidedBy: "oncall" })).toMatchObject({ status: "accepted" });

      const done = await runWorkflow(wf, { runId: paused.runId, resume: true, onProgress: (e) => events.push(e) });
      expect(done).toMatchObject({ status: "finished", output: { site: "blog", pages: 120, terms: 4440 } });
      expect(events.filter((e) => e.type === "AlertRaised")).toHaveLength(3);
    } finally {
      server.close();
    }
  });
});
