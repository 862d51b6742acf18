/**
 * @module node/agents/cli/variants/budget-cli-agent
 * Variant 10: Mistral Vibe, executable `vibe`, engine `vibe` (CLI-AGENTS.md "V10").
 * `vibe [-c] [--resume <id>] [flags] --trust --output streaming --workdir <dir> --prompt …`;
 * JSON lines `{role, content}`, assistant contents joined. `yolo` defaults to false and maps to
 * nothing; the working directory is trusted for the run.
 */
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, opt, repeated } from "../cli-types.js";
import { roleLinesInterpreter } from "../shared-interpreters.js";

/**
 * Options of {@link BudgetCliAgent} (SPEC.md variant 10).
 * @example
 * const opts: BudgetCliAgentOptions = { maxTurns: 20, maxPrice: 1.5, enabledTools: ["read_file", "grep"] };
 */
export interface BudgetCliAgentOptions extends BaseCliAgentOptions {
  agent?: string;
  maxTurns?: number;
  /** Dollars (`--max-price`). */
  maxPrice?: number;
  maxTokens?: number;
  enabledTools?: string[];
  /** Session to resume (a per-call `resumeSession` wins). */
  sessionId?: string;
  /** `-c`, only when no session id is known. */
  continueSession?: boolean;
}

/**
 * Vibe as a Flow agent. The CLI has no model flag: `model` is passed as `VIBE_ACTIVE_MODEL`.
 * @example
 * import { BudgetCliAgent } from "durable-flow";
 * const vibe = new BudgetCliAgent({ maxTurns: 10 });
 */
export class BudgetCliAgent extends BaseCliAgent<BudgetCliAgentOptions> {
  readonly engine = "vibe" as const;

  protected override yoloDefault(): boolean {
    return false;
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const session = call.resumeSession ?? o.sessionId;
    const tools = call.allowTools?.length ? call.allowTools : o.enabledTools;
    const args = [
      ...flag("-c", !session && (o.continueSession === true || call.options.continueSession === true)),
      ...opt("--resume", session),
      ...opt("--agent", o.agent),
      ...opt("--max-turns", o.maxTurns),
      ...opt("--max-price", o.maxPrice),
      ...opt("--max-tokens", o.maxTokens),
      ...repeated("--enabled-tools", tools),
      ...(o.extraArgs ?? []),
      "--trust",
      "--output",
      "streaming",
      "--workdir",
      call.cwd,
      "--prompt",
      call.promptWithSystem,
    ];
    return { command: "vibe", args, env: { VIBE_ACTIVE_MODEL: o.model }, interpreter: roleLinesInterpreter(this.engine, "join"), ...(session ? { sessionId: session } : {}) };
  }
}
