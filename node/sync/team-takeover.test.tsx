/**
 * Two Gateways on one team workspace's database, one SIGKILLed mid-run (a process of its own,
 * e2e/electric/team-gateway-process.ts): the other takes the run over, and two members'
 * multiplayer collections watch it wait for approval, get approved and finish.
 */
import { afterAll, beforeAll, expect, it, onTestFinished } from "vitest";
import { spawnTeamGateway, startTeamFixture, type TeamFixture } from "../../e2e/electric/team-fixture.js";
import { until } from "../server/gateway-testing.js";

let t: TeamFixture;

beforeAll(async () => {
  t = await startTeamFixture();
});

afterAll(async () => {
  await t?.close();
});

it("lets another Gateway of the workspace take over a run whose Gateway was SIGKILLed, while members watch it finish", { timeout: 90_000 }, async () => {
  const second = await spawnTeamGateway(t.storeUrl, t.electric.url);
  onTestFinished(() => second.kill());

  const ana = t.member("ana");
  const bea = t.member("bea");
  await Promise.all([ana, bea].flatMap((c) => [c.connect(), c.runs.preload(), c.approvals.preload()]));

  const launched = await fetch(`${second.url}/v1/api/runs`, {
    method: "POST",
    headers: { authorization: "Bearer ana", "content-type": "application/json" },
    // Each step works 2 s, so the kill below lands while the first Gateway runs a task.
    body: JSON.stringify({ workflow: "release", input: { service: "api", shards: 1, workMs: 2000 } }),
  });
  const { runId } = ((await launched.json()) as { result: { runId: string } }).result;
  await until(() => bea.runs.get(runId)?.status, (s) => s === "running", "the run on the first Gateway, in bea's list", 10_000);
  await second.kill();

  await until(() => bea.approvals.has(`${runId}/ship#0`), Boolean, "the approval after the takeover, in bea's inbox", 40_000);
  await bea.approve({ runId, nodeId: "ship", decision: "approve" });
  await until(() => [ana.runs.get(runId)?.status, bea.runs.get(runId)?.status], (s) => s.every((x) => x === "finished"), "both members to see the run finish", 20_000);
  const { events } = await ana.data.api.listRunEvents(runId, { afterSeq: 0, limit: 500 });
  const resumes = events.filter((e) => e.type === "RunResumed");
  // Taken over from the dead Gateway mid-run, then resumed again by the approval.
  expect(resumes[0]).toMatchObject({ takeover: true, previousStatus: "running" });
  expect(resumes.at(-1)).toMatchObject({ takeover: false, previousStatus: "waiting-approval" });
  // The task the kill interrupted (`build`, or a test shard if the list lagged) ran again on the second Gateway.
  const interrupted = events.find((e) => e.type === "TaskCancelled") as { nodeId: string; reason: string } | undefined;
  expect(interrupted?.reason).toBe("interrupted");
  expect(events.filter((e) => e.type === "TaskStarted" && e.nodeId === interrupted!.nodeId).map((e) => (e as { attempt?: number }).attempt)).toEqual([1, 2]);
});
