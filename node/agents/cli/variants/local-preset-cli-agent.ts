/**
 * @module node/agents/cli/variants/local-preset-cli-agent
 * Variant 13 (the CLI form of the local-server preset): Nous Research's Hermes Agent CLI,
 * executable `hermes`, engine `hermes` (CLI-AGENTS.md "V13").
 * `hermes [--model m] [--provider p] [-r <id> | -c [name]] -z <prompt>`; stdout is the answer.
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { opt, plainTextInterpreter } from "../cli-types.js";

/**
 * Options of {@link LocalPresetCliAgent} (SPEC.md variant 13).
 * @example
 * const opts: LocalPresetCliAgentOptions = { model: "hermes-4-70b", provider: "nous", continueSession: "triage" };
 */
export interface LocalPresetCliAgentOptions extends BaseCliAgentOptions {
  provider?: string;
  /** `-c <name>` for a string, `-c` for true; a per-call `resumeSession` (`-r`) wins. */
  continueSession?: boolean | string;
}

/**
 * The Hermes Agent CLI as a Flow agent.
 * @example
 * import { LocalPresetCliAgent } from "durable-flow";
 * const hermes = new LocalPresetCliAgent({ model: "hermes-4-70b" });
 */
export class LocalPresetCliAgent extends BaseCliAgent<LocalPresetCliAgentOptions> {
  readonly engine = "hermes" as const;

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const cont = o.continueSession ?? (call.options.continueSession as boolean | string | undefined);
    const session = call.resumeSession ? ["-r", call.resumeSession] : typeof cont === "string" ? ["-c", cont] : cont === true ? ["-c"] : [];
    // `-z` must come last.
    const args = [...opt("--model", o.model), ...opt("--provider", o.provider), ...session, ...(o.extraArgs ?? []), "-z", call.promptWithSystem];
    return { command: "hermes", args, interpreter: plainTextInterpreter(), ...(call.resumeSession ? { sessionId: call.resumeSession } : {}) };
  }
}
