/**
 * Write ids in a local Gateway (a SQLite file, no team): a write sent with `flow-write-id`
 * applies once, a resend answers the first answer, concurrent resends apply once, an id used
 * for another write is refused, a malformed id is refused before anything runs, and a refusal
 * is judged again on a resend. The team side (PostgreSQL, two Gateways) is
 * node/sync/offline-writes.test.ts.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bodyHashOf } from "../../core/api/internal.js";
import { startTestGateway, type TestGateway } from "./gateway-testing.js";

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway({ heartbeatMs: 1000 });
});

afterAll(async () => {
  await t?.gateway.close();
});

async function send(path: string, body: unknown, writeId?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(writeId ? { "flow-write-id": writeId } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function count(table: string, where: string, params: string[]): Promise<number> {
  const [row] = await t.gateway.host.db.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params);
  return Number(row!.n);
}

const greets = () => count("_flow_runs", "workflow_name = ?", ["greet"]);

describe("write ids in a local Gateway", () => {
  it("applies a launch once and answers resends, sequential and concurrent, with the first answer", async () => {
    const before = await greets();
    const id = randomUUID();
    const first = await send("/v1/api/runs", { workflow: "greet", input: { name: "once" } }, id);
    expect(first.status).toBe(200);
    const again = await send("/v1/api/runs", { workflow: "greet", input: { name: "once" } }, id);
    expect(again).toEqual(first);
    expect(await greets()).toBe(before + 1);
    const [row] = await t.gateway.host.db.store.query<{ sent_by: string; request: string; status: number; answer_json: string }>(`SELECT * FROM _flow_write_ids WHERE write_id = ?`, [id]);
    expect(row).toMatchObject({ workspace_id: "", sent_by: "anonymous", request: "POST /v1/api/runs", status: 200 });
    expect(JSON.parse(row!.answer_json)).toEqual(first.body);

    const together = randomUUID();
    const answers = await Promise.all(Array.from({ length: 6 }, () => send("/v1/rpc/launchRun", { workflow: "greet", input: { name: "together" } }, together)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]!.status).toBe(200);
    expect(await greets()).toBe(before + 2);
    // Without the header nothing changes: every send is a write.
    await send("/v1/api/runs", { workflow: "greet", input: {} });
    await send("/v1/api/runs", { workflow: "greet", input: {} });
    expect(await greets()).toBe(before + 4);
  });

  it("records a signal in the transaction that delivers it, and replays its answer", async () => {
    const { runId } = (await send("/v1/api/runs", { workflow: "deploy", input: {} })).body.result;
    const id = randomUUID();
    const first = await send("/v1/api/signals", { name: "go", runId, payload: { sha: "abc" } }, id);
    expect(first.body.result).toMatchObject({ status: "accepted" });
    expect(await send("/v1/api/signals", { name: "go", runId, payload: { sha: "abc" } }, id)).toEqual(first);
    expect(await count("_flow_signals", "run_id = ?", [runId])).toBe(1);
  });

  it("refuses an id used for another request or body, and a malformed id, applying nothing", async () => {
    const before = await greets();
    const id = randomUUID();
    await send("/v1/api/runs", { workflow: "greet", input: { name: "a" } }, id);
    const otherBody = await send("/v1/api/runs", { workflow: "greet", input: { name: "b" } }, id);
    expect([otherBody.status, otherBody.body.error.code, otherBody.body.error.details.reason]).toEqual([409, "WRITE_ID_CONFLICT", "another-body"]);
    const otherPath = await send("/v1/rpc/launchRun", { workflow: "greet", input: { name: "a" } }, id);
    expect([otherPath.status, otherPath.body.error.code, otherPath.body.error.details.reason]).toEqual([409, "WRITE_ID_CONFLICT", "another-request"]);
    // The same body with its keys in another order is the same write.
    expect((await send("/v1/api/runs", { input: { name: "a" }, workflow: "greet" }, id)).status).toBe(200);
    for (const bad of ["x".repeat(129), "a b", "../etc", "é", "-lead"]) {
      const r = await send("/v1/api/runs", { workflow: "greet", input: {} }, bad);
      expect([bad, r.status, r.body.error.code, r.body.error.details.header]).toEqual([bad, 400, "INVALID_ARGUMENT", "flow-write-id"]);
    }
    expect(await greets()).toBe(before + 1);
  });

  it("answers a resend of a write applied but never answered (its Gateway stopped) with what is known: applied", async () => {
    const id = randomUUID();
    const body = { workflow: "greet", input: { name: "orphan" } };
    // The state a Gateway leaves when it stops between the write's commit and its answer: the
    // ledger row its transaction wrote, with no answer (a minute ago: that request is gone).
    await t.gateway.host.db.store.execute(`INSERT INTO _flow_write_ids (workspace_id, write_id, sent_by, request, body_hash, txid, status, answer_json, applied_at_ms) VALUES ('', ?, 'anonymous', 'POST /v1/api/runs', ?, NULL, NULL, NULL, ?)`, [
      id,
      await bodyHashOf(body),
      Date.now() - 60_000,
    ]);
    const before = await greets();
    const resent = await send("/v1/api/runs", body, id);
    expect(resent).toEqual({ status: 200, body: { ok: true, result: { writeId: id, status: "applied", txid: null } } });
    expect(await greets()).toBe(before);
  });

  it("judges a refused write again on a resend: a refusal is not recorded", async () => {
    const id = randomUUID();
    const refused = await send("/v1/api/runs", { workflow: "not-registered", input: {} }, id);
    expect([refused.status, refused.body.error.code]).toEqual([404, "WORKFLOW_NOT_FOUND"]);
    expect(await count("_flow_write_ids", "write_id = ?", [id])).toBe(0);
    const { runId } = (await send("/v1/api/runs", { workflow: "deploy", input: {} })).body.result;
    const sig = randomUUID();
    // A signal for a cancelled run is refused (WAIT_CLOSED) and not recorded.
    expect((await send(`/v1/api/runs/${runId}/cancel`, {}, randomUUID())).body.result.status).toBe("cancelled");
    const closed = await send("/v1/api/signals", { name: "go", runId, payload: { sha: "x" } }, sig);
    expect([closed.status, closed.body.error.code]).toEqual([409, "WAIT_CLOSED"]);
    expect(await count("_flow_write_ids", "write_id = ?", [sig])).toBe(0);
  });
});
