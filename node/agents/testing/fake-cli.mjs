// A stand-in for the vendor coding-agent CLIs (claude, codex, agy, gemini, pi, omp, kimi, forge,
// amp, vibe, opencode, openclaw, hermes). Started as `node fake-cli.mjs <name> ...argv` by the
// wrappers that fake-cli.ts puts on PATH. It records what it was given (argv, cwd, selected
// environment variables, stdin) as one JSON line in $FAKE_CLI_RECORD, then prints that CLI's
// real output format (CLI-AGENTS.md section 4 fixtures), or what $FAKE_CLI_SCENARIO says.
// Test-only.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const [name, ...args] = process.argv.slice(2);
const scenario = JSON.parse(process.env.FAKE_CLI_SCENARIO || "{}");
const ENV_KEYS = /^(FLOW_|KIMI_|CLAUDE|ANTHROPIC_|OPENAI_|CODEX_|GEMINI_|OPENCODE_|VIBE_|MISTRAL_)/;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = (line) => process.stdout.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
const argAfter = (flag) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};

const FIXTURES = {
  claude: [
    { type: "system", subtype: "init", session_id: "3b9e0c6a-1f2d-4a1e-9c55-0d6b7f1e2a10", model: "claude-sonnet-4-5", tools: ["Bash", "Read"] },
    { type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_01", name: "Bash", input: { command: "npm test" } }] }, session_id: "3b9e0c6a-1f2d-4a1e-9c55-0d6b7f1e2a10" },
    { type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "12 passing" }] } },
    { type: "result", subtype: "success", is_error: false, result: '{"passed":12}', session_id: "3b9e0c6a-1f2d-4a1e-9c55-0d6b7f1e2a10", total_cost_usd: 0.0132, usage: { input_tokens: 1840, output_tokens: 64, cache_read_input_tokens: 1200 } },
  ],
  codex: [
    "OpenAI Codex v0.46.0 (research preview)",
    { type: "thread.started", thread_id: "0199c2a4-7e11-7d30-a5f2-4b1c9e0d2f77" },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "item_0", type: "command_execution", command: "bash -lc 'ls src'", status: "completed", exit_code: 0 } },
    { type: "item.completed", item: { id: "item_1", type: "agent_message", text: '{"files":3}' } },
    { type: "turn.completed", usage: { input_tokens: 5120, cached_input_tokens: 4096, output_tokens: 41 } },
  ],
  agy: ["Build is green. I updated src/util.ts to handle empty input and added one test."],
  gemini: [{ response: "Done.", stats: { models: { "gemini-2.5-pro": { tokens: { prompt: 790, candidates: 22, total: 812 } } } } }],
  geminiStream: [
    { type: "init", session_id: "c8e1f0aa", model: "gemini-2.5-pro" },
    { type: "message", role: "assistant", content: "Done.", delta: true },
    { type: "result", status: "success", stats: { total_tokens: 812, input_tokens: 790, output_tokens: 22 } },
  ],
  pi: [
    { type: "session", version: 3, id: "7a0d4c2e-95b1-4f7e-8a3c-1e2f3a4b5c6d", cwd: "/repo" },
    { type: "tool_execution_start", toolCallId: "call_1", toolName: "bash", args: { command: "ls" } },
    { type: "tool_execution_end", toolCallId: "call_1", toolName: "bash", result: { content: [{ type: "text", text: "src\n" }] }, isError: false },
    { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "One folder: src." } },
    { type: "agent_end", messages: [{ role: "assistant", content: [{ type: "text", text: "One folder: src." }], stopReason: "stop", usage: { input: 930, output: 12 } }] },
  ],
  kimi: ["YOLO mode is enabled. All actions will be approved automatically.", "The repo has README.md and src/."],
  kimiStream: [
    { role: "assistant", content: "Checking the repo.", tool_calls: [{ type: "function", id: "tc_1", function: { name: "Shell", arguments: '{"command":"ls"}' } }] },
    { role: "tool", tool_call_id: "tc_1", content: "README.md\nsrc" },
    { role: "assistant", content: "The repo has README.md and src/." },
  ],
  forge: ["Renamed parseCfg to parseConfig and updated 3 call sites."],
  amp: ["Added the missing index."],
  ampStream: [
    { type: "system", subtype: "init", session_id: "T-8c1d2e3f-aaaa-4bbb-8ccc-123456789abc", cwd: "/repo", tools: ["Bash", "Read"] },
    { type: "assistant", message: { content: [{ type: "text", text: "Added the missing index." }] } },
    { type: "result", subtype: "success", is_error: false, result: "Added the missing index.", session_id: "T-8c1d2e3f-aaaa-4bbb-8ccc-123456789abc", usage: { input_tokens: 700, output_tokens: 18 } },
  ],
  vibe: [{ role: "assistant", content: "Running the linter. " }, { role: "assistant", content: "No lint errors found." }],
  opencode: [
    "\u001b]0;opencode\u0007",
    { type: "step_start", timestamp: 1767225600000, sessionID: "ses_4f2a9c", part: { type: "step-start" } },
    { type: "tool_use", timestamp: 1767225601000, sessionID: "ses_4f2a9c", part: { type: "tool", tool: "bash", callID: "call_1", state: { status: "completed", input: { command: "ls" }, output: "src\n" } } },
    { type: "text", timestamp: 1767225602000, sessionID: "ses_4f2a9c", part: { type: "text", text: "The project has one folder, src." } },
    { type: "step_finish", timestamp: 1767225602500, sessionID: "ses_4f2a9c", part: { type: "step-finish", reason: "stop", cost: 0, tokens: { input: 1210, output: 14, reasoning: 0, total: 1224, cache: { read: 0, write: 0 } } } },
  ],
  openclaw: [{ status: "ok", result: { payloads: [{ text: "Ticket triaged as P2." }], meta: { sessionId: "agent:main:7f3e", durationMs: 4210 } } }],
  hermes: ["Summary: 4 open PRs; two need review from the API team."],
};

function fixture() {
  const streaming = (name === "gemini" && argAfter("-o") === "stream-json") || (name === "kimi" && argAfter("--output-format") === "stream-json") || (name === "amp" && args.includes("--stream-json"));
  if (name === "pi" || name === "omp") return args.includes("--mode") ? FIXTURES.pi : ["One folder: src."];
  return FIXTURES[streaming ? `${name}Stream` : name] ?? FIXTURES[name] ?? ["ok"];
}

async function readStdin() {
  if (process.stdin.isTTY) return "";
  let data = "";
  for await (const chunk of process.stdin) data += chunk;
  return data;
}

function record(extra) {
  if (!process.env.FAKE_CLI_RECORD) return;
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => ENV_KEYS.test(k)));
  appendFileSync(process.env.FAKE_CLI_RECORD, `${JSON.stringify({ name, args, cwd: process.cwd(), env, pid: process.pid, ...extra })}\n`);
}

async function rpc() {
  // Lines can arrive together: queue them so none is lost between two waits.
  const queue = [];
  let wake;
  createInterface({ input: process.stdin }).on("line", (l) => {
    const j = JSON.parse(l);
    record({ rpcReceived: j });
    queue.push(j);
    wake?.();
  });
  const waitFor = async (pred) => {
    for (;;) {
      const i = queue.findIndex(pred);
      if (i >= 0) return queue.splice(i, 1)[0];
      await new Promise((r) => (wake = r));
    }
  };
  if (name === "omp") out({ type: "ready" });
  if (name === "omp") {
    await waitFor((j) => j.type === "get_state");
    out({ type: "response", command: "get_state", success: true, data: { sessionId: "omp-5e2f91" } });
  }
  await waitFor((j) => j.type === "prompt");
  out({ type: "response", command: "prompt", success: true });
  if (scenario.uiRequest) {
    out({ type: "extension_ui_request", id: "ui-1", method: scenario.uiRequest, title: "Proceed?" });
    await waitFor((j) => j.type === "extension_ui_response");
  }
  for (const l of scenario.stdout ?? FIXTURES.pi) out(l);
  // Like the real CLI, stay alive until Flow ends the conversation.
  setInterval(() => {}, 1000);
}

async function main() {
  if (scenario.spawnChild) {
    // A grandchild that would outlive a careless kill; its pid is reported so tests can check it.
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    writeFileSync(scenario.spawnChild, String(child.pid));
  }
  if (args.includes("rpc") && args[args.indexOf("rpc") - 1] === "--mode") {
    record({ stdin: null });
    return rpc();
  }
  const stdin = await readStdin();
  record({ stdin });
  if (scenario.failTimes) {
    // Fail the first N runs (a counter file keeps the count across runs).
    const { file, times } = scenario.failTimes;
    const n = existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
    writeFileSync(file, String(n + 1));
    if (n < times) {
      process.stderr.write(`transient failure ${n + 1}\n`);
      process.exitCode = 1;
      return;
    }
  }
  if (scenario.sleepMs) await sleep(scenario.sleepMs);
  if (scenario.trickle) {
    for (let i = 0; i < scenario.trickle.count; i++) {
      out(`tick ${i}`);
      await sleep(scenario.trickle.everyMs);
    }
  }
  if (scenario.bigOutputBytes) out("é".repeat(scenario.bigOutputBytes / 2));
  if (scenario.stderr) process.stderr.write(scenario.stderr);
  for (const line of scenario.stdout ?? fixture()) out(line);
  const lastMessageFile = argAfter("--output-last-message");
  if (name === "codex" && lastMessageFile) writeFileSync(lastMessageFile, scenario.lastMessage ?? '{"files":3}');
  if (scenario.hang) setInterval(() => {}, 1000);
  else process.exitCode = scenario.exitCode ?? 0;
}

await main();
