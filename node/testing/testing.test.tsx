/**
 * `durable-flow/testing` as a user imports it, by name: the real `@ai-sdk/openai` provider
 * (through `HostedChatAgent`, over chat completions and Responses, streamed and paced) against
 * the kit's provider server runs a workflow whose agent calls a Flow tool; the fake CLIs are
 * there too; and `flow init`'s scaffold test, which scripts its agent's model with the kit,
 * passes as generated (against this repository's sources).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlow, defineTool, HostedChatAgent, runWorkflow } from "durable-flow";
import { FAKE_CLI_NAMES, installFakeClis, startProviderServer } from "durable-flow/testing";
import type { ProviderServer, ScriptedTurn } from "durable-flow/testing";
import { projectFiles } from "../cli/init/project-files.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const servers: ProviderServer[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const seen: string[] = [];
const lookup = defineTool({
  name: "lookup",
  schema: z.object({ city: z.string() }),
  execute: ({ city }) => {
    seen.push(city);
    return { tempC: 21 };
  },
});

describe("durable-flow/testing", () => {
  it.each(["chat", "responses"] as const)("scripts a tool call and a paced answer for @ai-sdk/openai over %s in a workflow", async (api) => {
    const turns: ScriptedTurn[] = [{ toolCalls: [{ id: "call_1", name: "lookup", args: { city: "Oslo" } }] }, { text: '{"city": "Oslo", "tempC": 21}', everyMs: 30 }];
    const server = await startProviderServer(turns);
    servers.push(server);
    const dir = mkdtempSync(join(tmpdir(), "flow-testing-"));
    dirs.push(dir);
    const agent = new HostedChatAgent({ id: "w", model: "gpt-4o-mini", baseURL: server.url, apiKey: "k", api, tools: { lookup } });
    const { flow, Workflow, Task, outputs } = createFlow({ input: z.object({}), output: z.object({ city: z.string(), tempC: z.number() }) }, { dbPath: join(dir, "flow.db") });
    const wf = flow(() => (
      <Workflow name="weather">
        <Task id="ask" output={outputs.output} agent={agent} retries={0}>
          Weather in Oslo?
        </Task>
      </Workflow>
    ));
    seen.length = 0;
    const started = performance.now();
    const result = await runWorkflow(wf, { input: {}, rootDir: dir });
    // Four words, one every 30 ms: the answer was streamed at the script's pace.
    expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    expect(result.status).toBe("finished");
    expect(result.output).toEqual({ city: "Oslo", tempC: 21 });
    expect(seen).toEqual(["Oslo"]);
    expect(server.requests.map((r) => r.path)).toEqual(api === "chat" ? ["/v1/chat/completions", "/v1/chat/completions"] : ["/v1/responses", "/v1/responses"]);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer k");
    expect(server.requests.every((r) => r.body.stream === true)).toBe(true);
    // The tool's result went back to the model in the second request.
    expect(JSON.stringify(server.requests[1]!.body)).toContain('\\"tempC\\":21');
  });

  it("installs the fake CLIs on a PATH directory and records their invocations", () => {
    const fakes = installFakeClis();
    dirs.push(fakes.binDir);
    const run = spawnSync("claude", ["-p", "hello", "--output-format", "stream-json"], { env: { ...process.env, ...fakes.env() }, encoding: "utf8" });
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split("\n").length).toBeGreaterThan(0);
    expect(fakes.records()).toMatchObject([{ name: "claude", args: ["-p", "hello", "--output-format", "stream-json"] }]);
    expect(FAKE_CLI_NAMES).toContain("codex");
  });

  it("makes flow init's scaffold test pass as generated: the agent's model scripted with the kit", () => {
    const base = join(ROOT, "node/testing");
    const dir = mkdtempSync(join(base, "scaffold-"));
    dirs.push(dir);
    const files = projectFiles({ name: "s", flowVersion: "0.1.0", versions: { zod: "4", typescript: "7", vitest: "4", "@types/node": "20" } });
    for (const name of ["workflow.tsx", "agent.tsx", "workflow.test.ts"]) writeFileSync(join(dir, name), files[name]!);
    mkdirSync(join(dir, ".flow"), { recursive: true });
    const vitest = join(ROOT, "node_modules/.bin/vitest");
    const run = spawnSync(vitest, ["run", "--root", ROOT, "--config", join(ROOT, "vite.config.ts"), join(dir, "workflow.test.ts")], { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" } });
    expect(run.stdout + run.stderr).toMatch(/Tests\s+2 passed/);
    expect(run.status).toBe(0);
  }, 120_000);
});
