/**
 * What a failed agent attempt spent counts: its calls' tokens and cost are the attempt's meta,
 * so the run's usage (the console's header, `flow runs`) and the workflow's cost include them.
 */
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, FlowDb, HostedChatAgent, runWorkflow } from "durable-flow";
import { tempDir } from "../testing/temp-dir.js";
import { startProviderServer } from "./testing/provider-server.js";
import type { ProviderServer } from "./testing/provider-server.js";

const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

it("records the tokens and cost of an agent attempt that failed, in the attempt and in the run's usage", async () => {
  // Four answers that are no row: the first and its three corrections (11 + 7 tokens each).
  const server = await startProviderServer(Array.from({ length: 4 }, () => ({ text: "I could not find the weather." })));
  servers.push(server);
  const dir = tempDir("flow-failed-spend-");
  const { flow, Workflow, Task, outputs, db } = createFlow({ weather: z.object({ city: z.string(), tempC: z.number() }) }, { dbPath: join(dir, "flow.db") });
  const agent = new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: server.url, apiKey: "k", api: "chat" });
  const wf = flow(() => (
    <Workflow name="weather">
      <Task id="ask" output={outputs.weather} agent={agent} retries={0}>
        Weather in Oslo?
      </Task>
    </Workflow>
  ));
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, prices: { "gpt-4o-mini": { input: 1, output: 2 } } });
  expect(result).toMatchObject({ status: "failed", error: { code: "TASK_OUTPUT_INVALID" } });
  expect(server.requests).toHaveLength(4);

  const flowDb = new FlowDb(db);
  const [attempt] = await flowDb.listAttempts(result.runId, "ask");
  expect(attempt).toMatchObject({ state: "failed", meta: { calls: 4, usage: { inputTokens: 44, outputTokens: 28 } } });
  const usage = await flowDb.getRunUsage(result.runId);
  expect(usage.total).toMatchObject({ inputTokens: 44, outputTokens: 28, attempts: 1 });
  expect(usage.total.costUsd).toBeCloseTo((44 * 1 + 28 * 2) / 1e6, 12);
  expect(usage.byNode.ask).toMatchObject({ inputTokens: 44, outputTokens: 28 });
});

/** Two answers that are no row, then one that streams for 3 s: the attempt is cut during the third call. */
async function slowThirdCall() {
  const server = await startProviderServer([{ text: "I could not find it." }, { text: "Still nothing." }, { text: Array.from({ length: 30 }, (_, i) => `w${i}`).join(" "), everyMs: 100 }]);
  servers.push(server);
  const dir = tempDir("flow-cut-spend-");
  const api = createFlow({ weather: z.object({ city: z.string(), tempC: z.number() }) }, { dbPath: join(dir, "flow.db") });
  const agent = new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: server.url, apiKey: "k", api: "chat" });
  return { server, dir, api, agent };
}

it("records what an agent attempt its timeout cut had spent: the calls that returned", async () => {
  const { server, dir, api, agent } = await slowThirdCall();
  const { flow, Workflow, Task, outputs, db } = api;
  const wf = flow(() => (
    <Workflow name="weather">
      <Task id="ask" output={outputs.weather} agent={agent} retries={0} timeoutMs={1_000}>
        Weather in Oslo?
      </Task>
    </Workflow>
  ));
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, prices: { "gpt-4o-mini": { input: 1, output: 2 } } });
  expect(result).toMatchObject({ status: "failed", error: { code: "TASK_TIMEOUT" } });
  expect(server.requests).toHaveLength(3);
  const flowDb = new FlowDb(db);
  const [attempt] = await flowDb.listAttempts(result.runId, "ask");
  // Three calls made; the third never answered, so its tokens are not known.
  expect(attempt).toMatchObject({ state: "failed", meta: { calls: 3, usage: { inputTokens: 22, outputTokens: 14 } } });
  expect((await flowDb.getRunUsage(result.runId)).total).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 1 });
});

it("records what an agent attempt a cancel of its run cut had spent", async () => {
  const { server, dir, api, agent } = await slowThirdCall();
  const { flow, Workflow, Task, outputs, db } = api;
  const wf = flow(() => (
    <Workflow name="weather">
      <Task id="ask" output={outputs.weather} agent={agent} retries={0}>
        Weather in Oslo?
      </Task>
    </Workflow>
  ));
  const cancel = new AbortController();
  const asked = setInterval(() => server.requests.length === 3 && cancel.abort(), 20);
  const result = await runWorkflow(wf, { input: {}, rootDir: dir, signal: cancel.signal }).finally(() => clearInterval(asked));
  expect(result.status).toBe("cancelled");
  const flowDb = new FlowDb(db);
  const [attempt] = await flowDb.listAttempts(result.runId, "ask");
  expect(attempt).toMatchObject({ state: "cancelled", meta: { calls: 3, usage: { inputTokens: 22, outputTokens: 14 } } });
  expect((await flowDb.getRunUsage(result.runId)).total).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 1 });
});
