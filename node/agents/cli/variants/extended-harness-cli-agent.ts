/**
 * @module node/agents/cli/variants/extended-harness-cli-agent
 * Variant 6: Oh My Pi (a fork of Pi), executable `omp`, engine `omp` (CLI-AGENTS.md "V6").
 * Without events it runs in text mode; with events, in RPC mode (after a `ready` handshake), or
 * JSON mode when the call passes files. A valued `resume` wins over `continueSession`; file
 * arguments are rejected in RPC mode. Native hijack is unsupported.
 */
import { FlowError } from "../../../../core/errors.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, joined, opt, plainTextInterpreter, repeated } from "../cli-types.js";
import { checkFileArgs, harnessRpcDriver } from "../harness-rpc.js";
import { piEventsInterpreter } from "../shared-interpreters.js";

/**
 * Options of {@link ExtendedHarnessCliAgent} (SPEC.md variant 6).
 * @example
 * const opts: ExtendedHarnessCliAgentOptions = { model: "claude-opus-4-1", thinking: "max", hooks: ["./hooks/lint.ts"], maxTime: 600 };
 */
export interface ExtendedHarnessCliAgentOptions extends BaseCliAgentOptions {
  provider?: string;
  mode?: "text" | "json" | "rpc";
  thinking?: "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max" | "auto";
  skills?: string[];
  noSkills?: boolean;
  hooks?: string[];
  /** Seconds (`--max-time`). */
  maxTime?: number;
  /** `--auto-approve` (also what `yolo` means here; both default false). */
  autoApprove?: boolean;
  approvalMode?: string;
  /** Session id to resume; wins over `continueSession`. */
  resume?: string;
  continueSession?: boolean;
  sessionDir?: string;
  noSession?: boolean;
  tools?: string[];
  noTools?: boolean;
  extensions?: string[];
  noExtensions?: boolean;
  appendSystemPrompt?: string;
  /** Set as the provider's own variable (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...). */
  apiKey?: string;
}

const PROVIDER_KEYS: Record<string, string> = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY", google: "GEMINI_API_KEY", gemini: "GEMINI_API_KEY", openrouter: "OPENROUTER_API_KEY", mistral: "MISTRAL_API_KEY", groq: "GROQ_API_KEY", xai: "XAI_API_KEY" };

/**
 * Oh My Pi as a Flow agent.
 * @example
 * import { ExtendedHarnessCliAgent } from "durable-flow";
 * const omp = new ExtendedHarnessCliAgent({ model: "gpt-5", autoApprove: true });
 */
export class ExtendedHarnessCliAgent extends BaseCliAgent<ExtendedHarnessCliAgentOptions> {
  readonly engine = "omp" as const;

  protected override yoloDefault(): boolean {
    return this.options.autoApprove ?? false;
  }

  protected override capabilityOverrides() {
    const o = this.options;
    return { builtIns: o.noTools ? [] : (o.tools ?? ["default"]), supportsSkills: !o.noSkills, flowSkillIds: o.skills ?? [] };
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const files = (call.options.files as string[] | undefined) ?? [];
    const mode = o.mode ?? (!call.streaming ? "text" : files.length ? "json" : "rpc");
    checkFileArgs(`ExtendedHarnessCliAgent ${this.id}`, mode, files);
    const resume = call.resumeSession ?? o.resume;
    const continueSession = o.continueSession === true || call.options.continueSession === true;
    const noTools = call.allowTools?.length === 0 || o.noTools;
    const tools = call.allowTools?.length ? call.allowTools : o.tools;
    const append = [o.appendSystemPrompt, ...call.systemMessages].filter(Boolean).join("\n\n");
    const interpreter = piEventsInterpreter(this.engine);
    const args = [
      ...flag("--print", mode !== "rpc"),
      ...(mode === "text" ? [] : ["--mode", mode]),
      ...opt("--model", o.model),
      ...opt("--provider", o.provider),
      ...opt("--system-prompt", call.agentSystem),
      ...opt("--append-system-prompt", append),
      "--cwd",
      call.cwd,
      ...(resume ? ["--resume", resume] : flag("--continue", continueSession)),
      ...opt("--session-dir", o.sessionDir),
      ...flag("--no-session", o.noSession),
      ...(noTools ? ["--no-tools"] : joined("--tools", tools)),
      ...repeated("--extension", o.extensions),
      ...flag("--no-extensions", o.noExtensions),
      ...joined("--skills", o.skills),
      ...flag("--no-skills", o.noSkills),
      ...opt("--thinking", o.thinking),
      ...repeated("--hook", o.hooks),
      ...opt("--max-time", o.maxTime),
      ...(o.approvalMode ? ["--approval-mode", o.approvalMode] : flag("--auto-approve", o.autoApprove ?? call.yolo)),
      ...(o.extraArgs ?? []),
      ...files.map((f) => `@${f}`),
      ...(mode === "rpc" ? [] : [call.prompt]),
    ];
    return {
      command: "omp",
      args,
      env: this.apiKeyEnv(),
      interpreter: mode === "text" ? plainTextInterpreter() : interpreter,
      ...(resume ? { sessionId: resume } : {}),
      ...(mode === "rpc" ? { driver: harnessRpcDriver({ prompt: call.prompt, handshake: true, done: () => interpreter.done() }) } : {}),
    };
  }

  /** The API key goes into the variable of the provider, named or guessed from the model. */
  private apiKeyEnv(): Record<string, string> {
    const o = this.options;
    if (!o.apiKey) return {};
    const m = (o.model ?? "").toLowerCase();
    const provider = o.provider?.toLowerCase() ?? (/^(gpt|o\d|codex)/.test(m) ? "openai" : /claude|sonnet|opus|haiku/.test(m) ? "anthropic" : /gemini|gemma/.test(m) ? "google" : undefined);
    const key = provider ? PROVIDER_KEYS[provider] : undefined;
    if (!key) {
      throw new FlowError("AGENT_CONFIG_INVALID", `ExtendedHarnessCliAgent ${this.id}: cannot tell which provider the apiKey is for; set provider (e.g. "openai", "anthropic").`, { agentId: this.id, option: "apiKey" });
    }
    return { [key]: o.apiKey };
  }
}
