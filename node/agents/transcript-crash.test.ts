/**
 * A process killed with SIGKILL mid-generation: the transcript streamed so far is in the
 * events log, and the resumed run marks that attempt interrupted, keeps what its model steps
 * spent as its meta, and records the next one.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createFlow, FlowDb } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { startProviderServer } from "./testing/provider-server.js";
import { main } from "../cli/main.js";
import type { ProviderServer } from "./testing/provider-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = join(ROOT, "node/agents/fixtures/agent-crash-workflow.tsx");
const servers: ProviderServer[] = [];
afterAll(async () => void (await Promise.all(servers.map((s) => s.close()))));

function flowUp(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> } {
  const child = spawn(process.execPath, [join(ROOT, "node/cli/bin.mjs"), "up", FIXTURE, "--log-dir", "none", ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return { child, done: new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, out }))) };
}

describe("a generation killed with SIGKILL", () => {
  it("keeps its partial transcript, marked interrupted on resume", { timeout: 120_000 }, async () => {
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
    // A model step that asks for a tool (11 + 7 tokens, its AgentStepUsage flushed), then text that streams until the kill.
    const s = await startProviderServer([{ toolCalls: [{ id: "c1", name: "read", args: { path: "package.json" } }] }, { text: words, everyMs: 30 }, { text: '{"city":"Oslo","tempC":21}' }]);
    servers.push(s);
    const dir = tempDir();
    const env = { FLOW_TEST_DB: join(dir, "flow.db"), FLOW_TEST_MODEL_URL: s.url };
    const first = flowUp(["--run-id", "gen-crash", "--input", "{}"], env);
    const db = new FlowDb(createFlow({}, { dbPath: env.FLOW_TEST_DB }).db);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const deltas = (await db.listEvents("gen-crash").catch(() => [])).filter((e) => e.type === "AgentTextDelta");
      if (deltas.length >= 2) break;
      if (Date.now() > deadline) throw new Error(`no streamed text recorded: ${(await Promise.race([first.done, Promise.resolve({ out: "(running)" })])).out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    first.child.kill("SIGKILL");
    expect((await first.done).signal).toBe("SIGKILL");

    const [partial] = await db.getTranscript("gen-crash", "ask");
    expect(partial!.generations[0]!.status).toBe("running");
    const text = partial!.generations[0]!.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
    expect(text.length).toBeGreaterThan(0);
    expect(words.startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(words.length);

    // Before the resume, `flow runs` counts what the attempt the dead process left had spent.
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void out.push(t), cwd: dir, env: { NO_COLOR: "1" }, isTTY: false };
    expect(await main(["runs", "gen-crash", "--db", env.FLOW_TEST_DB], io)).toBe(0);
    expect(out.join("")).toContain("Agents: 11 in / 7 out tokens, <$0.0001 so far over 1 attempt left in progress (child runs included)");
    const node: string[] = [];
    expect(await main(["runs", "gen-crash", "--node", "ask", "--db", env.FLOW_TEST_DB], { ...io, stdout: (t: string) => void node.push(t) })).toBe(0);
    expect(node.join("")).toMatch(/^Attempt 1 · left in progress {2}11 in \/ 7 out tokens, <\$0\.0001$/m);

    const second = flowUp(["--run-id", "gen-crash", "--resume"], env);
    const resumed = await second.done;
    expect(resumed.code, resumed.out).toBe(0);
    // Its closing line says what this process's agents spent, and the whole run's (the killed attempt's step too).
    expect(resumed.out).toContain("; agents: 11 in / 7 out tokens, <$0.0001 in this process, 22 in / 14 out tokens, <$0.0001 over the whole run.");
    const [a1, a2] = await db.getTranscript("gen-crash", "ask");
    expect(a1).toMatchObject({ attempt: 1, interrupted: true });
    expect(a1!.generations[0]!.status).toBe("interrupted");
    expect(a1!.generations[0]!.parts).toEqual(partial!.generations[0]!.parts);
    expect(a2).toMatchObject({ attempt: 2, interrupted: false });
    expect(a2!.generations[0]).toMatchObject({ status: "finished", model: "gpt-4o-mini" });
    expect(a2!.costUsd).toBeGreaterThan(0);
    // The killed attempt's step was paid for: it is the attempt's meta, and the run's usage counts it.
    const [killed] = await db.listAttempts("gen-crash", "ask");
    expect(killed).toMatchObject({ attempt: 1, state: "cancelled", meta: { usage: { inputTokens: 11, outputTokens: 7 } } });
    expect((killed!.meta as { costUsd?: number }).costUsd).toBeGreaterThan(0);
    const usage = await db.getRunUsage("gen-crash");
    expect(usage.byNode.ask).toMatchObject({ inputTokens: 22, outputTokens: 14, attempts: 2 });
  });
});
