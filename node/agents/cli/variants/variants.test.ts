/**
 * Each CLI variant against its fake executable on PATH: the exact argv built from every
 * option, stdin and environment, and the parsing of that CLI's real output format.
 */
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  BudgetCliAgent,
  ConversationCliAgent,
  ExecCliAgent,
  ExtendedHarnessCliAgent,
  GatewayRelayCliAgent,
  hashCapabilityRegistry,
  isFlowError,
  IsolatedShareCliAgent,
  LegacyConversationCliAgent,
  LocalPresetCliAgent,
  MinimalHarnessCliAgent,
  SessionCliAgent,
  StepEventCliAgent,
  ThreadCliAgent,
  WorkflowCliAgent,
} from "durable-flow";
import type { AgentEvent } from "durable-flow";
import { installFakeClis } from "../../testing/fake-cli.js";
import type { FakeCliScenario } from "../../testing/fake-cli.js";

const fakes = installFakeClis();
const cwd = fakes.binDir;
const last = () => fakes.records().at(-1)!;
const env = (scenario?: FakeCliScenario) => fakes.env(scenario);

describe("variant 1: SessionCliAgent (claude)", () => {
  it("builds argv from every option and parses stream-json", async () => {
    const agent = new SessionCliAgent({
      env: env(),
      cwd,
      model: "sonnet",
      systemPrompt: "Be careful.",
      permissionMode: "acceptEdits",
      allowedTools: ["Read", "Edit"],
      disallowedTools: ["Bash"],
      mcpConfig: "mcp.json",
      sessionId: "11111111-2222-3333-4444-555555555555",
      addDir: ["../lib", "../docs"],
      agents: { reviewer: { description: "reviews" } },
      appendSystemPrompt: "Prefer small diffs.",
      configDir: "/cfg/claude",
      maxBudgetUsd: 2.5,
      extraArgs: ["--debug"],
    });
    const events: AgentEvent[] = [];
    const r = await agent.generate({ prompt: "Run the tests.", messages: undefined, onEvent: (e) => events.push(e) });
    expect(last().args).toEqual([
      "--print", "--output-format", "stream-json", "--verbose",
      "--allow-dangerously-skip-permissions", "--dangerously-skip-permissions",
      "--permission-mode", "acceptEdits",
      "--allowed-tools", "Read", "Edit",
      "--disallowed-tools", "Bash",
      "--mcp-config", "mcp.json",
      "--add-dir", "../lib", "../docs",
      "--agents", '{"reviewer":{"description":"reviews"}}',
      "--system-prompt", "Be careful.",
      "--append-system-prompt", "Prefer small diffs.",
      "--max-budget-usd", "2.5",
      "--model", "sonnet",
      "--session-id", "11111111-2222-3333-4444-555555555555",
      "--debug",
      "Run the tests.",
    ]);
    expect(last().cwd).toBe(cwd);
    expect(last().env.CLAUDE_CONFIG_DIR).toBe("/cfg/claude");
    expect(r.text).toBe('{"passed":12}');
    expect(r.output).toEqual({ passed: 12 });
    expect(r.sessionId).toBe("3b9e0c6a-1f2d-4a1e-9c55-0d6b7f1e2a10");
    expect(r.sessionDir).toBe(cwd); // where a person reopens the session (hijack)
    expect(r.usage).toEqual({ inputTokens: 1840, outputTokens: 64, totalTokens: 1904, cacheReadTokens: 1200, costUsd: 0.0132 });
    expect(events.map((e) => (e.type === "action" ? `${e.phase}:${e.action.title}` : e.type))).toEqual(["started", "started:Bash", "completed:tool result", "completed"]);
  });

  it("resumes a session, enforces an empty allowlist with --tools \"\", and removes inherited nested-instance variables", async () => {
    process.env.CLAUDECODE = "1";
    process.env.ANTHROPIC_API_KEY = "inherited";
    try {
      await new SessionCliAgent({ env: env(), resume: "old", permissionMode: "plan" }).generate({ prompt: "go", resumeSession: "abc", allowTools: [] });
    } finally {
      delete process.env.CLAUDECODE;
      delete process.env.ANTHROPIC_API_KEY;
    }
    const a = last().args;
    expect(a).toContain("--resume");
    expect(a[a.indexOf("--resume") + 1]).toBe("abc");
    expect(a.slice(a.indexOf("--tools"), a.indexOf("--tools") + 2)).toEqual(["--tools", ""]);
    expect(a).not.toContain("bypassPermissions");
    expect(last().env.CLAUDECODE).toBeUndefined();
    expect(last().env.ANTHROPIC_API_KEY).toBeUndefined();
    await new SessionCliAgent({ env: env(), yolo: false, apiKey: "sk-ant" }).generate({ prompt: "go", allowTools: ["Read", "Grep"] });
    expect(last().args).not.toContain("--dangerously-skip-permissions");
    expect(last().args.join(" ")).toContain("--allowed-tools Read Grep");
    expect(last().env.ANTHROPIC_API_KEY).toBe("sk-ant");
  });

  it("reports a failed result and a rejected rate-limit event", async () => {
    const failed = await new SessionCliAgent({ env: env({ stdout: [{ type: "result", subtype: "error_during_execution", is_error: true, result: "tool crashed", session_id: "s" }] }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(failed, "AGENT_CLI_ERROR")).toBe(true);
    expect(failed.details.sessionId).toBe("s");
    const limited = await new SessionCliAgent({ env: env({ stdout: [{ type: "rate_limit_event", rate_limit_info: { status: "rejected", resetsAt: 1893456000 } }] }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(limited, "AGENT_QUOTA_EXCEEDED")).toBe(true);
    expect(limited.details.retryAtMs).toBe(1893456000 * 1000);
    const warned = await new SessionCliAgent({ env: env({ stdout: [{ type: "rate_limit_event", rate_limit_info: { status: "allowed_warning" } }, { type: "result", subtype: "success", is_error: false, result: "fine", session_id: "s" }] }) }).generate({ prompt: "x" });
    expect(warned.text).toBe("fine");
  });
});

describe("variant 2: ExecCliAgent (codex exec)", () => {
  it("puts the prompt on stdin, builds argv, and prefers the JSON last-message file", async () => {
    const agent = new ExecCliAgent({ env: env(), cwd, model: "gpt-5-codex", sandbox: "workspace-write", config: { model_reasoning_effort: "high", features: { web: true } }, profile: "ci", fullAuto: true, configDir: "/cfg/codex", apiKey: "sk-oa", instructions: "You fix bugs." });
    const r = await agent.generate({ prompt: "Count files." });
    const a = last().args;
    expect(a.slice(0, 11)).toEqual(["exec", "-c", "model_reasoning_effort=high", "-c", 'features={"web":true}', "--model", "gpt-5-codex", "--sandbox", "workspace-write", "--profile", "ci"]);
    expect(a).not.toContain("--full-auto");
    expect(a).not.toContain("--dangerously-bypass-approvals-and-sandbox");
    expect(a.slice(-4, -2)).toEqual(["--json", "--output-last-message"]);
    expect(a.at(-1)).toBe("-");
    expect(last().stdin).toBe("You fix bugs.\n\nCount files.");
    expect(last().env).toMatchObject({ CODEX_HOME: "/cfg/codex", OPENAI_API_KEY: "sk-oa" });
    expect(existsSync(a.at(-2)!)).toBe(false); // cleaned up
    expect(r.output).toEqual({ files: 3 });
    expect(r.sessionId).toBe("0199c2a4-7e11-7d30-a5f2-4b1c9e0d2f77");
    expect(r.usage).toMatchObject({ inputTokens: 5120, outputTokens: 41, cacheReadTokens: 4096 });
  });

  it("uses the resume form without sandbox flags, and full-auto or the bypass otherwise", async () => {
    await new ExecCliAgent({ env: env(), sandbox: "read-only", profile: "p" }).generate({ prompt: "again", resumeSession: "thread-1" });
    const a = last().args;
    expect(a.slice(0, 2)).toEqual(["exec", "resume"]);
    expect(a).not.toContain("--sandbox");
    expect(a.slice(-2)).toEqual(["thread-1", "-"]);
    await new ExecCliAgent({ env: env(), fullAuto: true }).generate({ prompt: "x" });
    expect(last().args).toContain("--full-auto");
    expect(last().args).not.toContain("--dangerously-bypass-approvals-and-sandbox");
    await new ExecCliAgent({ env: env() }).generate({ prompt: "x" });
    expect(last().args).toContain("--dangerously-bypass-approvals-and-sandbox");
  });

  it("passes the task schema as a strict --output-schema file with nativeStructuredOutput", async () => {
    const agent = new ExecCliAgent({ env: env({ lastMessage: '{"files":7}' }), nativeStructuredOutput: true });
    expect(agent.supportsNativeStructuredOutput).toBe(true);
    expect(new ExecCliAgent({}).supportsNativeStructuredOutput).toBe(false);
    const r = await agent.generate({ prompt: "x", outputSchema: z.object({ files: z.number() }) });
    expect(last().args).toContain("--output-schema");
    expect(r.output).toEqual({ files: 7 });
  });

  it("is not failed by a non-zero exit with empty stderr, but is by a turn.failed event", async () => {
    const ok = await new ExecCliAgent({ env: env({ exitCode: 1 }) }).generate({ prompt: "x" });
    expect(ok.output).toEqual({ files: 3 });
    const failed = await new ExecCliAgent({ env: env({ stdout: [{ type: "turn.failed", error: { message: "sandbox denied" } }], exitCode: 1, stderr: "boom" }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(failed, "AGENT_CLI_ERROR")).toBe(true);
    expect(failed.message).toContain("sandbox denied");
  });
});

describe("variant 3: ConversationCliAgent (agy)", () => {
  it("builds argv, maps renamed flags, sets the home directory, and reads stdout as the answer", async () => {
    const agent = new ConversationCliAgent({ env: env(), cwd, model: "gemini-3-pro", sandbox: true, allowedMcpServerNames: ["gh"], allowedTools: ["read_file"], continue: true, resume: "conv-9", includeDirectories: ["../a"], homeDir: "/cfg/agy", apiKey: "g-key", systemPrompt: "Sys." });
    const r = await agent.generate({ prompt: "Build it." });
    expect(last().args).toEqual(["--cwd", cwd, "--model", "gemini-3-pro", "--sandbox", "--allowed-mcp-server-names", "gh", "--allowed-tools", "read_file", "--continue", "--conversation", "conv-9", "--add-dir", "../a", "--gemini_dir", "/cfg/agy", "--dangerously-skip-permissions", "-p", "Sys.\n\nBuild it."]);
    expect(last().env).toMatchObject({ GEMINI_DIR: "/cfg/agy", GEMINI_API_KEY: "g-key" });
    expect(r.text).toBe("Build is green. I updated src/util.ts to handle empty input and added one test.");
    expect(r.sessionId).toBe("conv-9");
  });

  it("fails at construction with AGENT_CONFIG_INVALID for each option mapped to a removed flag", () => {
    const cases: Array<[Record<string, unknown>, string, string | undefined]> = [
      [{ debug: true }, "--debug", undefined],
      [{ screenReader: true }, "--screen-reader", undefined],
      [{ outputFormat: "json" }, "--output-format", undefined],
      [{ listSessions: true }, "--list-sessions", "/resume inside the CLI"],
      [{ deleteSession: "3" }, "--delete-session", "/resume inside the CLI"],
      [{ extensions: ["x"] }, "--extensions", "agy plugin"],
      [{ listExtensions: true }, "--list-extensions", "agy plugin list"],
    ];
    for (const [opts, flagName, replacement] of cases) {
      let err: any;
      try {
        new ConversationCliAgent(opts as never);
      } catch (e) {
        err = e;
      }
      expect(isFlowError(err, "AGENT_CONFIG_INVALID")).toBe(true);
      expect(err.details).toEqual({ option: Object.keys(opts)[0], flag: flagName, ...(replacement ? { replacement } : {}) });
    }
  });

  it("appends a JSON reminder when the prompt carries REQUIRED OUTPUT, and denies all tools with an empty list", async () => {
    await new ConversationCliAgent({ env: env() }).generate({ prompt: "x\n**REQUIRED OUTPUT**\n{}", allowTools: [] });
    expect(last().args.at(-1)).toMatch(/REQUIRED OUTPUT[\s\S]*Reminder: reply with the JSON object only/);
    expect(last().args.join("\u0000")).toContain("--allowed-tools\u0000\u0000");
  });
});

describe("variant 4: LegacyConversationCliAgent (gemini, deprecated)", () => {
  it("builds argv and parses the json and stream-json formats", async () => {
    const agent = new LegacyConversationCliAgent({ env: env(), model: "gemini-2.5-pro", sandbox: true, extensions: ["e1"], resume: "latest", includeDirectories: ["a", "b"], configDir: "/cfg/g", apiKey: "gk" });
    const r = await agent.generate({ prompt: "Do it." });
    expect(last().args).toEqual(["-m", "gemini-2.5-pro", "--approval-mode", "yolo", "-s", "-e", "e1", "-r", "latest", "--include-directories", "a,b", "-o", "json", "-p", "Do it."]);
    expect(r.text).toBe("Done.");
    expect(r.usage).toMatchObject({ inputTokens: 790, outputTokens: 22, totalTokens: 812 });
    const s = await new LegacyConversationCliAgent({ env: env(), approvalMode: "auto_edit" }).generate({ prompt: "x", onEvent: () => {} });
    expect(last().args.slice(0, 2)).toEqual(["--approval-mode", "auto_edit"]);
    expect(s.text).toBe("Done.");
    expect(s.sessionId).toBe("c8e1f0aa");
  });
});

describe("variant 5: MinimalHarnessCliAgent (pi)", () => {
  it("builds text-mode argv from every option, with --no-session by default", async () => {
    const agent = new MinimalHarnessCliAgent({
      env: env(), provider: "anthropic", model: "claude-sonnet-4-5", apiKey: "k", systemPrompt: "Sys.", appendSystemPrompt: "More.", models: ["a", "b"], tools: ["read", "bash"], extension: ["x.ts", "y.ts"], noExtensions: true, skill: ["s1"], noSkills: true, promptTemplate: ["p1"], noPromptTemplates: true, theme: ["dark"], noThemes: true, thinking: "xhigh", export: "out.html", files: ["src/a.ts"], verbose: true,
    });
    const r = await agent.generate({ prompt: "Summarize.", messages: undefined });
    expect(last().args).toEqual([
      "--print", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--api-key", "k", "--system-prompt", "Sys.", "--append-system-prompt", "More.",
      "--no-session", "--models", "a,b", "--export", "out.html", "--tools", "read,bash", "--extension", "x.ts", "--extension", "y.ts", "--no-extensions",
      "--skill", "s1", "--no-skills", "--prompt-template", "p1", "--no-prompt-templates", "--theme", "dark", "--no-themes", "--thinking", "xhigh", "--verbose",
      "@src/a.ts", "Summarize.",
    ]);
    expect(r.text).toBe("One folder: src.");
  });

  it("switches to json mode for event listeners and parses the events", async () => {
    const events: AgentEvent[] = [];
    const r = await new MinimalHarnessCliAgent({ env: env() }).generate({ prompt: "ls", resumeSession: "sess-1", allowTools: [], onEvent: (e) => events.push(e) });
    expect(last().args).toEqual(["--print", "--mode", "json", "--session", "sess-1", "--no-tools", "ls"]);
    expect(r.text).toBe("One folder: src.");
    expect(r.sessionId).toBe("7a0d4c2e-95b1-4f7e-8a3c-1e2f3a4b5c6d");
    expect(r.usage).toMatchObject({ inputTokens: 930, outputTokens: 12 });
    expect(events.some((e) => e.type === "action" && e.action.title === "bash")).toBe(true);
  });

  it("talks RPC over stdin and answers extension UI requests through the handler", async () => {
    const requests: unknown[] = [];
    const agent = new MinimalHarnessCliAgent({ env: env({ uiRequest: "confirm" }), mode: "rpc", onExtensionUiRequest: (req) => (requests.push(req), true) });
    const r = await agent.generate({ prompt: "Proceed?" });
    expect(r.text).toBe("One folder: src.");
    const recs = fakes.records();
    const rpc = recs.filter((x) => x.rpcReceived).map((x) => x.rpcReceived!);
    expect(rpc[0]).toMatchObject({ type: "prompt", message: "Proceed?" });
    expect(rpc[1]).toEqual({ type: "extension_ui_response", id: "ui-1", value: true });
    expect(requests).toEqual([{ type: "extension_ui_request", id: "ui-1", method: "confirm", title: "Proceed?" }]);
    expect(recs.filter((x) => !x.rpcReceived).at(-1)!.args).toEqual(["--mode", "rpc", "--no-session"]);
  });

  it("rejects file arguments in rpc mode before spawning", async () => {
    const before = fakes.records().length;
    const err = await new MinimalHarnessCliAgent({ env: env(), mode: "rpc", files: ["a.ts"] }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(err, "AGENT_RPC_FILE_ARGS")).toBe(true);
    expect(fakes.records().length).toBe(before);
  });
});

describe("variant 6: ExtendedHarnessCliAgent (omp)", () => {
  it("builds text-mode argv; a valued resume wins over continueSession; yolo defaults off", async () => {
    const agent = new ExtendedHarnessCliAgent({ env: env(), cwd, model: "claude-opus-4-1", provider: "anthropic", thinking: "max", skills: ["a", "b"], hooks: ["h1.ts", "h2.ts"], maxTime: 600, resume: "omp-1", continueSession: true, sessionDir: "/s", tools: ["read"], apiKey: "ak" });
    await agent.generate({ prompt: "Patch." });
    expect(last().args).toEqual(["--print", "--model", "claude-opus-4-1", "--provider", "anthropic", "--cwd", cwd, "--resume", "omp-1", "--session-dir", "/s", "--tools", "read", "--skills", "a,b", "--thinking", "max", "--hook", "h1.ts", "--hook", "h2.ts", "--max-time", "600", "Patch."]);
    expect(last().env.ANTHROPIC_API_KEY).toBe("ak");
    await new ExtendedHarnessCliAgent({ env: env(), continueSession: true, autoApprove: true }).generate({ prompt: "x" });
    expect(last().args).toContain("--continue");
    expect(last().args).toContain("--auto-approve");
  });

  it("uses RPC with a ready handshake for event listeners, and json mode when files are passed", async () => {
    const r = await new ExtendedHarnessCliAgent({ env: env() }).generate({ prompt: "Patch it.", onEvent: () => {} });
    expect(r.text).toBe("One folder: src.");
    const rpc = fakes.records().filter((x) => x.rpcReceived).slice(-2).map((x) => x.rpcReceived!.type);
    expect(rpc).toEqual(["get_state", "prompt"]);
    await new ExtendedHarnessCliAgent({ env: env() }).generate({ prompt: "x", onEvent: () => {}, files: ["a.ts"] });
    expect(last().args.slice(0, 3)).toEqual(["--print", "--mode", "json"]);
    expect(last().args).toContain("@a.ts");
    const err = await new ExtendedHarnessCliAgent({ env: env(), mode: "rpc" }).generate({ prompt: "x", files: ["a.ts"] }).catch((e) => e);
    expect(isFlowError(err, "AGENT_RPC_FILE_ARGS")).toBe(true);
  });
});

describe("variant 7: IsolatedShareCliAgent (kimi)", () => {
  it("builds argv with a generated session and an isolated, deleted share directory", async () => {
    const agent = new IsolatedShareCliAgent({ env: env(), cwd, model: "kimi-k2", thinking: false, agent: "okabe", maxRalphIterations: 3, mcpConfigFile: "mcp.json" });
    const r = await agent.generate({ prompt: "List." });
    const a = last().args;
    expect(a.slice(0, 7)).toEqual(["--print", "--output-format", "text", "--final-message-only", "--work-dir", cwd, "--session"]);
    expect(a[7]).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.slice(8)).toEqual(["--model", "kimi-k2", "--no-thinking", "--agent", "okabe", "--mcp-config-file", "mcp.json", "--max-ralph-iterations", "3", "--prompt", "List."]);
    const share = last().env.KIMI_SHARE_DIR!;
    expect(share).toMatch(/flow-kimi-share-/);
    expect(existsSync(share)).toBe(false);
    expect(r.text).toBe("The repo has README.md and src/.");
    expect(r.sessionId).toBe(a[7]);
  });

  it("parses stream-json for listeners, and fails on banner-only output", async () => {
    const r = await new IsolatedShareCliAgent({ env: env(), session: "k-1", configDir: "/cfg/kimi" }).generate({ prompt: "x", onEvent: () => {} });
    expect(last().args).toContain("stream-json");
    expect(last().env.KIMI_SHARE_DIR).toBe("/cfg/kimi");
    expect(r.text).toBe("The repo has README.md and src/.");
    expect(r.sessionId).toBe("k-1");
    const err = await new IsolatedShareCliAgent({ env: env({ stdout: ["YOLO mode is enabled. All actions will be approved automatically."] }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(err, "AGENT_CLI_ERROR")).toBe(true);
    const notSet = await new IsolatedShareCliAgent({ env: env({ stdout: ["LLM not set"] }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(notSet, "AGENT_CONFIG_INVALID")).toBe(true);
  });
});

describe("variant 8: WorkflowCliAgent (forge)", () => {
  it("builds argv with the conversation id and returns stdout", async () => {
    const r = await new WorkflowCliAgent({ env: env(), cwd, model: "m", provider: "openrouter", agent: "muse", conversationId: "conv-1", sandbox: "wt-1", restricted: true, workflow: "forge.yaml" }).generate({ prompt: "Rename." });
    expect(last().args).toEqual(["--model", "m", "--provider", "openrouter", "--agent", "muse", "--conversation-id", "conv-1", "--sandbox", "wt-1", "--restricted", "--workflow", "forge.yaml", "-C", cwd, "--prompt", "Rename."]);
    expect(r.text).toBe("Renamed parseCfg to parseConfig and updated 3 call sites.");
    expect(r.sessionId).toBe("conv-1");
    const gen = await new WorkflowCliAgent({ env: env() }).generate({ prompt: "x" });
    expect(gen.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("variant 9: ThreadCliAgent (amp)", () => {
  it("builds new-thread and resume argv, plain text without listeners, stream-json with them", async () => {
    const r = await new ThreadCliAgent({ env: env(), visibility: "workspace", mcpConfig: "mcp.json", logLevel: "warn" }).generate({ prompt: "Index." });
    expect(last().args).toEqual(["--visibility", "workspace", "--mcp-config", "mcp.json", "--log-level", "warn", "--dangerously-allow-all", "--no-ide", "--no-jetbrains", "--no-color", "--archive", "--execute", "Index."]);
    expect(r.text).toBe("Added the missing index.");
    const s = await new ThreadCliAgent({ env: env(), visibility: "private", yolo: false }).generate({ prompt: "More.", resumeSession: "T-1", onEvent: () => {} });
    expect(last().args).toEqual(["threads", "continue", "T-1", "--no-ide", "--no-jetbrains", "--no-color", "--execute", "More.", "--stream-json"]);
    expect(s.text).toBe("Added the missing index.");
    expect(s.sessionId).toBe("T-8c1d2e3f-aaaa-4bbb-8ccc-123456789abc");
    expect(s.usage).toMatchObject({ inputTokens: 700, outputTokens: 18 });
  });
});

describe("variant 10: BudgetCliAgent (vibe)", () => {
  it("builds argv, joins assistant lines, and only continues without a session id", async () => {
    const r = await new BudgetCliAgent({ env: env(), cwd, agent: "plan", maxTurns: 5, maxPrice: 1.5, maxTokens: 9000, enabledTools: ["grep", "read_file"], continueSession: true, model: "devstral" }).generate({ prompt: "Lint." });
    expect(last().args).toEqual(["-c", "--agent", "plan", "--max-turns", "5", "--max-price", "1.5", "--max-tokens", "9000", "--enabled-tools", "grep", "--enabled-tools", "read_file", "--trust", "--output", "streaming", "--workdir", cwd, "--prompt", "Lint."]);
    expect(last().env.VIBE_ACTIVE_MODEL).toBe("devstral");
    expect(r.text).toBe("Running the linter. No lint errors found.");
    await new BudgetCliAgent({ env: env(), sessionId: "v-1", continueSession: true }).generate({ prompt: "x" });
    expect(last().args.slice(0, 2)).toEqual(["--resume", "v-1"]);
  });
});

describe("variant 11: StepEventCliAgent (opencode run)", () => {
  it("builds argv with the -- separator, sets the permission variable, and parses step events", async () => {
    const r = await new StepEventCliAgent({ env: env(), cwd, model: "anthropic/claude-sonnet-4-5", agentName: "build", attachFiles: ["a.png", "b.txt"], sessionId: "ses_1", continueSession: true, variant: "high" }).generate({ prompt: "Describe." });
    expect(last().args).toEqual(["run", "-m", "anthropic/claude-sonnet-4-5", "--dir", cwd, "--format", "json", "--agent", "build", "-f", "a.png", "-f", "b.txt", "--session", "ses_1", "--variant", "high", "--", "Describe."]);
    expect(JSON.parse(last().env.OPENCODE_PERMISSION!)).toEqual({ "*": "allow" });
    expect(r.text).toBe("The project has one folder, src.");
    expect(r.sessionId).toBe("ses_4f2a9c");
    expect(r.usage).toMatchObject({ inputTokens: 1210, outputTokens: 14, totalTokens: 1224 });
    await new StepEventCliAgent({ env: env(), continueSession: true, yolo: false }).generate({ prompt: "x" });
    expect(last().args).toContain("--continue");
    expect(last().env.OPENCODE_PERMISSION).toBeUndefined();
  });

  it("fails on an error event", async () => {
    const err = await new StepEventCliAgent({ env: env({ stdout: [{ type: "error", sessionID: "s", error: { name: "ProviderError", data: { message: "model overloaded" } } }] }) }).generate({ prompt: "x" }).catch((e) => e);
    expect(isFlowError(err, "AGENT_CLI_ERROR")).toBe(true);
    expect(err.message).toContain("model overloaded");
  });
});

describe("variant 12: GatewayRelayCliAgent (openclaw agent)", () => {
  it("builds argv, and reads the answer and session id from the JSON object", async () => {
    const r = await new GatewayRelayCliAgent({ env: env(), agent: "main", session: "old", workspace: "/srv/ops", continueSession: true }).generate({ prompt: "Triage.", resumeSession: "agent:main:1" });
    expect(last().args).toEqual(["agent", "--agent", "main", "--session-id", "agent:main:1", "--continue", "--workspace", "/srv/ops", "--json", "--message", "Triage."]);
    expect(r.text).toBe("Ticket triaged as P2.");
    expect(r.sessionId).toBe("agent:main:7f3e");
    await new GatewayRelayCliAgent({ env: env({ stdout: ["plain reply"] }), json: false, cwd }).generate({ prompt: "x" });
    expect(last().args).toEqual(["agent", "--workspace", cwd, "--message", "x"]);
  });
});

describe("variant 13: LocalPresetCliAgent (hermes)", () => {
  it("builds argv with -z last, and resume beats continueSession", async () => {
    const r = await new LocalPresetCliAgent({ env: env(), model: "hermes-4", provider: "nous", continueSession: "triage", extraArgs: ["--quiet"], systemPrompt: "Sys." }).generate({ prompt: "PRs?" });
    expect(last().args).toEqual(["--model", "hermes-4", "--provider", "nous", "-c", "triage", "--quiet", "-z", "Sys.\n\nPRs?"]);
    expect(r.text).toBe("Summary: 4 open PRs; two need review from the API team.");
    await new LocalPresetCliAgent({ env: env(), continueSession: true }).generate({ prompt: "x", resumeSession: "h-1" });
    expect(last().args).toEqual(["-r", "h-1", "-z", "x"]);
  });
});

describe("shared CLI behaviour", () => {
  it("turns messages into ROLE blocks with system parts moved to the system text, and sets run-context variables", async () => {
    await new LocalPresetCliAgent({ env: env(), instructions: "Agent sys." }).generate({
      messages: [{ role: "system", content: "Msg sys." }, { role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }, { role: "user", content: "Bye" }],
      taskContext: { runId: "run-9", nodeId: "n1", iteration: 2, attempt: 3 },
    });
    expect(last().args.at(-1)).toBe("Agent sys.\n\nMsg sys.\n\nUSER: Hi\n\nASSISTANT: Hello\n\nUSER: Bye");
    expect(last().env).toMatchObject({ FLOW_RUN_ID: "run-9", FLOW_NODE_ID: "n1", FLOW_ITERATION: "2", FLOW_ATTEMPT: "3" });
  });

  it("uses the call's rootDir when the agent has no cwd", async () => {
    await new LocalPresetCliAgent({ env: env() }).generate({ prompt: "x", rootDir: cwd });
    expect(last().cwd).toBe(cwd);
  });

  it("reports the directory its session ran in, the call's rootDir when the agent has no cwd", async () => {
    const r = await new SessionCliAgent({ env: env() }).generate({ prompt: "x", rootDir: cwd });
    expect(last().cwd).toBe(cwd);
    expect(r).toMatchObject({ sessionId: expect.any(String), sessionDir: cwd });
  });

  it("gives each agent a UUID id by default and an engine capability registry", () => {
    const a = new SessionCliAgent({ allowedTools: ["Read"], disallowedTools: ["Bash"] });
    expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.capabilities.engine).toBe("claude-code");
    expect(a.capabilities.builtIns).toEqual(["!Bash", "Read", "slash-commands"]);
    expect(new MinimalHarnessCliAgent({ noTools: true }).capabilities.builtIns).toEqual([]);
    expect(hashCapabilityRegistry(new StepEventCliAgent({}).capabilities)).toHaveLength(64);
  });
});
