/**
 * The contract's result schemas (core/api/results*.ts) against what a running Gateway really
 * answers over HTTP on loopback: every `/v1/api/*` route that answers JSON declares a result
 * (its RPC method's `result`, or its own) and is called in a real run's life, and its answer
 * must parse with the declared schema (strict objects: a field the schema does not declare
 * fails too; each required field removed from a real answer fails). The routes that answer
 * server-sent events (`stream`) have no JSON result. Every RPC method but the streaming ones
 * declares a result too.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { approvalDecisionSchema, createFlow, createMemoryStore, FlowDb, HostedChatAgent } from "durable-flow";
import { RPC_METHODS } from "../../core/api/index.js";
import { API_ROUTES, type ApiRoute, type ApiRouteName, routeUrl } from "../../core/api/internal.js";
import { type ProviderServer, startProviderServer } from "../agents/testing/provider-server.js";
import { gitIn, tempRepo } from "../vcs/testing.js";
import { startTestGateway, type TestGateway, until } from "./gateway-testing.js";

/** The result schema a route declares: its RPC method's, or its own. */
function resultOf(route: ApiRoute): z.ZodType | undefined {
  return route.rpc ? RPC_METHODS[route.rpc].result : route.result;
}

const DECLARED = (Object.keys(API_ROUTES) as ApiRouteName[]).filter((name) => resultOf(API_ROUTES[name]) !== undefined);

let gw: TestGateway;
let provider: ProviderServer;
let repo: string;
let dbHandle: unknown;
const checked = new Set<ApiRouteName>();
/** Each route's first real answer, for the drift checks. */
const answers = new Map<ApiRouteName, unknown>();
/** The first attempt of `flaky` fails; a retry passes. */
let flakyTries = 0;

beforeAll(async () => {
  repo = tempRepo();
  mkdirSync(join(repo, ".flow"));
  const dbPath = join(repo, ".flow", "flow.db");
  gw = await startTestGateway({ workspaceRoot: repo }, {}, dbPath);
  const a = createFlow({ shipOk: approvalDecisionSchema }, { dbPath });
  gw.gateway.register(
    "ship",
    a.flow(() => (
      <a.Workflow name="ship">
        <a.Approval id="ok" output={a.outputs.shipOk} request={{ title: "Ship it?" }} />
      </a.Workflow>
    )),
  );
  // An agent task (usage, transcript, prompts), a task that edits the repository (diffs, time
  // travel), a task that fails once (retry) and a human task (waits, submitHumanTask).
  provider = await startProviderServer([{ text: '{"answer":"yes"}' }]);
  const b = createFlow(
    { reply: z.object({ answer: z.string() }), written: z.object({ n: z.number() }), label: z.object({ label: z.string() }) },
    { dbPath, env: { recordSnapshots: true } },
  );
  dbHandle = b.db;
  const agent = new HostedChatAgent({ model: "house-model", baseURL: provider.url, apiKey: "k", api: "chat", nativeStructuredOutput: false });
  gw.gateway.register(
    "ask",
    b.flow(() => (
      <b.Workflow name="ask">
        <b.Task id="ask" output={b.outputs.reply} agent={agent}>Yes?</b.Task>
      </b.Workflow>
    )),
  );
  gw.gateway.register(
    "edit",
    b.flow(() => (
      <b.Workflow name="edit">
        <b.Task id="write" output={b.outputs.written}>
          {() => {
            writeFileSync(join(repo, "notes.txt"), `written ${Date.now()}\n`);
            return { n: 1 };
          }}
        </b.Task>
      </b.Workflow>
    )),
  );
  gw.gateway.register(
    "flaky",
    b.flow(() => (
      <b.Workflow name="flaky">
        <b.Task id="once" output={b.outputs.written} retries={0}>
          {() => {
            if (++flakyTries === 1) throw new Error("first try fails");
            return { n: flakyTries };
          }}
        </b.Task>
      </b.Workflow>
    )),
  );
  gw.gateway.register(
    "triage",
    b.flow(() => (
      <b.Workflow name="triage">
        <b.HumanTask id="label" output={b.outputs.label} prompt="Label the ticket" />
      </b.Workflow>
    )),
  );
});

afterAll(async () => {
  await gw.gateway.close();
  await provider.close();
});

/** Calls a route over HTTP and checks its answer against the declared schema; answers the result. */
async function call(name: ApiRouteName, path: Record<string, string> = {}, query: Record<string, string | number> = {}, body?: unknown): Promise<any> {
  const route: ApiRoute = API_ROUTES[name];
  const res = await fetch(`${gw.url}${routeUrl(route, path, query)}`, {
    method: route.verb,
    ...(route.verb === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) } : {}),
  });
  const envelope = (await res.json()) as { ok: boolean; result?: unknown; error?: unknown };
  expect(envelope, `${name}: ${JSON.stringify(envelope.error)}`).toMatchObject({ ok: true });
  const schema = resultOf(route)!;
  const parsed = schema.safeParse(envelope.result);
  expect(parsed.error?.issues ?? [], `${name} answered ${JSON.stringify(envelope.result)}`).toEqual([]);
  checked.add(name);
  if (!answers.has(name)) answers.set(name, envelope.result);
  return envelope.result;
}

/** The object schema a route's answer is checked with, and the object of the answer it applies to (an array's first row). */
function objectOf(schema: z.ZodType, value: unknown): [z.ZodObject, Record<string, unknown>] | undefined {
  if (schema instanceof z.ZodArray) return Array.isArray(value) && value.length > 0 ? objectOf(schema.element as z.ZodType, value[0]) : undefined;
  return schema instanceof z.ZodObject ? [schema, value as Record<string, unknown>] : undefined;
}

const statusOf = async (runId: string) => (await call("getRunSummary", { runId })).status as string;

describe("the contract's result schemas", () => {
  it("declare the answer of every route that answers JSON, and of every RPC method that does not stream", () => {
    const streams = (Object.keys(API_ROUTES) as ApiRouteName[]).filter((name) => (API_ROUTES[name] as ApiRoute).stream);
    expect(streams.sort()).toEqual(["changeStream", "streamRunEvents"]);
    expect(DECLARED.sort()).toEqual((Object.keys(API_ROUTES) as ApiRouteName[]).filter((name) => !streams.includes(name)).sort());
    const undeclared = Object.entries(RPC_METHODS).filter(([, m]) => m.result === undefined).map(([name]) => name);
    expect(undeclared.sort()).toEqual(["streamDevTools", "streamRunEvents"]);
  });

  it("hold for a real Gateway's answers along runs' lives", async () => {
    expect(await call("listWorkflows")).toEqual(expect.arrayContaining([expect.objectContaining({ key: "greet" }), expect.objectContaining({ key: "ship" })]));

    const { runId } = await call("launchRun", {}, {}, { workflow: "greet", input: { name: "Ada" } });
    await until(() => statusOf(runId), (s) => s === "finished", "greet to finish");
    const run = await call("getRun", { runId });
    expect(run.nodes).toEqual([expect.objectContaining({ nodeId: "hello", state: "finished", attempts: [expect.objectContaining({ attempt: 1, state: "finished" })] })]);
    expect((await call("listRuns", {}, { limit: 10 })).runs.map((r: { runId: string }) => r.runId)).toContain(runId);
    expect((await call("listRunEvents", { runId }, { afterSeq: 0 })).events.length).toBeGreaterThan(2);

    // A run this host executes: paused, resumed, cancelled.
    const slow = (await call("launchRun", {}, {}, { workflow: "slow", input: { steps: 400, stepMs: 20 } })).runId as string;
    await until(() => statusOf(slow), (s) => s === "running", "slow to run");
    expect(await call("pauseRun", { runId: slow })).toEqual({ runId: slow, status: "pausing" });
    await until(() => statusOf(slow), (s) => s === "paused", "slow to pause");
    expect((await call("resumeRun", { runId: slow })).runId).toBe(slow);
    expect(await call("cancelRun", { runId: slow })).toEqual({ runId: slow, status: "cancelled" });

    // A run waiting for a person: its approval listed, then decided.
    const ship = (await call("launchRun", {}, {}, { workflow: "ship" })).runId as string;
    await until(() => statusOf(ship), (s) => s === "waiting-approval", "ship to wait");
    expect(await call("listApprovals", {}, { runId: ship })).toEqual([expect.objectContaining({ runId: ship, nodeId: "ok", kind: "approval" })]);
    expect(await call("submitApproval", {}, {}, { runId: ship, nodeId: "ok", decision: "approve" })).toMatchObject({ status: "accepted" });
    await until(() => statusOf(ship), (s) => s === "finished", "ship to finish");
  });

  it("hold for a run's reads, its agent's usage and transcript, diffs and time travel", async () => {
    const ask = (await call("launchRun", {}, {}, { workflow: "ask" })).runId as string;
    await until(() => statusOf(ask), (s) => s === "finished", "ask to finish");
    expect((await call("getRunUsage", { runId: ask })).total).toMatchObject({ inputTokens: 11, outputTokens: 7, attempts: 1 });
    expect(await call("getTranscript", { runId: ask, nodeId: "ask" })).toEqual([expect.objectContaining({ attempt: 1, generations: [expect.objectContaining({ status: "finished" })] })]);
    expect(await call("listPrompts", {}, { runId: ask })).toEqual([expect.objectContaining({ nodeId: "ask", prompt: expect.stringContaining("Yes?") })]);
    expect((await call("getWorkflowUsage", { workflow: "ask" }, { days: 2 })).total).toMatchObject({ runs: 1, attempts: 1 });

    // A repository of its own inside the workspace: the rewind leaves it and says so (keptRepositories).
    const lib = join(repo, "deps", "lib");
    mkdirSync(lib, { recursive: true });
    gitIn(lib, "init", "-q");
    writeFileSync(join(lib, "lib.txt"), "lib\n");
    gitIn(lib, "add", "lib.txt");
    gitIn(lib, "commit", "-q", "-m", "lib");
    const edit = (await call("launchRun", {}, {}, { workflow: "edit" })).runId as string;
    await until(() => statusOf(edit), (s) => s === "finished", "edit to finish");
    expect((await call("getNodeDiff", { runId: edit, nodeId: "write" })).files).toEqual([expect.objectContaining({ path: "notes.txt", status: "added" })]);
    expect((await call("getFileDiff", { runId: edit, nodeId: "write" }, { path: "notes.txt" })).patch).toContain("+++ b/notes.txt");
    expect((await call("getRunDiff", { runId: edit })).files).toEqual([expect.objectContaining({ path: "notes.txt" })]);
    expect((await call("getFrame", { runId: edit })).tasks).toEqual([expect.objectContaining({ nodeId: "write" })]);
    expect((await call("getNodeOutput", { runId: edit, nodeId: "write" })).row).toMatchObject({ n: 1 });
    expect((await call("whatHappened", { runId: edit })).status).toBe("finished");
    expect(await call("rewindRun", { runId: edit }, {}, { nodeId: "write" })).toMatchObject({ success: true, resetNodes: ["write"], keptRepositories: ["deps/lib"], runId: edit });
    await until(() => statusOf(edit), (s) => s === "finished", "the rewound edit to finish");
    const fork = await call("forkRun", { runId: edit }, {}, { nodeId: "write" });
    expect(fork).toMatchObject({ workflow: "edit", rerun: ["write"] });
    await until(() => statusOf(fork.runId), (s) => s === "finished", "the fork to finish");

    const flaky = (await call("launchRun", {}, {}, { workflow: "flaky" })).runId as string;
    await until(() => statusOf(flaky), (s) => s === "failed", "flaky to fail");
    expect(await call("retryNode", { runId: flaky, nodeId: "once" })).toMatchObject({ runId: flaky, resetNodes: ["once"] });
    await until(() => statusOf(flaky), (s) => s === "finished", "the retried flaky to finish");
  });

  it("hold for deliveries, waits, crons, scores and memory", async () => {
    const triage = (await call("launchRun", {}, {}, { workflow: "triage" })).runId as string;
    await until(() => statusOf(triage), (s) => s.startsWith("waiting-"), "triage to wait");
    expect(await call("listWaits", {}, { runId: triage })).toEqual([expect.objectContaining({ kind: "human", status: "pending" })]);
    expect(await call("submitHumanTask", {}, {}, { runId: triage, nodeId: "label", value: { label: "bug" } })).toMatchObject({ status: "accepted" });
    await until(() => statusOf(triage), (s) => s === "finished", "triage to finish");

    const deploy = (await call("launchRun", {}, {}, { workflow: "deploy", input: { ref: "pr-9" } })).runId as string;
    await until(() => statusOf(deploy), (s) => s === "waiting-event", "deploy to wait");
    expect(await call("submitSignal", {}, {}, { name: "go", runId: deploy, payload: { sha: "abc" }, deliveryId: "d9" })).toEqual({ deliveryId: "d9", status: "accepted" });
    await until(() => statusOf(deploy), (s) => s === "finished", "deploy to finish");

    expect(await call("createCron", {}, {}, { cronId: "c1", workflow: "greet", schedule: "0 3 * * *", input: { name: "Cy" } })).toMatchObject({ cronId: "c1", enabled: true });
    const fired = await call("runCron", { cronId: "c1" });
    await until(() => statusOf(fired.runId), (s) => s === "finished", "the cron's run to finish");
    expect(await call("listCrons")).toEqual([expect.objectContaining({ cronId: "c1", lastRunId: fired.runId })]);
    expect(await call("deleteCron", { cronId: "c1" })).toEqual({ cronId: "c1", deleted: true });

    await new FlowDb(dbHandle).store.execute(
      `INSERT INTO _flow_scores (id, run_id, node_id, iteration, attempt, scorer_id, scorer_name, source, score, scored_at_ms) VALUES ('sc1', ?, 'hello', 0, 1, 'len', 'Length', 'batch', 0.5, 1)`,
      [fired.runId],
    );
    expect(await call("listScores", {}, { runId: fired.runId })).toEqual([expect.objectContaining({ id: "sc1", score: 0.5 })]);

    const memory = createMemoryStore(dbHandle);
    await memory.setFact("user:ana", "tone", { formal: true });
    await memory.saveNote({ namespace: "workflow:review", body: "Refunds above 500 EUR need a manager." });
    await memory.enableNoteSearch("workflow");
    expect(await call("listMemoryFacts", {}, { namespace: "user:ana" })).toEqual([expect.objectContaining({ key: "tone", value: { formal: true } })]);
    expect(await call("listMemoryNotes", {}, { namespace: "workflow:review" })).toEqual([expect.objectContaining({ body: expect.stringContaining("Refunds") })]);
    expect(await call("searchMemoryNotes", {}, { namespace: "workflow:review", q: "refunds" })).toEqual([expect.objectContaining({ namespace: "workflow:review" })]);
    expect(await call("listMemoryNamespaces")).toEqual([
      { namespace: "user:ana", facts: 1, notes: 0 },
      { namespace: "workflow:review", facts: 0, notes: 1 },
    ]);

    expect([...checked].sort()).toEqual(DECLARED.sort());
  });

  it("fail each real answer that loses a field it must have, or gains one it does not declare", () => {
    for (const name of DECLARED) {
      const found = objectOf(resultOf(API_ROUTES[name])!, answers.get(name));
      expect(found, `${name}: an object (or a non-empty list of them) was answered`).toBeDefined();
      const [schema, row] = found!;
      const required = Object.keys(schema.shape).filter((key) => !(schema.shape[key] as z.ZodType).safeParse(undefined).success);
      expect(required.length, name).toBeGreaterThan(0);
      for (const key of required) {
        const { [key]: _dropped, ...without } = row;
        expect(schema.safeParse(without).success, `${name} without ${key}`).toBe(false);
      }
      expect(schema.safeParse({ ...row, undeclared: 1 }).success, `${name} with an undeclared field`).toBe(false);
    }
  });

  it("refuse an answer that drifts from them", async () => {
    const run = await call("getRunSummary", { runId: (await call("listRuns", {}, { limit: 1 })).runs[0].runId });
    const schema = resultOf(API_ROUTES.getRunSummary)!;
    expect(schema.safeParse({ ...run, extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ ...run, status: "done" }).success).toBe(false);
    expect(schema.safeParse({ ...run, owner: undefined }).success).toBe(false);
  });
});
