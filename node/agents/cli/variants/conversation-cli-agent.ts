/**
 * @module node/agents/cli/variants/conversation-cli-agent
 * Variant 3 (the newer Google CLI): Google's Antigravity CLI, executable `agy`, engine
 * `antigravity` (CLI-AGENTS.md "V3"). `agy --cwd <dir> [flags] -p <prompt>`; stdout is the
 * answer. Options that map to flags the CLI removed fail at construction with
 * `AGENT_CONFIG_INVALID` (details `{ option, flag, replacement? }`).
 */
import { REQUIRED_OUTPUT_MARKER } from "../../../../core/agents/index.js";
import { FlowError } from "../../../../core/errors.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, list, opt, plainTextInterpreter } from "../cli-types.js";

/** Appended by variants 3 and 7 when the prompt asks for raw JSON. */
export const JSON_REMINDER = "Reminder: reply with the JSON object only, starting with { and ending with }.";

/**
 * Options of {@link ConversationCliAgent} (SPEC.md variant 3). The removed-flag options stay in
 * the type so that using them is a clear runtime error, not a type error.
 * @example
 * const opts: ConversationCliAgentOptions = { model: "gemini-3-pro", includeDirectories: ["../shared"], allowedTools: ["read_file"] };
 */
export interface ConversationCliAgentOptions extends BaseCliAgentOptions {
  allowedMcpServerNames?: string[];
  allowedTools?: string[];
  /** Conversation id to continue (a per-call `resumeSession` wins). */
  conversation?: string;
  continue?: boolean;
  /** Renamed flag: mapped to `--conversation`. */
  resume?: string;
  /** Renamed flag: mapped to `--add-dir`. */
  includeDirectories?: string[];
  sandbox?: boolean;
  /** Same as `homeDir`. */
  configDir?: string;
  /** The CLI's home directory: `--gemini_dir <dir>` and `GEMINI_DIR`. */
  homeDir?: string;
  /** `GEMINI_API_KEY`. */
  apiKey?: string;
  dangerouslySkipPermissions?: boolean;
  /** Removed from the CLI: fails with AGENT_CONFIG_INVALID. */
  debug?: boolean;
  /** Removed from the CLI: fails with AGENT_CONFIG_INVALID. */
  screenReader?: boolean;
  /** Removed from the CLI (stdout is read as text): fails with AGENT_CONFIG_INVALID. */
  outputFormat?: string;
  /** Removed from the CLI (use /resume inside it): fails with AGENT_CONFIG_INVALID. */
  listSessions?: boolean;
  /** Removed from the CLI (use /resume inside it): fails with AGENT_CONFIG_INVALID. */
  deleteSession?: string;
  /** Removed from the CLI (use `agy plugin`): fails with AGENT_CONFIG_INVALID. */
  extensions?: string[];
  /** Removed from the CLI (use `agy plugin list`): fails with AGENT_CONFIG_INVALID. */
  listExtensions?: boolean;
}

const REMOVED: Array<{ option: keyof ConversationCliAgentOptions; flag: string; replacement?: string; set: (v: unknown) => boolean }> = [
  { option: "debug", flag: "--debug", set: (v) => v === true },
  { option: "screenReader", flag: "--screen-reader", set: (v) => v === true },
  { option: "outputFormat", flag: "--output-format", set: (v) => v !== undefined },
  { option: "listSessions", flag: "--list-sessions", replacement: "/resume inside the CLI", set: (v) => v === true },
  { option: "deleteSession", flag: "--delete-session", replacement: "/resume inside the CLI", set: (v) => v !== undefined && v !== false },
  { option: "extensions", flag: "--extensions", replacement: "agy plugin", set: (v) => Array.isArray(v) && v.length > 0 },
  { option: "listExtensions", flag: "--list-extensions", replacement: "agy plugin list", set: (v) => v === true },
];

/**
 * Antigravity as a Flow agent.
 * @example
 * import { ConversationCliAgent } from "durable-flow";
 * const agent = new ConversationCliAgent({ model: "gemini-3-pro", cwd: "/repo" });
 */
export class ConversationCliAgent extends BaseCliAgent<ConversationCliAgentOptions> {
  readonly engine = "antigravity" as const;

  constructor(options: ConversationCliAgentOptions = {}) {
    for (const r of REMOVED) {
      if (r.set(options[r.option])) {
        throw new FlowError(
          "AGENT_CONFIG_INVALID",
          `ConversationCliAgent option "${r.option}" maps to ${r.flag}, which the CLI removed${r.replacement ? `; use ${r.replacement} instead` : ""}. Remove the option.`,
          { option: r.option, flag: r.flag, ...(r.replacement ? { replacement: r.replacement } : {}) },
        );
      }
    }
    super(options);
  }

  protected override capabilityOverrides() {
    return { builtIns: this.options.allowedTools ?? ["default"] };
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const home = o.homeDir ?? o.configDir;
    const allowed = call.allowTools ?? o.allowedTools;
    const prompt = call.promptWithSystem.includes(REQUIRED_OUTPUT_MARKER) ? `${call.promptWithSystem}\n\n${JSON_REMINDER}` : call.promptWithSystem;
    const args = [
      "--cwd",
      call.cwd,
      ...opt("--model", o.model),
      ...flag("--sandbox", o.sandbox),
      ...list("--allowed-mcp-server-names", o.allowedMcpServerNames),
      ...(allowed?.length === 0 ? ["--allowed-tools", ""] : list("--allowed-tools", allowed)),
      ...flag("--continue", o.continue),
      ...opt("--conversation", call.resumeSession ?? o.conversation ?? o.resume),
      ...list("--add-dir", o.includeDirectories),
      ...opt("--gemini_dir", home),
      ...flag("--dangerously-skip-permissions", call.yolo || o.dangerouslySkipPermissions),
      ...(o.extraArgs ?? []),
      "-p",
      prompt,
    ];
    const session = call.resumeSession ?? o.conversation ?? o.resume;
    return { command: "agy", args, env: { GEMINI_DIR: home, GEMINI_API_KEY: o.apiKey }, interpreter: plainTextInterpreter(), ...(session ? { sessionId: session } : {}) };
  }
}
