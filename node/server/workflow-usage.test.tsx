/**
 * Cost per workflow over time (`GET /v1/api/workflows/:workflow/usage`, issue #26) and a token
 * budget that reads the same numbers: a Gateway with a price table runs a workflow whose
 * `<Aspects tokenBudget>` holds a Subflow (the child run's agent spends the tokens) and a
 * second agent task; the budget counts the child's tokens as the run's usage does, and the
 * route sums the runs per UTC day, child runs rolled into their parent.
 */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, FlowDb, Gateway, HostedChatAgent } from "durable-flow";
import { createDataClient } from "durable-flow/data";
import { startProviderServer, type ProviderServer } from "../agents/testing/provider-server.js";
import { tempDir } from "../testing/backends.js";
import { until } from "./gateway-testing.js";

const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

const DAY_MS = 86_400_000;

describe("a workflow's usage over time", () => {
  it("sums each day's runs with their child runs, and the token budget counts the child's tokens", async () => {
    // Each model call reports 11 input and 7 output tokens (18).
    const s = await startProviderServer([{ text: '{"text":"draft one"}' }, { text: '{"text":"draft two"}' }, { text: '{"text":"extra"}' }]);
    servers.push(s);
    const dir = tempDir("flow-wf-usage-");
    const api = createFlow({ note: z.object({ text: z.string() }), output: z.object({ text: z.string() }) }, { dbPath: join(dir, "flow.db") });
    const { flow, Workflow, Task, Sequence, Subflow, Aspects, outputs } = api;
    const agent = new HostedChatAgent({ model: "house-model", baseURL: s.url, apiKey: "k", api: "chat", nativeStructuredOutput: false });
    const draft = flow(() => (
      <Workflow name="draft">
        <Task id="write" output={outputs.output} agent={agent}>Write a draft.</Task>
      </Workflow>
    ));
    const ask = flow(() => (
      <Workflow name="ask">
        <Aspects id="spend" tokenBudget={{ max: 10, onExceeded: "skip-remaining" }} tracking={{ tokens: true }}>
          <Sequence>
            <Subflow id="draft" workflow={draft} input={{}} output={outputs.note} />
            <Task id="extra" output={outputs.note} agent={agent}>One more.</Task>
          </Sequence>
        </Aspects>
      </Workflow>
    ));
    const gateway = new Gateway({ workspaceRoot: dir, prices: { "house-model": { input: 1000, output: 2000 } } });
    gateway.register("ask", ask);
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: url } });
    try {
      const db = new FlowDb(api.db);
      for (const runId of ["u1", "u2"]) {
        await data.api.launchRun({ workflow: "ask", runId });
        await until(() => db.getRun(runId), (r) => r?.status === "finished", `run ${runId} to finish`);
      }
      // The budget read the child run's 18 tokens: the task after it in the block was skipped.
      expect((await db.listNodes("u1")).find((n) => n.nodeId === "extra")?.state).toBe("cancelled");
      const { total } = await db.getRunUsage("u1");
      expect(total).toMatchObject({ inputTokens: 11, outputTokens: 7, totalTokens: 18, costUsd: 0.025, attempts: 1 });
      expect(JSON.stringify((await db.getFrame("u1"))!.xml)).toContain(`"tokens":"${total.totalTokens}"`);

      // u2 as if started three days ago.
      await db.store.execute(`UPDATE _flow_runs SET created_at_ms = created_at_ms - ? WHERE run_id = ?`, [3 * DAY_MS, "u2"]);
      const usage = await data.api.getWorkflowUsage("ask", { days: 7 });
      expect(usage.total).toMatchObject({ runs: 2, attempts: 2, inputTokens: 22, outputTokens: 14, totalTokens: 36, costUsd: 0.05 });
      expect(usage.byDay).toHaveLength(7);
      const today = new Date().toISOString().slice(0, 10);
      expect(usage.byDay[6]).toMatchObject({ day: today, runs: 1, attempts: 1, totalTokens: 18, costUsd: 0.025 });
      expect(usage.byDay[3]).toMatchObject({ runs: 1, attempts: 1, totalTokens: 18 });
      expect(usage.byDay.filter((d) => d.runs === 0).every((d) => d.attempts === 0 && d.costUsd === undefined)).toBe(true);
      expect(usage.byDay.map((d) => d.startMs)).toEqual(usage.byDay.map((_, i) => usage.byDay[0]!.startMs + i * DAY_MS));
      // A shorter window leaves u2 out; the child run is never a run of its own.
      expect((await data.api.getWorkflowUsage("ask", { days: 2 })).total).toMatchObject({ runs: 1, totalTokens: 18 });
      const raw = await fetch(`${url}/v1/api/workflows/ask/usage?days=abc`);
      expect(raw.status).toBe(400);
    } finally {
      data.close();
      await gateway.close();
    }
  }, 60_000);
});
