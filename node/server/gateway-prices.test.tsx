/**
 * The Gateway's `prices` option prices the agent generations of the runs it hosts; the domain
 * API serves a run's tokens and cost and a task's transcript.
 */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, FlowDb, Gateway, HostedChatAgent } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { startProviderServer } from "../agents/testing/provider-server.js";
import type { ProviderServer } from "../agents/testing/provider-server.js";
import { until } from "./gateway-testing.js";

const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

describe("Gateway prices and the usage and transcript routes", () => {
  it("costs a hosted run's agent generations with the Gateway's price table", async () => {
    const s = await startProviderServer([{ text: '{"answer":"yes"}' }]);
    servers.push(s);
    const dir = tempDir("flow-gw-prices-");
    const { flow, Workflow, Task, outputs, db } = createFlow({ reply: z.object({ answer: z.string() }) }, { dbPath: join(dir, "flow.db") });
    const agent = new HostedChatAgent({ model: "house-model", baseURL: s.url, apiKey: "k", api: "chat", nativeStructuredOutput: false });
    const wf = flow(() => (
      <Workflow name="ask">
        <Task id="ask" output={outputs.reply} agent={agent}>Yes?</Task>
      </Workflow>
    ));
    const gateway = new Gateway({ workspaceRoot: dir, prices: { "house-model": { input: 1000, output: 2000 } } });
    gateway.register("ask", wf);
    const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workflow: "ask", input: {}, runId: "p1" }) });
      expect(res.status).toBe(200);
      const fdb = new FlowDb(db);
      await until(() => fdb.getRun("p1"), (r) => r?.status === "finished", "run p1 to finish");
      const { total } = await fdb.getRunUsage("p1");
      // One model call: 11 input tokens × $1000 + 7 output × $2000 per million.
      expect(total).toMatchObject({ inputTokens: 11, outputTokens: 7, costUsd: 0.025, attempts: 1 });
      const usage = await (await fetch(`${url}/v1/api/runs/p1/usage`)).json();
      expect(usage.result).toEqual({ total, byNode: { ask: total } });
      const transcript = await (await fetch(`${url}/v1/api/runs/p1/nodes/ask/transcript`)).json();
      expect(transcript.result).toEqual([expect.objectContaining({ attempt: 1, interrupted: false, costUsd: 0.025 })]);
      expect(transcript.result[0].generations[0]).toMatchObject({ status: "finished", model: "house-model", prompt: expect.stringContaining("Yes?"), parts: [{ kind: "text", text: '{"answer":"yes"}' }] });
      const rpc = await fetch(`${url}/v1/rpc/getTranscript`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ runId: "nope", nodeId: "ask" }) });
      expect(rpc.status).toBe(404);
    } finally {
      await gateway.close();
    }
  }, 60_000);
});
