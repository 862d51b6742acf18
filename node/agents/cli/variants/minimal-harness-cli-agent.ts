/**
 * @module node/agents/cli/variants/minimal-harness-cli-agent
 * Variant 5: the Pi coding agent, executable `pi`, engine `pi` (CLI-AGENTS.md "V5").
 * Modes: `text` (default), `json` (chosen when the caller listens to events) and `rpc`
 * (JSON lines both ways, with extension UI requests answered by `onExtensionUiRequest`).
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, joined, opt, plainTextInterpreter, repeated } from "../cli-types.js";
import { checkFileArgs, harnessRpcDriver } from "../harness-rpc.js";
import type { ExtensionUiHandler } from "../harness-rpc.js";
import { piEventsInterpreter } from "../shared-interpreters.js";

/**
 * Options of {@link MinimalHarnessCliAgent} (SPEC.md variant 5).
 * @example
 * const opts: MinimalHarnessCliAgentOptions = { provider: "anthropic", model: "claude-sonnet-4-5", thinking: "high", tools: ["read", "bash"] };
 */
export interface MinimalHarnessCliAgentOptions extends BaseCliAgentOptions {
  provider?: string;
  /** `--api-key`. */
  apiKey?: string;
  appendSystemPrompt?: string;
  mode?: "text" | "json" | "rpc";
  /** `--print` in non-rpc modes (default true). */
  print?: boolean;
  continue?: boolean;
  /** Resume the last session (`--resume`). */
  resume?: boolean;
  /** Session id (a per-call `resumeSession` wins). */
  session?: string;
  sessionDir?: string;
  /** Default: on when no session option is given and the caller does not listen to events. */
  noSession?: boolean;
  models?: string[];
  listModels?: boolean | string;
  tools?: string[];
  noTools?: boolean;
  extension?: string[];
  noExtensions?: boolean;
  skill?: string[];
  noSkills?: boolean;
  promptTemplate?: string[];
  noPromptTemplates?: boolean;
  theme?: string[];
  noThemes?: boolean;
  thinking?: "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
  export?: string;
  /** Files passed as `@path` arguments (non-rpc modes only). */
  files?: string[];
  verbose?: boolean;
  onExtensionUiRequest?: ExtensionUiHandler;
}

/**
 * Pi as a Flow agent.
 * @example
 * import { MinimalHarnessCliAgent } from "durable-flow";
 * const pi = new MinimalHarnessCliAgent({ provider: "openai", model: "gpt-5", mode: "rpc", onExtensionUiRequest: (r) => (r.method === "confirm" ? true : null) });
 */
export class MinimalHarnessCliAgent extends BaseCliAgent<MinimalHarnessCliAgentOptions> {
  readonly engine = "pi" as const;

  protected override capabilityOverrides() {
    const o = this.options;
    return { builtIns: o.noTools ? [] : (o.tools ?? ["default"]), flowSkillIds: o.skill ?? [] };
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const mode = o.mode === "rpc" ? "rpc" : call.streaming ? "json" : (o.mode ?? "text");
    const files = [...(o.files ?? []), ...((call.options.files as string[] | undefined) ?? [])];
    checkFileArgs(`MinimalHarnessCliAgent ${this.id}`, mode, files);
    const session = call.resumeSession ?? o.session;
    const sessionOption = o.continue || o.resume || session !== undefined || o.sessionDir !== undefined;
    const noSession = o.noSession ?? (!call.streaming && !sessionOption);
    const noTools = call.allowTools?.length === 0 || o.noTools;
    const tools = call.allowTools?.length ? call.allowTools : o.tools;
    const append = [o.appendSystemPrompt, ...call.systemMessages].filter(Boolean).join("\n\n");
    const interpreter = piEventsInterpreter(this.engine);
    const args = [
      ...flag("--print", mode !== "rpc" && o.print !== false),
      ...(mode === "text" ? [] : ["--mode", mode]),
      ...opt("--provider", o.provider),
      ...opt("--model", o.model),
      ...opt("--api-key", o.apiKey),
      ...opt("--system-prompt", call.agentSystem),
      ...opt("--append-system-prompt", append),
      ...flag("--continue", o.continue),
      ...flag("--resume", o.resume),
      ...opt("--session", session),
      ...opt("--session-dir", o.sessionDir),
      ...flag("--no-session", noSession && session === undefined),
      ...joined("--models", o.models),
      ...(o.listModels === undefined || o.listModels === false ? [] : ["--list-models", ...(typeof o.listModels === "string" ? [o.listModels] : [])]),
      ...opt("--export", o.export),
      ...(noTools ? ["--no-tools"] : joined("--tools", tools)),
      ...repeated("--extension", o.extension),
      ...flag("--no-extensions", o.noExtensions),
      ...repeated("--skill", o.skill),
      ...flag("--no-skills", o.noSkills),
      ...repeated("--prompt-template", o.promptTemplate),
      ...flag("--no-prompt-templates", o.noPromptTemplates),
      ...repeated("--theme", o.theme),
      ...flag("--no-themes", o.noThemes),
      ...opt("--thinking", o.thinking),
      ...flag("--verbose", o.verbose),
      ...(o.extraArgs ?? []),
      ...files.map((f) => `@${f}`),
      ...(mode === "rpc" ? [] : [call.prompt]),
    ];
    return {
      command: "pi",
      args,
      interpreter: mode === "text" ? plainTextInterpreter() : interpreter,
      ...(session ? { sessionId: session } : {}),
      ...(mode === "rpc"
        ? { driver: harnessRpcDriver({ prompt: call.prompt, handshake: false, done: () => interpreter.done(), ...(o.onExtensionUiRequest ? { onExtensionUiRequest: o.onExtensionUiRequest } : {}) }) }
        : {}),
    };
  }
}
