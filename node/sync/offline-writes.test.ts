/**
 * Offline writes reaching a team workspace (issue #28, docs/multiplayer.md "Offline writes"):
 * two Gateways on the real PostgreSQL, real HTTP over loopback. A write sent with
 * `flow-write-id` applies once — after an answer the client never heard, resent to either
 * Gateway, or resent many times at once across both — and is answered with the first answer
 * and its txid; an id reused for another write is refused.
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

  it("applies concurrent resends across both Gateways once, and answers each with the same answer", async () => {
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
