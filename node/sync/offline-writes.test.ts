/**
 * Offline writes reaching a team workspace (issue #28, docs/multiplayer.md "Offline writes"):
 * two Gateways on the real PostgreSQL, real HTTP over loopback. A write sent with
 * `flow-write-id` applies once — after an answer the client never heard, resent to either
 * Gateway, or resent many times at once across both — and is answered with the first answer
 * and its txid; an id reused for another write is refused. A queued write that meets a
 * changed workspace is refused with a reason a person can read: the wait was decided by
 * someone else, cancelled, or reset by a rewind; the sender's role changed, or they were removed.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server, type Socket, connect } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTeamFixture, startTeamGateway, type TeamFixture, type TeamUser } from "../../e2e/electric/team-fixture.js";
import type { Gateway } from "../server/gateway.js";
import { until } from "../server/gateway-testing.js";

let t: TeamFixture;
let other: { gateway: Gateway; url: string };

beforeAll(async () => {
  t = await startTeamFixture();
  other = await startTeamGateway(t.storeUrl, t.electric.url);
});

afterAll(async () => {
  await other?.gateway.close();
  await t?.close();
});

const RELEASE = { workflow: "release", input: { service: "api", shards: 1, workMs: 0 } };

/** An HTTP write as `who` to the Gateway at `base`, with a write id. */
async function send(base: string, who: TeamUser, path: string, body: unknown, writeId: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${who}`, "content-type": "application/json", "flow-write-id": writeId }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const [row] = await t.gateway.host.db.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${sql}`, params as never);
  return Number(row!.n);
}

async function ledgerRow(writeId: string): Promise<{ sent_by: string; txid: string | null; status: number | null; answer_json: string | null } | undefined> {
  const [row] = await t.gateway.host.db.store.query<any>(`SELECT * FROM _flow_write_ids WHERE workspace_id = 'acme' AND write_id = ?`, [writeId]);
  return row;
}

/**
 * A TCP proxy to `target` that forwards requests and drops every answer: the connection is
 * cut at the answer's first byte, so the Gateway applied and answered, and the client never heard.
 */
async function answerLosingProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream);
    upstream.once("data", () => {
      client.destroy();
      upstream.destroy();
    });
    client.on("error", () => {});
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (sockets.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/** A run of `release` parked on its approval. */
async function parkedRun(): Promise<string> {
  const { runId } = (await t.launch("ana")).body.result as { runId: string };
  await until(() => t.call("ana", "GET", `/v1/api/runs/${runId}`), (r) => r.body?.result?.status === "waiting-approval", "the run to wait for approval", 20_000);
  return runId;
}

describe("write ids on two Gateways of a team workspace", () => {
  it("answers a resend after a lost answer with the first answer and txid, on either Gateway, applying once", async () => {
    const proxy = await answerLosingProxy(t.url);
    try {
      const before = await count("_flow_runs");
      const id = randomUUID();
      await expect(send(proxy.url, "bea", "/v1/api/runs", RELEASE, id)).rejects.toThrow();
      // The Gateway applied it and recorded its answer; the client heard nothing.
      const row = await until(() => ledgerRow(id), (r) => r?.status != null, "the first answer to be recorded", 10_000);
      expect(row).toMatchObject({ sent_by: "user:bea", status: 200 });
      const again = await send(t.url, "bea", "/v1/api/runs", RELEASE, id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(JSON.parse(row!.answer_json!));
      // The ledger row was written in the launch's own transaction: its txid is the launch's.
      expect(again.body.result.txids.runs[0]).toBe(Number(row!.txid));
      expect(await send(other.url, "bea", "/v1/api/runs", RELEASE, id)).toEqual(again);
      expect(await count("_flow_runs")).toBe(before + 1);
    } finally {
      await proxy.close();
    }
  });

  it("applies concurrent resends (launch, decision, cancel) across both Gateways once, and answers each with the same answer", async () => {
    const before = await count("_flow_runs");
    const launchId = randomUUID();
    const launches = await Promise.all(Array.from({ length: 8 }, (_, i) => send(i % 2 ? other.url : t.url, "bea", "/v1/rpc/launchRun", RELEASE, launchId)));
    expect(new Set(launches.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(launches[0]!.status).toBe(200);
    expect(await count("_flow_runs")).toBe(before + 1);

    const runId = await parkedRun();
    const decisionId = randomUUID();
    const decisions = await Promise.all(Array.from({ length: 8 }, (_, i) => send(i % 2 ? other.url : t.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve", note: "queued on the train" }, decisionId)));
    expect(new Set(decisions.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(decisions[0]!.body.result).toMatchObject({ runId, nodeId: "ship", status: "accepted", txids: { approvals: expect.arrayContaining([expect.any(Number)]) } });
    expect(await count("_flow_write_ids WHERE write_id = ?", [decisionId])).toBe(1);

    const parked = await parkedRun();
    const cancelId = randomUUID();
    const cancels = await Promise.all(Array.from({ length: 6 }, (_, i) => send(i % 2 ? other.url : t.url, "bea", `/v1/api/runs/${parked}/cancel`, {}, cancelId)));
    expect(new Set(cancels.map((a) => JSON.stringify(a))).size, JSON.stringify(cancels)).toBe(1);
    expect(cancels[0]!.body.result).toMatchObject({ runId: parked, status: "cancelled" });
    // Neither Gateway is left holding the run.
    expect([t.gateway.host.activeRun(parked), other.gateway.host.activeRun(parked)]).toEqual([undefined, undefined]);
  });

  it("refuses an id another member sent, or sent for another request or body, and applies nothing", async () => {
    const before = await count("_flow_runs");
    const id = randomUUID();
    expect((await send(t.url, "bea", "/v1/api/runs", RELEASE, id)).status).toBe(200);
    const refusals = [
      await send(other.url, "ana", "/v1/api/runs", RELEASE, id),
      await send(t.url, "bea", "/v1/rpc/launchRun", RELEASE, id),
      await send(other.url, "bea", "/v1/api/runs", { ...RELEASE, input: { ...RELEASE.input, service: "web" } }, id),
    ];
    expect(refusals.map((r) => [r.status, r.body.error.code, r.body.error.details.reason])).toEqual([
      [409, "WRITE_ID_CONFLICT", "another-sender"],
      [409, "WRITE_ID_CONFLICT", "another-request"],
      [409, "WRITE_ID_CONFLICT", "another-body"],
    ]);
    expect(await count("_flow_runs")).toBe(before + 1);
  });
});

/** The approval `ship` of a run as the browser holds it (what a queued decision names by `askedAtMs`). */
async function approvalOf(runId: string): Promise<{ createdAtMs: number }> {
  const rows = (await t.call("bea", "GET", `/v1/api/approvals?runId=${runId}`)).body.result as Array<{ nodeId: string; createdAtMs: number }>;
  return rows.find((r) => r.nodeId === "ship")!;
}

describe("queued writes that meet a changed workspace", () => {
  it("refuses a decision for a wait someone decided meanwhile, naming who decided what and when", async () => {
    const runId = await parkedRun();
    const { createdAtMs } = await approvalOf(runId);
    const decided = await t.call("ana", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" });
    expect(decided.status).toBe(200);
    const queued = await send(other.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "deny", askedAtMs: createdAtMs }, randomUUID());
    expect([queued.status, queued.body.error.code]).toEqual([409, "APPROVAL_ALREADY_DECIDED"]);
    const { details, message } = queued.body.error;
    expect(details).toMatchObject({ runId, nodeId: "ship", decidedBy: "ana", decision: { approved: true } });
    expect(Date.parse(details.decidedAt)).toBeGreaterThan(createdAtMs);
    expect(message).toContain("by ana (approved) at");
    expect(JSON.stringify(details).length).toBeLessThan(1024);
  });

  it("refuses a decision for a run cancelled meanwhile with WAIT_CLOSED, saying when and by whom", async () => {
    const runId = await parkedRun();
    const { createdAtMs } = await approvalOf(runId);
    expect((await t.call("ana", "POST", `/v1/api/runs/${runId}/cancel`, {})).body.result.status).toBe("cancelled");
    const queued = await send(t.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve", askedAtMs: createdAtMs }, randomUUID());
    expect([queued.status, queued.body.error.code]).toEqual([409, "WAIT_CLOSED"]);
    expect(queued.body.error.details).toMatchObject({ runId, nodeId: "ship", cancelledBy: "ana" });
    expect(Date.parse(queued.body.error.details.cancelledAt)).toBeGreaterThan(createdAtMs);
    expect(queued.body.error.message).toContain("cancelled by ana at");
    // Who cancelled is the Gateway's note, not one of the run's own annotations.
    expect((await t.call("ana", "GET", `/v1/api/runs/${runId}`)).body.result.annotations).toEqual({});
  });

  it("refuses a decision for a wait a rewind reset (to a task before it), before and after it asks again, and delivers nothing", async () => {
    const runId = await parkedRun();
    const first = await approvalOf(runId);
    expect((await t.call("ana", "POST", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" })).status).toBe(200);
    await until(() => t.call("ana", "GET", `/v1/api/runs/${runId}`), (r) => r.body?.result?.status === "finished", "the run to finish", 20_000);
    const rewound = await t.call("ana", "POST", `/v1/api/runs/${runId}/rewind`, { nodeId: "test-0", restoreVcs: false, resume: false });
    expect(rewound.body.result, JSON.stringify(rewound.body.result)).toMatchObject({ success: true });
    const decide = () => send(other.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "deny", askedAtMs: first.createdAtMs }, randomUUID());
    const notYet = await decide();
    expect([notYet.status, notYet.body.error.code, notYet.body.error.details.askedAgainAt]).toEqual([409, "WAIT_RESET", null]);
    expect(notYet.body.error.details.askedAt).toBe(new Date(first.createdAtMs).toISOString());
    expect((await t.call("ana", "POST", `/v1/api/runs/${runId}/resume`, {})).status).toBe(200);
    await until(() => t.call("ana", "GET", `/v1/api/runs/${runId}`), (r) => r.body?.result?.status === "waiting-approval", "the run to ask again", 20_000);
    const again = await approvalOf(runId);
    const asksAgain = await decide();
    expect([asksAgain.status, asksAgain.body.error.code]).toEqual([409, "WAIT_RESET"]);
    expect(asksAgain.body.error.details.askedAgainAt).toBe(new Date(again.createdAtMs).toISOString());
    expect(asksAgain.body.error.message).toContain("was reset");
    // The new request is still open: the old decision did not answer it.
    expect((await approvalOf(runId)).createdAtMs).toBe(again.createdAtMs);
    expect((await send(t.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "deny", askedAtMs: again.createdAtMs }, randomUUID())).body.result.status).toBe("accepted");
  });

  it("checks the role at delivery: a downgraded member's launch and cancel name the role held now; a removed member's writes are refused", async () => {
    const runId = await parkedRun();
    const before = await count("_flow_runs");
    const launchId = randomUUID();
    try {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "read" });
      const launch = await send(t.url, "bea", "/v1/api/runs", RELEASE, launchId);
      const cancel = await send(other.url, "bea", `/v1/api/runs/${runId}/cancel`, {}, randomUUID());
      for (const r of [launch, cancel]) {
        expect([r.status, r.body.error.code, r.body.error.details.role, r.body.error.details.requiredScope]).toEqual([403, "FORBIDDEN", "read", "run:write"]);
        expect(r.body.error.message).toContain("role read");
      }
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.removeMember", { userId: "bea" });
      const removed = [
        await send(other.url, "bea", "/v1/api/runs", RELEASE, randomUUID()),
        await send(t.url, "bea", "/v1/api/approvals", { runId, nodeId: "ship", decision: "approve" }, randomUUID()),
        await send(t.url, "bea", "/v1/api/signals", { name: "go", runId }, randomUUID()),
      ];
      for (const r of removed) expect([r.status, r.body.error.code, r.body.error.details.userId]).toEqual([403, "WORKSPACE_NOT_MEMBER", "bea"]);
      expect(await count("_flow_runs")).toBe(before);
      expect((await t.call("ana", "GET", `/v1/api/runs/${runId}`)).body.result.status).toBe("waiting-approval");
    } finally {
      await t.call("ana", "POST", "/v1/rpc/ext.workspace.addMember", { userId: "bea", role: "approve" });
    }
    // A refusal applied nothing and recorded nothing: with the role back, the same write id applies.
    expect((await send(other.url, "bea", "/v1/api/runs", RELEASE, launchId)).status).toBe(200);
    expect(await count("_flow_runs")).toBe(before + 1);
  });
});
