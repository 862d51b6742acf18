/**
 * Run rows carry their agents' tokens and cost (`usage`, docs/hosting.md "Rows"): the runs
 * list's page, a summary refresh and a full run row sum the attempts' `meta_json` of the run
 * and of its child runs (`<runId>/...`), never of a run whose id merely starts the same; a
 * run without agent usage says null. Over a real Gateway on a SQLite file, read over HTTP.
 */
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppGateway } from "../../scripts/app-gateway.js";
import type { Gateway } from "./gateway.js";

describe("usage in run rows", () => {
  let gateway: Gateway;
  let url = "";
  const rpc = async (method: string, params: unknown) => {
    const body = (await (await fetch(`${url}/v1/rpc/${method}`, { method: "POST", body: JSON.stringify(params) })).json()) as { ok: boolean; result: any; error?: unknown };
    expect(body.ok, JSON.stringify(body.error)).toBe(true);
    return body.result;
  };
  beforeAll(async () => {
    gateway = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-usage-rows-")), "flow.db") });
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(() => gateway?.close());

  it("sums the run's and its child runs' attempts, and only theirs", async () => {
    const { runId } = await rpc("launchRun", { workflow: "hello", input: { name: "Ada" } });
    const { runId: other } = await rpc("launchRun", { workflow: "hello", input: { name: "Bob" } });
    await expect.poll(async () => (await rpc("getRun", { runId })).status, { timeout: 30_000 }).toBe("finished");
    await expect.poll(async () => (await rpc("getRun", { runId: other })).status, { timeout: 30_000 }).toBe("finished");
    expect((await rpc("getRun", { runId })).usage).toBeNull();

    // The task's attempt as an agent's would record it, a child run's attempt, and attempts of
    // runs whose ids only start like this one's (`<id>0`, `<id>-x`): those must not count.
    const store = gateway.host.db.store;
    await store.execute(`UPDATE _flow_attempts SET meta_json = ? WHERE run_id = ?`, [JSON.stringify({ usage: { inputTokens: 20, outputTokens: 10, totalTokens: 30 }, costUsd: 0.001 }), runId]);
    const insert = (id: string, meta: unknown) => store.execute(`INSERT INTO _flow_attempts (run_id, node_id, iteration, attempt, state, started_at_ms, meta_json) VALUES (?, 'ask', 0, 1, 'finished', 0, ?)`, [id, JSON.stringify(meta)]);
    await insert(`${runId}/sub@0`, { usage: { inputTokens: 5, outputTokens: 5, totalTokens: 10 }, costUsd: 0.0005 });
    await insert(`${runId}0`, { usage: { totalTokens: 1000 }, costUsd: 1 });
    await insert(`${runId}-x`, { usage: { totalTokens: 1000 }, costUsd: 1 });

    const expected = { inputTokens: 25, outputTokens: 15, totalTokens: 40, costUsd: 0.0015, attempts: 2 };
    const page = await rpc("listRuns", {});
    expect(page.runs.find((r: { runId: string }) => r.runId === runId).usage).toEqual(expected);
    expect(page.runs.find((r: { runId: string }) => r.runId === other).usage).toBeNull();
    expect((await rpc("getRun", { runId })).usage).toEqual(expected);
    const summary = (await (await fetch(`${url}/v1/api/runs/${encodeURIComponent(runId)}?view=summary`)).json()) as { result: { usage: unknown; nodes?: unknown } };
    expect(summary.result.nodes).toBeUndefined();
    expect(summary.result.usage).toEqual(expected);
    // The same total getRunUsage answers for the run header.
    expect((await rpc("getRunUsage", { runId })).total).toMatchObject(expected);
  }, 60_000);

  it("reads a page of 500 runs, the most listRuns gives, with the usage of its last run", async () => {
    const { runId } = await rpc("launchRun", { workflow: "hello", input: { name: "Cy" } });
    await expect.poll(async () => (await rpc("getRun", { runId })).status, { timeout: 30_000 }).toBe("finished");
    // 500 older copies of the run's row; the oldest ones, at the page's end, have an agent's usage.
    const store = gateway.host.db.store;
    const columns = (await store.query<{ name: string }>("PRAGMA table_info(_flow_runs)")).map((c) => c.name);
    const copy = columns.map((c) => (c === "run_id" ? `'page-' || printf('%03d', n)` : c === "created_at_ms" ? "created_at_ms - 1000 * n" : c)).join(", ");
    await store.execute(`WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < 500) INSERT INTO _flow_runs (${columns.join(", ")}) SELECT ${copy} FROM _flow_runs, seq WHERE run_id = ?`, [runId]);
    const meta = JSON.stringify({ usage: { totalTokens: 7 }, costUsd: 0.002 });
    for (let n = 480; n <= 500; n++) await store.execute(`INSERT INTO _flow_attempts (run_id, node_id, iteration, attempt, state, started_at_ms, meta_json) VALUES (?, 'ask', 0, 1, 'finished', 0, ?)`, [`page-${n}`, meta]);

    const page = await rpc("listRuns", { limit: 500 });
    expect(page.runs).toHaveLength(500);
    expect(page.runs.at(-1).runId).toMatch(/^page-4[89]\d$/);
    expect(page.runs.at(-1).usage).toEqual({ totalTokens: 7, costUsd: 0.002, attempts: 1 });
  }, 60_000);
});
