/**
 * A team member's collections offline (issue #28) against a team Gateway (real PostgreSQL, the
 * Electric stand-in behind the Gateway's proxy): shapes kept in a store open at once with no
 * network and resume from their kept offset and handle; writes made offline are queued in
 * order with write ids, refused by role before they are kept, sent once the network is back
 * (each request carrying its `flow-write-id`), and a conflicting decision is kept as refused
 * with its reason. The browser's IndexedDB store is e2e/team-offline.test.ts; here the stores
 * are maps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS } from "../../core/api/internal.js";
import type { LastSeenStore } from "../../core/data/index.js";
import { describeRefusal, isQueued, type QueuedWrite, savedRows, WriteQueue } from "../../sync/index.js";
import { until } from "../server/gateway-testing.js";
import { startTeamFixture, type TeamFixture, type TeamUser } from "../../e2e/electric/team-fixture.js";
import type { TeamOfflineOptions } from "../../sync/index.js";

let t: TeamFixture;

beforeAll(async () => {
  t = await startTeamFixture();
});

afterAll(async () => {
  await t?.close();
});

/** A member's collections whose requests fail while `network.online` is false; POSTs' write ids are recorded. */
function member(who: TeamUser, offline: TeamOfflineOptions, online = true) {
  const network = { online, requests: [] as string[], writeIds: [] as Array<string | null>, loseNextAnswer: false };
  const fetchImpl: typeof fetch = async (input, init) => {
    network.requests.push(String(input instanceof Request ? input.url : input));
    if (network.online && init?.method === "POST") network.writeIds.push(new Headers(init.headers).get(HEADERS.writeId));
    if (!network.online) throw new TypeError("fetch failed");
    const res = await fetch(input, init);
    // The request reached the Gateway, its answer is lost (the connection dropped on the way back).
    if (init?.method === "POST" && network.loseNextAnswer) {
      network.loseNextAnswer = false;
      await res.body?.cancel();
      throw new TypeError("fetch failed");
    }
    return res;
  };
  return { cols: t.member(who, { fetch: fetchImpl, confirmTimeoutMs: 60_000 }, offline), network };
}

function mapStore(): LastSeenStore & { kept: Map<string, unknown> } {
  const kept = new Map<string, unknown>();
  return { kept, save: (id, v) => void kept.set(id, structuredClone(v)), load: async (id) => kept.get(id) };
}

function mapQueueStore() {
  const kept = new Map<string, QueuedWrite>();
  return { kept, list: async (q: string) => [...kept.values()].filter((w) => w.queue === q), put: async (w: QueuedWrite) => void kept.set(w.writeId, structuredClone(w)), delete: async (id: string) => void kept.delete(id) };
}

describe("team collections offline", () => {
  it("open at once from kept shapes with no network, and resume from the kept offset when it is back", async () => {
    const store = mapStore();
    const first = (await t.launch("ana")).body.result.runId as string;
    const online = member("bea", { shapes: store });
    await online.cols.runs.preload();
    await until(() => online.cols.runs.has(first), Boolean, "the run in bea's list", 10_000);
    const kept = () => [...store.kept].find(([id]) => id.endsWith(":runs:shape"))?.[1] as { resume: { offset: string; handle: string } } | undefined;
    await until(() => (savedRows(kept()) as Array<{ runId: string }> | undefined)?.some((r) => r.runId === first), Boolean, "the runs shape kept", 10_000);
    online.cols.close();

    const offline = member("bea", { shapes: store }, false);
    await offline.cols.runs.preload();
    expect(offline.cols.runs.get(first)).toMatchObject({ runId: first });
    const second = (await t.launch("ana")).body.result.runId as string;
    offline.network.online = true;
    await until(() => offline.cols.runs.has(second), Boolean, "the run launched meanwhile", 15_000);
    const shapeUrls = offline.network.requests.filter((u) => u.includes("/sync/acme/runs")).map((u) => new URL(u));
    expect(shapeUrls.filter((u) => u.searchParams.get("offset") === "-1" || !u.searchParams.get("handle")).map(String)).toEqual([]);
    expect(shapeUrls[0]!.searchParams.get("handle")).toBe(kept()!.resume.handle);
  });

  it("queues writes made offline in order, refuses what the role forbids, sends them with their write ids when back, and keeps a refused decision with its reason", async () => {
    const launched = await Promise.all([1, 2].map(() => t.launch("ana")));
    const [approveId, denyId] = launched.map((r) => r.body.result.runId as string) as [string, string];
    const queueStore = mapQueueStore();
    const queue = new WriteQueue(queueStore, "acme-test");
    const bea = member("bea", { queue, role: () => "approve" });
    await Promise.all([bea.cols.runs.preload(), bea.cols.approvals.preload()]);
    await until(() => [approveId, denyId].every((id) => bea.cols.approvals.has(`${id}/ship#0`)), Boolean, "both approvals in bea's inbox", 15_000);

    bea.network.online = false;
    const a = await bea.cols.approve({ runId: approveId, nodeId: "ship", decision: "approve", note: "offline ok" });
    const d = await bea.cols.approve({ runId: denyId, nodeId: "ship", decision: "deny" });
    const l = await bea.cols.launch({ workflow: "release", input: { service: "queued", shards: 1, workMs: 0 } });
    expect([a, d, l].every(isQueued)).toBe(true);
    expect([...queueStore.kept.values()].sort((x, y) => x.seq - y.seq).map((w) => `${w.kind}:${w.state}`)).toEqual(["approve:waiting", "approve:waiting", "launch:waiting"]);

    // dan may only read: nothing of his is kept.
    const danQueue = new WriteQueue(mapQueueStore(), "acme-dan");
    const dan = member("dan", { queue: danQueue, role: () => "read" }, false);
    await expect(dan.cols.launch({ workflow: "release", input: { service: "no", shards: 1, workMs: 0 } })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(danQueue.all).toEqual([]);

    expect((await t.call("ana", "POST", "/v1/api/approvals", { runId: denyId, nodeId: "ship", decision: "approve" })).status).toBe(200);
    bea.network.online = true;
    await until(() => queue.waiting, (n) => n === 0, "the queue delivered", 15_000);
    const written = [...queueStore.kept.values()];
    expect(written.map((w) => `${w.kind}:${w.state}:${w.refusal?.code}`)).toEqual(["approve:refused:APPROVAL_ALREADY_DECIDED"]);
    expect(describeRefusal(written[0]!)).toMatch(/^ana approved this \d+ (s|min) before your denial arrived\.$/);
    // Each sent with its write id, in the order made.
    const ids = [a, d, l].map((r) => (r as unknown as { writeId: string }).writeId);
    expect(bea.network.writeIds.filter((id) => id !== null)).toEqual(ids);

    const wait = async (runId: string) => (await t.call("ana", "GET", `/v1/api/waits?runId=${runId}&nodeId=ship&status=any`)).body.result[0];
    expect(await wait(approveId)).toMatchObject({ resolution: { approved: true, note: "offline ok" }, resolvedBy: "bea" });
    expect(await wait(denyId)).toMatchObject({ resolution: { approved: true }, resolvedBy: "ana" });
    const runs = (await t.call("ana", "GET", "/v1/api/runs?limit=100")).body.result.runs as Array<{ runId: string; input: { service: string } }>;
    expect(runs.filter((r) => r.input.service === "queued").map((r) => r.runId)).toEqual([(l as { runId: string }).runId]);
  });

  it("checks the role the members shape last brought, not the one fixed at sign-in: a demotion before going offline holds", async () => {
    const queue = new WriteQueue(mapQueueStore(), "acme-demoted");
    // Signed in as approve; the members shape is kept as for the other shapes.
    const store = mapStore();
    const bea = member("bea", { queue, role: () => "approve", userId: "bea", shapes: store });
    await bea.cols.runs.preload();
    try {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "read" });
      await until(() => savedRows([...store.kept.entries()].find(([id]) => id.endsWith(":members:shape"))?.[1]) as Array<{ user_id: string; role: string }> | undefined, (rows) => rows?.some((r) => r.user_id === "bea" && r.role === "read") === true, "the demotion kept in bea's members shape", 15_000);
      bea.network.online = false;
      await expect(bea.cols.launch({ workflow: "release", input: { service: "demoted", shards: 1, workMs: 0 } })).rejects.toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("your role in this workspace is read") });
      await expect(bea.cols.cancel("r-any")).rejects.toMatchObject({ code: "FORBIDDEN" });
      expect(queue.all).toEqual([]);
    } finally {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "approve" });
    }
  });

  it("sends a write whose answer was lost again under the same write id, and the Gateway applies it once", async () => {
    const queue = new WriteQueue(mapQueueStore(), "acme-lost");
    const bea = member("bea", { queue, role: () => "approve" });
    await bea.cols.runs.preload();
    bea.network.loseNextAnswer = true;
    const launched = await bea.cols.launch({ workflow: "release", input: { service: "lost-answer", shards: 1, workMs: 0 } });
    expect(isQueued(launched)).toBe(true);
    await until(() => queue.all.length, (n) => n === 0, "the resend answered", 15_000);
    const sent = bea.network.writeIds.filter((id) => id !== null);
    expect(sent).toEqual([(launched as unknown as { writeId: string }).writeId, (launched as unknown as { writeId: string }).writeId]);
    const runs = (await t.call("ana", "GET", "/v1/api/runs?limit=100")).body.result.runs as Array<{ runId: string; input: { service: string } }>;
    expect(runs.filter((r) => r.input.service === "lost-answer").map((r) => r.runId)).toEqual([(launched as { runId: string }).runId]);
  });

  it("queues a fork made offline with its write id and new run id, and a fork whose answer was lost applies once", async () => {
    const runId = (await t.launch("ana")).body.result.runId as string;
    await until(() => t.call("ana", "GET", `/v1/api/runs/${runId}`), (r) => r.body?.result?.status === "waiting-approval", "the run to wait for approval", 20_000);
    const queue = new WriteQueue(mapQueueStore(), "acme-fork");
    const bea = member("bea", { queue, role: () => "approve" });
    await bea.cols.runs.preload();
    const forksOf = async () => ((await t.call("ana", "GET", "/v1/api/runs?limit=200")).body.result.runs as Array<{ runId: string; annotations: Record<string, string> }>).filter((r) => String(r.annotations["flow.forkedFrom"] ?? "").startsWith(`${runId}:`)).map((r) => r.runId);

    bea.network.online = false;
    const offline = await bea.cols.fork({ runId, nodeId: "test-0" });
    expect(isQueued(offline)).toBe(true);
    expect(queue.all.map((w) => `${w.kind}:${w.state}`)).toEqual(["fork:waiting"]);
    bea.network.online = true;
    await until(() => queue.all.length, (n) => n === 0, "the queued fork delivered", 15_000);

    bea.network.loseNextAnswer = true;
    const lost = await bea.cols.fork({ runId, nodeId: "test-0" });
    expect(isQueued(lost)).toBe(true);
    await until(() => queue.all.length, (n) => n === 0, "the resent fork answered", 15_000);
    const lostId = (lost as unknown as { writeId: string }).writeId;
    expect(bea.network.writeIds.filter((id) => id === lostId)).toHaveLength(2);
    // Two forks, each once, under the run ids chosen in the browser.
    expect((await forksOf()).sort()).toEqual([(offline as { runId: string }).runId, (lost as { runId: string }).runId].sort());
  });

  it("does not send a write older than the Gateway keeps write ids, and says why", async () => {
    const store = mapQueueStore();
    const queue = new WriteQueue(store, "acme-old");
    const old = await queue.add("cancel", { runId: "r-old" }, "Cancelling run r-old");
    await store.put({ ...old, madeAtMs: Date.now() - 31 * 86_400_000 });
    const fresh = new WriteQueue(store, "acme-old");
    const sent: string[] = [];
    await fresh.deliver(async (w) => void sent.push(w.writeId));
    expect(sent).toEqual([]);
    expect(fresh.all.map((w) => w.state)).toEqual(["refused"]);
    expect(describeRefusal(fresh.all[0]!)).toMatch(/more than 30 days .* not sent/);
  });
});
