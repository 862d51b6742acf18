/**
 * Agent work from the terminal: `flow up` prints tool calls as they happen (off with
 * --no-tools); `flow runs <run> --node <id>` prints the transcript, `--output` the row, and
 * `flow runs <run>` tokens and cost per task and for the run, and `flow runs` per run.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../testing/backends.js";
import { startProviderServer } from "../agents/testing/provider-server.js";
import type { ProviderServer, ScriptedTurn } from "../agents/testing/provider-server.js";
import type { CliIO } from "./command.js";
import { main } from "./main.js";
import { formatToolEvent } from "./transcript-print.js";
import type { FlowEvent } from "../../core/engine/index.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/agents/fixtures/agent-crash-workflow.tsx");
const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

function flowUp(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", FIXTURE, "--log-dir", "none", ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

function io(cwd: string): CliIO & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (t) => void out.push(t), stderr: (t) => void out.push(t), cwd, env: { NO_COLOR: "1" }, isTTY: false };
}

const turns = (): ScriptedTurn[] => [{ toolCalls: [{ id: "call_1", name: "read", args: { path: "../../../etc/passwd" } }] }, { text: '{"city":"Oslo","tempC":21}' }];

describe("agent transcripts in the terminal", () => {
  it("prints tool calls in flow up, the transcript with --node, the row with --output, and cost in flow runs", { timeout: 120_000 }, async () => {
    const s = await startProviderServer([...turns(), ...turns()]);
    servers.push(s);
    const dir = tempDir("flow-transcript-cli-");
    const env = { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_MODEL_URL: s.url };
    const up = await flowUp(["--run-id", "t1"], env);
    expect(up.code, up.out).toBe(0);
    expect(up.out).toContain('⚙ ask › read {"path":"../../../etc/passwd"}');
    expect(up.out).toMatch(/✗ ask › read refused TOOL_[A-Z_]+/);
    // The closing line says what the agents spent, as `flow runs` does below.
    expect(up.out).toMatch(/^Run t1 finished in .*; 1 attempt; agents: 22 in \/ 14 out tokens, <\$0\.0001\.$/m);
    const quiet = await flowUp(["--run-id", "t2", "--no-tools"], env);
    expect(quiet.code, quiet.out).toBe(0);
    expect(quiet.out).not.toContain("⚙");

    const node = io(dir);
    expect(await main(["runs", "t1", "--node", "ask", "--db", env.FLOW_TEST_DB], node)).toBe(0);
    const text = node.out.join("");
    expect(text).toContain("Attempt 1 · finished");
    expect(text).toContain("generation 1");
    expect(text).toContain("weather · gpt-4o-mini · finished");
    expect(text).toContain("prompt: Respond by outputting only a raw JSON object");
    expect(text).toContain("    Weather in Oslo?");
    expect(text).toMatch(/⚙ read\(\{"path":"\.\.\/\.\.\/\.\.\/etc\/passwd"\}\) ✗ TOOL_[A-Z_]+:/);
    expect(text).toContain('{"city":"Oslo","tempC":21}');
    // gpt-4o-mini's default price: 22 × $0.15 + 14 × $0.60 per million tokens.
    expect(text).toContain("22 in / 14 out tokens, <$0.0001");

    const row = io(dir);
    expect(await main(["runs", "t1", "--node", "ask", "--output", "--db", env.FLOW_TEST_DB], row)).toBe(0);
    expect(JSON.parse(row.out.join(""))).toMatchObject({ node_id: "ask", city: "Oslo", temp_c: 21 });

    const run = io(dir);
    expect(await main(["runs", "t1", "--db", env.FLOW_TEST_DB], run)).toBe(0);
    expect(run.out.join("")).toMatch(/ask .*22 in \/ 14 out tokens, <\$0\.0001/);
    expect(run.out.join("")).toContain("Agents: 22 in / 14 out tokens, <$0.0001 over 1 attempt (child runs included)");
    const list = io(dir);
    expect(await main(["runs", "--db", env.FLOW_TEST_DB], list)).toBe(0);
    expect(list.out.join("")).toMatch(/finished +t1 {2}22 in \/ 14 out tokens, <\$0\.0001 {2}/);
    const json = io(dir);
    expect(await main(["runs", "t1", "--json", "--db", env.FLOW_TEST_DB], json)).toBe(0);
    expect(JSON.parse(json.out.join("")).usage.total).toMatchObject({ inputTokens: 22, outputTokens: 14, costUsd: 0.0000117, attempts: 1 });
  });

  it("prints a failed tool call on one line, whatever its message holds", () => {
    const event = { type: "AgentToolResult", runId: "r", nodeId: "ask", iteration: 0, attempt: 1, generation: 1, callId: "c", toolName: "bash", ok: false, error: { message: "exit 1\nnpm ERR! missing script: test\n\n  at run" } } as unknown as FlowEvent;
    expect(formatToolEvent(event, false)).toBe("  ✗ ask › bash failed: exit 1 npm ERR! missing script: test at run");
  });

  it("says a tool that acted and failed failed, and one that would not act refused", () => {
    const result = (code: string) => ({ type: "AgentToolResult", runId: "r", nodeId: "fix", iteration: 0, attempt: 1, generation: 1, callId: "c", toolName: "bash", ok: false, error: { code, message: "m" } }) as unknown as FlowEvent;
    expect(formatToolEvent(result("TOOL_COMMAND_FAILED"), false)).toBe("  ✗ fix › bash failed TOOL_COMMAND_FAILED: m");
    expect(formatToolEvent(result("TOOL_TIMEOUT"), false)).toBe("  ✗ fix › bash failed TOOL_TIMEOUT: m");
    expect(formatToolEvent(result("TOOL_NETWORK_DISABLED"), false)).toBe("  ✗ fix › bash refused TOOL_NETWORK_DISABLED: m");
    expect(formatToolEvent(result("TOOL_INPUT_INVALID"), false)).toBe("  ✗ fix › bash refused TOOL_INPUT_INVALID: m");
  });
});
