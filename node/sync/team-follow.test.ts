/**
 * A member follows the tasks of a run that another Gateway of the workspace executes
 * (issue #25 item 10): bea's collections read Gateway B while Gateway A runs the run; her
 * per-run collections move with each task (through the workspace's `nodes` shape), not only
 * when the run's status changes.
 */
import { QueryClient } from "@tanstack/query-core";
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { startTeamFixture, startTeamGateway, type TeamFixture } from "../../e2e/electric/team-fixture.js";
import { createTeamCollections } from "../../sync/index.js";
import { until } from "../server/gateway-testing.js";

let t: TeamFixture;
let b: Awaited<ReturnType<typeof startTeamGateway>>;

beforeAll(async () => {
  t = await startTeamFixture();
  b = await startTeamGateway(t.storeUrl, t.electric.url);
});

afterAll(async () => {
  await b?.gateway.close();
  await t?.close();
});

it("shows a member on Gateway B each task of a run Gateway A executes as it changes", { timeout: 60_000 }, async () => {
  const bea = createTeamCollections({ kind: "multiplayer", apiBaseUrl: b.url, electricBaseUrl: `${b.url}/sync`, workspaceId: "acme", token: "bea" }, new QueryClient());
  onTestFinished(() => bea.close());
  await Promise.all([bea.connect(), bea.runs.preload()]);
  // Steps of 1.5 s on A: build, then one test shard, then the approval.
  const { runId } = (await t.call("ana", "POST", "/v1/api/runs", { workflow: "release", input: { service: "api", shards: 1, workMs: 1500 } })).body.result as { runId: string };
  const nodes = bea.nodes(runId);
  await nodes.preload();
  const state = (nodeId: string) => [...nodes.values()].find((n) => n.nodeId === nodeId)?.state;
  await until(() => state("build"), (s) => s === "finished", "build finished in bea's nodes on B", 15_000);
  // The run is still at work on A: bea saw the task, not the run's end.
  expect((await t.call("ana", "GET", `/v1/api/runs/${runId}`)).body.result.status).toBe("running");
  await until(() => state("test-0"), (s) => s === "finished", "the test shard finished in bea's nodes on B", 15_000);
  expect(b.gateway.host.activeRun(runId)).toBeUndefined();
});
