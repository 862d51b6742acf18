/**
 * @module node/agents/cli/variants/thread-cli-agent
 * Variant 9: Amp (ampcode.com), executable `amp`, engine `amp` (CLI-AGENTS.md "V9"). A new
 * thread runs `amp … --execute <prompt>`; a resumed one `amp threads continue <id> …`. With
 * event listeners it adds `--stream-json` (Claude-style events); otherwise stdout is the answer.
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, opt, plainTextInterpreter } from "../cli-types.js";
import { claudeStreamInterpreter } from "../shared-interpreters.js";

/**
 * Options of {@link ThreadCliAgent} (SPEC.md variant 9).
 * @example
 * const opts: ThreadCliAgentOptions = { visibility: "workspace", logLevel: "warn" };
 */
export interface ThreadCliAgentOptions extends BaseCliAgentOptions {
  visibility?: "private" | "public" | "workspace" | "group";
  /** Path of an MCP configuration file. */
  mcpConfig?: string;
  dangerouslyAllowAll?: boolean;
  logLevel?: string;
}

/**
 * Amp as a Flow agent.
 * @example
 * import { ThreadCliAgent } from "durable-flow";
 * const amp = new ThreadCliAgent({ visibility: "private" });
 */
export class ThreadCliAgent extends BaseCliAgent<ThreadCliAgentOptions> {
  readonly engine = "amp" as const;

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const resume = call.resumeSession;
    const args = [
      ...(resume ? ["threads", "continue", resume] : []),
      ...opt("--model", o.model),
      ...(resume ? [] : opt("--visibility", o.visibility)),
      ...opt("--mcp-config", o.mcpConfig),
      ...opt("--log-level", o.logLevel),
      ...flag("--dangerously-allow-all", call.yolo || o.dangerouslyAllowAll),
      ...(o.extraArgs ?? []),
      "--no-ide",
      "--no-jetbrains",
      "--no-color",
      ...flag("--archive", !resume),
      "--execute",
      call.promptWithSystem,
      ...flag("--stream-json", call.streaming),
    ];
    return { command: "amp", args, interpreter: call.streaming ? claudeStreamInterpreter(this.engine, "assistant") : plainTextInterpreter(), ...(resume ? { sessionId: resume } : {}) };
  }
}
