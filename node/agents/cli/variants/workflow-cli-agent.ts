/**
 * @module node/agents/cli/variants/workflow-cli-agent
 * Variant 8: Forge (forgecode.dev), executable `forge`, engine `forge` (CLI-AGENTS.md "V8").
 * `forge [flags] -C <dir> --prompt <prompt>`; stdout is the answer. Every run has a
 * conversation id (generated when none is given), which is its session id.
 */
import { randomUUID } from "node:crypto";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand } from "../cli-types.js";
import { flag, opt, plainTextInterpreter } from "../cli-types.js";

/**
 * Options of {@link WorkflowCliAgent} (SPEC.md variant 8).
 * @example
 * const opts: WorkflowCliAgentOptions = { provider: "openrouter", workflow: "forge.yaml", restricted: true };
 */
export interface WorkflowCliAgentOptions extends BaseCliAgentOptions {
  provider?: string;
  agent?: string;
  /** Conversation id (a per-call `resumeSession` wins; generated when neither is set). */
  conversationId?: string;
  /** Workflow file (`--workflow`). */
  workflow?: string;
  /** Worktree name (`--sandbox`). */
  sandbox?: string;
  restricted?: boolean;
}

/**
 * Forge as a Flow agent.
 * @example
 * import { WorkflowCliAgent } from "durable-flow";
 * const forge = new WorkflowCliAgent({ restricted: true });
 */
export class WorkflowCliAgent extends BaseCliAgent<WorkflowCliAgentOptions> {
  readonly engine = "forge" as const;

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const conversation = call.resumeSession ?? o.conversationId ?? randomUUID();
    const args = [
      ...opt("--model", o.model),
      ...opt("--provider", o.provider),
      ...opt("--agent", o.agent),
      "--conversation-id",
      conversation,
      ...opt("--sandbox", o.sandbox),
      ...flag("--restricted", o.restricted),
      ...opt("--workflow", o.workflow),
      ...(o.extraArgs ?? []),
      "-C",
      call.cwd,
      "--prompt",
      call.promptWithSystem,
    ];
    return { command: "forge", args, sessionId: conversation, interpreter: plainTextInterpreter() };
  }
}
