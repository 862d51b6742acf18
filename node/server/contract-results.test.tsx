/**
 * The contract's result schemas (core/api/results.ts) against what a running Gateway really
 * answers over HTTP on loopback: every `/v1/api/*` route that declares a result (its RPC
 * method's `result`, or its own) is called in a real run's life and its answer must parse
 * with the declared schema (strict objects: a field the schema does not declare fails too).
 * The routes with a declared result are the run lifecycle and run rows: launchRun, getRun,
 * getRunSummary, listRuns, listRunEvents, resumeRun, pauseRun, cancelRun, listWorkflows,
 * listApprovals, submitApproval.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { approvalDecisionSchema, createFlow } from "durable-flow";
import { API_ROUTES, type ApiRoute, type ApiRouteName, routeUrl, RPC_METHODS } from "../../core/api/index.js";
import { tempDir } from "../testing/index.js";
import { startTestGateway, type TestGateway, until } from "./gateway-testing.js";

/** The result schema a route declares: its RPC method's, or its own. */
function resultOf(route: ApiRoute): z.ZodType | undefined {
  return route.rpc ? RPC_METHODS[route.rpc].result : route.result;
}

const DECLARED = (Object.keys(API_ROUTES) as ApiRouteName[]).filter((name) => resultOf(API_ROUTES[name]) !== undefined);

let gw: TestGateway;
const checked = new Set<ApiRouteName>();

beforeAll(async () => {
  const dbPath = join(tempDir("flow-contract-"), "flow.db");
  gw = await startTestGateway({}, {}, dbPath);
  const a = createFlow({ shipOk: approvalDecisionSchema }, { dbPath });
  gw.gateway.register(
    "ship",
    a.flow(() => (
      <a.Workflow name="ship">
        <a.Approval id="ok" output={a.outputs.shipOk} request={{ title: "Ship it?" }} />
      </a.Workflow>
    )),
  );
});

afterAll(() => gw.gateway.close());

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
  return envelope.result;
}

const statusOf = async (runId: string) => (await call("getRunSummary", { runId })).status as string;

describe("the contract's result schemas", () => {
  it("declare the run routes' answers", () => {
    expect(DECLARED.sort()).toEqual(["cancelRun", "getRun", "getRunSummary", "launchRun", "listApprovals", "listRunEvents", "listRuns", "listWorkflows", "pauseRun", "resumeRun", "submitApproval"]);
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

    expect([...checked].sort()).toEqual(DECLARED.sort());
  });

  it("refuse an answer that drifts from them", async () => {
    const run = await call("getRunSummary", { runId: (await call("listRuns", {}, { limit: 1 })).runs[0].runId });
    const schema = resultOf(API_ROUTES.getRunSummary)!;
    expect(schema.safeParse({ ...run, extra: 1 }).success).toBe(false);
    expect(schema.safeParse({ ...run, status: "done" }).success).toBe(false);
    expect(schema.safeParse({ ...run, owner: undefined }).success).toBe(false);
  });
});
