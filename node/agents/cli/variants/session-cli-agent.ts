/**
 * @module node/agents/cli/variants/session-cli-agent
 * Variant 1 (session/permission CLI): Anthropic's Claude Code, executable `claude`, engine
 * `claude-code` (CLI-AGENTS.md "V1"). `claude --print [flags] <prompt>`, stream-json output.
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, list, opt, plainTextInterpreter } from "../cli-types.js";
import { claudeStreamInterpreter } from "../shared-interpreters.js";

/**
 * Options of {@link SessionCliAgent} (SPEC.md variant 1).
 * @example
 * const opts: SessionCliAgentOptions = { model: "sonnet", permissionMode: "acceptEdits", allowedTools: ["Read", "Edit"] };
 */
export interface SessionCliAgentOptions extends BaseCliAgentOptions {
  permissionMode?: "acceptEdits" | "bypassPermissions" | "default" | "delegate" | "dontAsk" | "plan";
  allowedTools?: string[];
  disallowedTools?: string[];
  mcpConfig?: string;
  /** Session id to resume (a per-call `resumeSession` wins). */
  resume?: string;
  /** Session id (UUID) for a new session. */
  sessionId?: string;
  addDir?: string[];
  /** Subagent definitions: an object (JSON-encoded) or a JSON string. */
  agents?: Record<string, unknown> | string;
  appendSystemPrompt?: string;
  /** `CLAUDE_CONFIG_DIR`. */
  configDir?: string;
  /** `ANTHROPIC_API_KEY`; without it an inherited key is removed so the subscription login is used. */
  apiKey?: string;
  maxBudgetUsd?: number;
  /** Default `stream-json`. */
  outputFormat?: "text" | "json" | "stream-json";
}

/**
 * Claude Code as a Flow agent.
 * @example
 * import { SessionCliAgent } from "durable-flow";
 * const coder = new SessionCliAgent({ model: "sonnet", cwd: "/repo", timeoutMs: 900_000 });
 */
export class SessionCliAgent extends BaseCliAgent<SessionCliAgentOptions> {
  readonly engine = "claude-code" as const;

  protected override capabilityOverrides() {
    const o = this.options;
    const base = o.allowedTools ?? ["default"];
    return { builtIns: [...base, ...(o.disallowedTools ?? []).map((t) => `!${t}`), "slash-commands"] };
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const format = o.outputFormat ?? "stream-json";
    const resume = call.resumeSession ?? o.resume;
    const allowed = call.allowTools ?? o.allowedTools;
    const args = [
      "--print",
      "--output-format",
      format,
      ...flag("--verbose", format === "stream-json"),
      ...(call.yolo ? ["--allow-dangerously-skip-permissions", "--dangerously-skip-permissions", ...(o.permissionMode ? [] : ["--permission-mode", "bypassPermissions"])] : []),
      ...opt("--permission-mode", o.permissionMode),
      ...(call.allowTools?.length === 0 ? ["--tools", ""] : list("--allowed-tools", allowed)),
      ...list("--disallowed-tools", o.disallowedTools),
      ...opt("--mcp-config", o.mcpConfig),
      ...list("--add-dir", o.addDir),
      ...opt("--agents", o.agents === undefined ? undefined : typeof o.agents === "string" ? o.agents : JSON.stringify(o.agents)),
      ...opt("--system-prompt", call.systemText),
      ...opt("--append-system-prompt", o.appendSystemPrompt),
      ...opt("--max-budget-usd", o.maxBudgetUsd),
      ...opt("--model", o.model),
      ...opt("--resume", resume),
      ...opt("--session-id", resume ? undefined : o.sessionId),
      ...flag("--continue", !resume && call.options.continueSession === true),
      ...(o.extraArgs ?? []),
      call.prompt,
    ];
    return {
      command: "claude",
      args,
      env: {
        CLAUDE_CONFIG_DIR: o.configDir,
        ANTHROPIC_API_KEY: o.apiKey,
        // A nested Claude Code refuses to start while these are set.
        CLAUDECODE: undefined,
        CLAUDE_CODE_ENTRYPOINT: undefined,
      },
      interpreter: format === "text" ? plainTextInterpreter() : claudeStreamInterpreter(this.engine, "result"),
      ...(o.sessionId && !resume ? { sessionId: o.sessionId } : {}),
    };
  }
}
