/**
 * Two team Gateways on one PostgreSQL (issue #25 item 11): a subscriber on Gateway B follows a
 * run that Gateway A executes (B relays it from the store), then B executes the run itself
 * after an approval sent to B. The subscriber gets every seq once and in order, the seqs A
 * wrote that B's bridge had not relayed yet included.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTeamFixture, startTeamGateway, type TeamFixture } from "../../e2e/electric/team-fixture.js";
import { FrameClient, until } from "../server/gateway-testing.js";

let t: TeamFixture;
let b: Awaited<ReturnType<typeof startTeamGateway>>;

beforeAll(async () => {
  t = await startTeamFixture();
  // B's bridge polls the store seldom, so A's events between the subscription and B's own are not relayed.
  b = await startTeamGateway(t.storeUrl, t.electric.url, "acme", { outOfProcessEventBridgePollMs: 30_000 });
});

afterAll(async () => {
  await b?.gateway.close();
  await t?.close();
});

it("sends a subscriber on B every seq of a run A executed and B then resumed, once and in order", { timeout: 60_000 }, async () => {
  // Steps of 500 ms: the subscription's replay holds the first events only; A writes the rest later.
  const { runId } = (await t.call("ana", "POST", "/v1/api/runs", { workflow: "release", input: { service: "api", shards: 2, workMs: 500 } })).body.result as { runId: string };
  const sub = await FrameClient.open(b.url.replace(/^http/, "ws"));
  await sub.connect({ token: "bea", subscribe: [{ runId, afterSeq: 0 }] });
  await sub.waitFor((f) => f.event === "run.event");
  expect(sub.frames.some((f) => f.payload?.type === "ApprovalRequested")).toBe(false);
  await until(() => t.call("bea", "GET", `/v1/api/approvals?runId=${runId}`), (r) => r.body?.result?.length === 1, "the approval on A's run", 20_000);
  const approved = await fetch(`${b.url}/v1/api/approvals`, {
    method: "POST",
    headers: { authorization: "Bearer bea", "content-type": "application/json" },
    body: JSON.stringify({ runId, nodeId: "ship", decision: "approve" }),
  });
  expect(approved.status).toBe(200);
  await sub.waitFor((f) => f.event === "run.event" && f.payload.type === "RunFinished", 30_000);
  const seqs = sub.frames.filter((f) => f.event === "run.event").map((f) => f.seq as number);
  const { events } = (await t.call("ana", "GET", `/v1/api/runs/${runId}/events`)).body.result as { events: Array<{ seq: number }> };
  expect(sub.frames.filter((f) => f.event === "run.gap_resync")).toEqual([]);
  expect(seqs).toEqual(events.map((e) => e.seq));
  expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
});
