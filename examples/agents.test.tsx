/**
 * The agents example end to end on a real SQLite store: the planner chain fails over from a
 * rate-limited local server to a hosted endpoint (both local HTTP servers speaking the OpenAI
 * protocol), the coder is the fake `claude` CLI on PATH; attempts record usage and sessions.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { createFlow, FlowDb, HostedChatAgent, LocalServerAgent, runWorkflow, SessionCliAgent } from "durable-flow";
import { installFakeClis } from "../node/agents/testing/fake-cli.js";
import { startProviderServer } from "../node/agents/testing/provider-server.js";
import type { ProviderServer } from "../node/agents/testing/provider-server.js";

const servers: ProviderServer[] = [];
afterAll(async () => Promise.all(servers.map((s) => s.close())));

describe("examples/agents.tsx", () => {
  it("plans through a failover chain, fixes with a CLI agent, and records usage per attempt", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flow-agents-example-"));
    const cwd = process.cwd();
    onTestFinished(() => process.chdir(cwd)); // other files share this process (vite.config.ts)
    process.chdir(dir); // the module's default export opens .flow/flow.db in the working directory
    const { schemas, triageWorkflow } = await import("./agents.js");
    const limited = await startProviderServer([{ status: 429, headers: { "retry-after": "3600" }, message: "rate limit exceeded" }]);
    const hosted = await startProviderServer([{ text: 'Plan:\n```json\n{"steps":["Guard empty input","Add a test"],"risk":"low"}\n```' }]);
    servers.push(limited, hosted);
    const fakes = installFakeClis();
    const result = { type: "result", subtype: "success", is_error: false, result: '{"summary":"Guarded empty input and added a test.","filesChanged":2}', session_id: "sess-fix", usage: { input_tokens: 900, output_tokens: 40 } };

    const api = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = triageWorkflow(api, {
      planner: [new LocalServerAgent({ id: "local", baseURL: limited.url }), new HostedChatAgent({ id: "hosted", model: "gpt-test", baseURL: hosted.url, apiKey: "sk", nativeStructuredOutput: false })],
      coder: new SessionCliAgent({ id: "coder", env: fakes.env({ stdout: [result] }) }),
    });
    const run = await runWorkflow(wf, { input: { issue: "Parser crashes on empty input" } });
    expect(run.status).toBe("finished");
    expect(run.output).toEqual({ summary: "Guarded empty input and added a test.", filesChanged: 2 });

    const db = new FlowDb(api.db);
    const [plan] = await db.listAttempts(run.runId, "plan");
    expect(plan!.meta).toMatchObject({ agentId: "hosted", agentIndex: 1, calls: 2, schemaRetries: 0, usage: { inputTokens: 11, outputTokens: 7 }, failover: [{ agentId: "local", kind: "quota" }] });
    expect(typeof plan!.meta!.latencyMs).toBe("number");
    const [fix] = await db.listAttempts(run.runId, "fix");
    expect(fix!.meta).toMatchObject({ agentId: "coder", engine: "claude-code", sessionId: "sess-fix", usage: { inputTokens: 900, outputTokens: 40 } });

    const argv = fakes.records().at(-1)!.args;
    expect(argv.join(" ")).toContain("--allowed-tools Read Edit");
    expect(argv.at(-1)).toContain("1. Guard empty input\n2. Add a test");
    expect(argv.at(-1)).toContain("**REQUIRED OUTPUT**");
    expect(fakes.records().at(-1)!.env).toMatchObject({ FLOW_RUN_ID: run.runId, FLOW_NODE_ID: "fix", FLOW_ATTEMPT: "1" });
  });
});
