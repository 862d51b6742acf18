/**
 * What starts runs without a person: cron schedules (rows `gateway:<key>`, one catch-up run
 * after downtime, one firing across gateways sharing a store) and webhooks signed as GitHub
 * signs them (HMAC-SHA256 of the raw body, redelivery a no-op, a bad signature changes nothing).
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { gatewayWorkflows } from "./fixtures/gateway-workflows.js";
import { Gateway } from "./gateway.js";
import { rpc, startTestGateway, type TestGateway, until } from "./gateway-testing.js";
import { signWebhookBody } from "./webhooks/signature.js";

async function count(t: TestGateway, table: string, where = "1 = 1", params: unknown[] = []): Promise<number> {
  const [row] = await t.gateway.host.db.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`, params as never);
  return Number(row!.n);
}

describe("cron", () => {
  it("writes the row gateway:<key> and fires runs as role system, triggeredBy cron:gateway, scopes *", async () => {
    const t = await startTestGateway({ heartbeatMs: 1000 }, { greet: { schedule: "* * * * * *", scheduleInput: { name: "cron" } } });
    const crons = await rpc(t.url, "cronList", {});
    expect(crons.body.result).toEqual(expect.arrayContaining([expect.objectContaining({ cronId: "gateway:greet", workflowKey: "greet", schedule: "* * * * * *" })]));
    const [run] = await until(
      () => t.gateway.host.db.store.query<{ run_id: string; auth_json: string; input_json: string }>(`SELECT run_id, auth_json, input_json FROM _flow_runs WHERE workflow_name = 'greet'`),
      (rows) => rows.length > 0,
      "a cron-fired run",
    );
    expect(JSON.parse(run!.auth_json)).toMatchObject({ role: "system", triggeredBy: "cron:gateway", scopes: ["*"] });
    expect(JSON.parse(run!.input_json)).toEqual({ name: "cron" });
  });

  it("starts one catch-up run for slots missed while no gateway ran, once across gateways sharing the store", async () => {
    const first = await startTestGateway({}, { greet: { schedule: "0 0 1 1 *" } });
    await first.gateway.close();
    const missedSince = Date.now() - 3 * 3_600_000;
    await first.gateway.host.db.store.execute(`UPDATE _flow_crons SET next_run_at_ms = ? WHERE cron_id = 'gateway:greet'`, [missedSince]);
    const [a, b] = await Promise.all([startTestGateway({}, { greet: { schedule: "0 0 1 1 *" } }, first.dbPath), startTestGateway({}, { greet: { schedule: "0 0 1 1 *" } }, first.dbPath)]);
    const runs = await until(() => count(a, "_flow_runs", "workflow_name = 'greet'"), (n) => n > 0, "the catch-up run");
    await Promise.all([a.gateway.close(), b.gateway.close()]);
    expect(runs).toBe(1);
    expect(await count(a, "_flow_runs", "workflow_name = 'greet'")).toBe(1);
    const [row] = await a.gateway.host.db.store.query<{ next_run_at_ms: unknown; last_run_id: string }>(`SELECT next_run_at_ms, last_run_id FROM _flow_crons WHERE cron_id = 'gateway:greet'`);
    expect(Number(row!.next_run_at_ms)).toBeGreaterThan(Date.now());
    expect(row!.last_run_id).toMatch(/^cron-gateway-greet-/);
  });

  it("leaves the crons of workflows it does not serve to a gateway that does", async () => {
    const t = await startTestGateway();
    await t.gateway.close();
    const past = Date.now() - 60_000;
    for (const [cronId, key] of [["elsewhere", "not-here"], ["probe", "greet"]] as const) {
      await t.gateway.host.db.store.execute(
        `INSERT INTO _flow_crons (cron_id, workflow_key, expression, input_json, enabled, created_by, created_at_ms, updated_at_ms, next_run_at_ms) VALUES (?, ?, '0 0 1 1 *', '{}', 1, 'test', ?, ?, ?)`,
        [cronId, key, past, past, past],
      );
    }
    const again = await startTestGateway({}, {}, t.dbPath);
    // The probe's run shows the poll ran, and it saw both rows.
    await until(() => count(again, "_flow_runs", "workflow_name = 'greet'"), (n) => n === 1, "the probe cron's run");
    const [row] = await again.gateway.host.db.store.query<{ next_run_at_ms: unknown; last_run_id: string | null }>(`SELECT next_run_at_ms, last_run_id FROM _flow_crons WHERE cron_id = 'elsewhere'`);
    expect([Number(row!.next_run_at_ms), row!.last_run_id]).toEqual([past, null]);
  });

  it("refuses a schedule croner cannot read, or a webhook without a secret, and registers nothing", () => {
    const gateway = new Gateway();
    const { greet } = gatewayWorkflows(join(tempDir("flow-gw-"), "flow.db"));
    expect(() => gateway.register("greet", greet, { schedule: "every day" })).toThrow(/not a cron expression/);
    expect(() => gateway.register("greet", greet, { webhook: { secret: "" } })).toThrow(/needs a secret/);
    expect(gateway.host.listWorkflows()).toEqual([]);
  });
});

describe("webhooks", () => {
  const secret = "gh-webhook-secret";
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(
      { maxBodyBytes: 4096 },
      {
        greet: { webhook: { secret, run: { inputPath: "sender" } } },
        deploy: { webhook: { secret, signatureHeader: "x-signature", signaturePrefix: "", signal: { name: "go", runIdPath: "run.id", payloadPath: "head" } } },
      },
    );
  });
  afterAll(() => t.gateway.close());

  const post = (key: string, body: string, headers: Record<string, string>) => fetch(`${t.url}/webhooks/${key}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const github = (body: string, delivery = randomUUID()) => ({ "x-github-event": "push", "x-github-delivery": delivery, "x-hub-signature-256": signWebhookBody(secret, body) });

  it("starts a run from a verified delivery, and a redelivery is a no-op", async () => {
    const body = JSON.stringify({ action: "opened", sender: { name: "octocat" } });
    const headers = github(body);
    const res = await post("greet", body, headers);
    expect(res.status).toBe(200);
    const { result } = await res.json();
    expect(result).toMatchObject({ webhook: "greet", deliveryId: headers["x-github-delivery"], duplicate: false });
    const run = await t.gateway.host.db.requireRun(result.runId);
    expect(run.input).toEqual({ name: "octocat" });
    const again = await (await post("greet", body, headers)).json();
    expect(again.result).toMatchObject({ duplicate: true, runId: result.runId });
    expect(await count(t, "_flow_runs", "run_id = ?", [result.runId])).toBe(1);
    await t.gateway.host.activeRun(result.runId)?.done;
    const [row] = await t.gateway.host.db.store.query<{ auth_json: string }>(`SELECT auth_json FROM _flow_runs WHERE run_id = ?`, [result.runId]);
    expect(JSON.parse(row!.auth_json)).toMatchObject({ triggeredBy: "webhook:greet", role: "system" });
  });

  it("dedupes deliveries without a delivery id by the body's hash", async () => {
    const body = JSON.stringify({ sender: { name: "hash" }, n: 1 });
    const headers = { "x-hub-signature-256": signWebhookBody(secret, body) };
    const first = (await (await post("greet", body, headers)).json()).result;
    const second = (await (await post("greet", body, headers)).json()).result;
    expect(first.deliveryId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second).toMatchObject({ duplicate: true, deliveryId: first.deliveryId, runId: first.runId });
  });

  it("refuses a missing or bad signature with 401 and changes nothing", async () => {
    const body = JSON.stringify({ sender: { name: "mallory" } });
    const before = [await count(t, "_flow_runs"), await count(t, "_flow_webhook_deliveries"), await count(t, "_flow_signals")];
    for (const headers of [{} as Record<string, string>, { "x-hub-signature-256": signWebhookBody("wrong-secret", body) }, { "x-hub-signature-256": signWebhookBody(secret, `${body} `) }, { "x-hub-signature-256": "sha256=zz" }]) {
      const res = await post("greet", body, headers);
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe("WEBHOOK_SIGNATURE_INVALID");
    }
    expect([await count(t, "_flow_runs"), await count(t, "_flow_webhook_deliveries"), await count(t, "_flow_signals")]).toEqual(before);
  });

  it("delivers the configured signal to the run at runIdPath with the data at payloadPath, once", async () => {
    const { body: launched } = await rpc(t.url, "launchRun", { workflow: "deploy", input: {} });
    const runId = launched.result.runId as string;
    await t.gateway.host.activeRun(runId)?.done;
    expect((await t.gateway.host.db.requireRun(runId)).status).toBe("waiting-event");
    const body = JSON.stringify({ run: { id: runId }, head: { sha: "c0ffee" } });
    const headers = { "x-signature": signWebhookBody(secret, body, ""), "x-github-delivery": "d-1" };
    const res = await (await post("deploy", body, headers)).json();
    expect(res.result.signal).toMatchObject({ name: "go", runId, status: "accepted" });
    await t.gateway.host.activeRun(runId)?.done;
    expect((await t.gateway.host.db.requireRun(runId)).status).toBe("finished");
    expect(await t.gateway.host.db.listOutputs(runId, "deployment")).toEqual([expect.objectContaining({ sha: "c0ffee", nodeId: "ship" })]);
    expect((await (await post("deploy", body, headers)).json()).result.duplicate).toBe(true);
    expect(await count(t, "_flow_events", "run_id = ? AND type = 'SignalReceived'", [runId])).toBe(1);
  });

  it("answers 413 for a body over maxBodyBytes and 404 for an unknown webhook", async () => {
    const big = JSON.stringify({ sender: { name: "x".repeat(5000) } });
    const tooBig = await post("greet", big, github(big));
    expect(tooBig.status).toBe(413);
    expect((await tooBig.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await post("slow", "{}", github("{}"))).status).toBe(404);
  });
});
