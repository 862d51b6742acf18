/**
 * The `multiplayer` mode of the data layer against a team Gateway (real PostgreSQL, the
 * Electric stand-in behind the Gateway's proxy): two members' collections see each other's
 * launch and approval live, rows equal the domain API's, writes settle on their txid, a
 * must-refetch resyncs, and writes while the shapes are unreachable are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../server/gateway-testing.js";
import { startTeamFixture, type TeamFixture, type TeamUser } from "../../e2e/electric/team-fixture.js";

let t: TeamFixture;

beforeAll(async () => {
  t = await startTeamFixture();
});

afterAll(async () => {
  await t?.close();
});

/** A member's collections; `network.online = false` cuts its requests off (as a dropped connection would). */
function member(who: TeamUser) {
  const network = { online: true, requests: [] as string[] };
  const fetchImpl: typeof fetch = (input, init) => {
    network.requests.push(String(input instanceof Request ? input.url : input));
    return network.online ? fetch(input, init) : Promise.reject(new TypeError("fetch failed"));
  };
  // A confirmation timeout past the test's own: a write that waited for anything but its txid
  // (such as a change-stream refresh, never started here) would fail the test.
  return { cols: t.member(who, { fetch: fetchImpl, confirmTimeoutMs: 60_000 }), network };
}

/** A row without TanStack DB's virtual `$` properties (what local-mode rows carry too). */
const plain = (row: object | undefined) => Object.fromEntries(Object.entries(row ?? {}).filter(([k]) => !k.startsWith("$")));

describe("multiplayer collections", () => {
  it("shows one member's launch and another's approval to both, live, with the rows local mode has", async () => {
    const ana = member("ana");
    const bea = member("bea");
    await Promise.all([ana.cols.runs.preload(), bea.cols.runs.preload(), ana.cols.approvals.preload(), bea.cols.approvals.preload()]);
    // bea's change stream runs (as in the app) but leaves runs and approvals to the shapes.
    expect(await bea.cols.connect()).toBe("online");

    const { runId } = await ana.cols.launch({ workflow: "release", input: { service: "api", shards: 1, workMs: 0 } });
    // Settled on its txid: the synced row (not the optimistic one) is there when launch resolves.
    expect(ana.cols.runs.get(runId)).toMatchObject({ runId, $synced: true });
    await until(() => bea.cols.approvals.toArray.find((a) => a.runId === runId), Boolean, "the approval in bea's inbox", 20_000);
    await until(() => bea.cols.runs.get(runId)?.status, (s) => s === "waiting-approval", "the waiting run in bea's list", 10_000);
    // All of it came through the shapes: bea's change stream fetched no run row and no approvals.
    expect(bea.network.requests.filter((u) => u.includes("view=summary") || u.includes("/v1/api/approvals"))).toEqual([]);
    const approval = bea.cols.approvals.toArray.find((a) => a.runId === runId)!;
    const [apiApproval] = await bea.cols.data.api.listApprovals(runId);
    expect(plain(approval)).toEqual({ ...apiApproval, key: `${runId}/ship#0` });
    expect(plain(bea.cols.runs.get(runId))).toEqual(await bea.cols.data.api.getRunSummary(runId));

    await bea.cols.approve({ runId, nodeId: "ship", decision: "approve" });
    expect(bea.cols.approvals.has(`${runId}/ship#0`)).toBe(false);
    await until(() => ana.cols.approvals.has(`${runId}/ship#0`), (has) => !has, "the approval to leave ana's inbox", 10_000);
    await until(() => ana.cols.runs.get(runId)?.status, (s) => s === "finished", "the finished run in ana's list", 20_000);
    expect(plain(ana.cols.runs.get(runId))).toEqual(await ana.cols.data.api.getRunSummary(runId));
  });

  it("refuses writes while the shapes are unreachable, catches up when they are back, and survives a must-refetch", async () => {
    const dan = member("dan");
    const ana = member("ana");
    await Promise.all([dan.cols.runs.preload(), ana.cols.runs.preload()]);
    const before = (await ana.cols.data.api.listRuns({ limit: 500 })).runs.length;

    ana.network.online = false;
    await until(() => ana.cols.runs.utils.isError, Boolean, "ana's shapes to go offline", 10_000);
    const refused = await ana.cols.launch({ workflow: "release", input: { service: "api", shards: 1, workMs: 0 } }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "WORKSPACE_OFFLINE" });
    expect((refused as Error).message).toContain('workspace "acme" is offline');
    expect((await dan.cols.data.api.listRuns({ limit: 500 })).runs).toHaveLength(before);

    // Meanwhile a run starts elsewhere, and every shape is rotated (Electric's must-refetch).
    const other = await t.launch("bea");
    t.electric.rotate();
    ana.network.online = true;
    await until(() => ana.cols.runs.has(other.body.result.runId), Boolean, "ana catching up", 15_000);
    expect(ana.cols.runs.utils.isError).toBe(false);
    await until(() => dan.cols.runs.has(other.body.result.runId), Boolean, "dan after the must-refetch", 15_000);
    expect(t.electric.requests.some((r) => r.startsWith("409 "))).toBe(true);
    expect(dan.cols.runs.size).toBe(before + 1);
  });
});
