/**
 * @module node/agents/cli/variants/step-event-cli-agent
 * Variant 11: OpenCode, `opencode run`, engine `opencode` (CLI-AGENTS.md "V11").
 * `opencode run [-m model] --dir <dir> --format json [flags] -- <prompt>`; every line is an
 * envelope `{type, timestamp, sessionID, part}`; the answer is the text parts joined, usage the
 * `step_finish` tokens summed. Native hijack is unsupported.
 */
import type { AgentEvent, AgentUsage } from "../../../../core/agents/index.js";
import { addUsage, normalizeUsage } from "../../../../core/agents/index.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter, InterpretedOutput } from "../cli-types.js";
import { flag, jsonLine, opt, repeated } from "../cli-types.js";

/**
 * Options of {@link StepEventCliAgent} (SPEC.md variant 11).
 * @example
 * const opts: StepEventCliAgentOptions = { model: "anthropic/claude-sonnet-4-5", agentName: "build", variant: "high" };
 */
export interface StepEventCliAgentOptions extends BaseCliAgentOptions {
  agentName?: string;
  attachFiles?: string[];
  /** `--continue`, only when no session id is given. */
  continueSession?: boolean;
  /** Session to continue (a per-call `resumeSession` wins). */
  sessionId?: string;
  /** Reasoning effort (`--variant`). */
  variant?: string;
}

/**
 * OpenCode as a Flow agent.
 * @example
 * import { StepEventCliAgent } from "durable-flow";
 * const oc = new StepEventCliAgent({ model: "openai/gpt-5" });
 */
export class StepEventCliAgent extends BaseCliAgent<StepEventCliAgentOptions> {
  readonly engine = "opencode" as const;

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const session = call.resumeSession ?? o.sessionId;
    const args = [
      "run",
      ...opt("-m", o.model),
      "--dir",
      call.cwd,
      "--format",
      "json",
      ...opt("--agent", o.agentName),
      ...repeated("-f", o.attachFiles),
      ...(session ? ["--session", session] : flag("--continue", o.continueSession === true || call.options.continueSession === true)),
      ...opt("--variant", o.variant),
      ...(o.extraArgs ?? []),
      // Without the separator a repeated -f would swallow the prompt.
      "--",
      call.promptWithSystem,
    ];
    return {
      command: "opencode",
      args,
      env: call.yolo ? { OPENCODE_PERMISSION: JSON.stringify({ "*": "allow" }) } : {},
      interpreter: stepEventInterpreter(this.engine),
      banners: [/^\s*opencode v\d/, /^\u001b\]0;.*\u0007$/],
      stdoutError: /^(error|fatal):/i,
      ...(session ? { sessionId: session } : {}),
    };
  }
}

function stepEventInterpreter(engine: string): CliInterpreter {
  const out: InterpretedOutput = {};
  const texts: string[] = [];
  let usage: AgentUsage | undefined;
  return {
    onLine(raw, emit: (e: AgentEvent) => void) {
      // Terminal-title escapes may precede a line.
      const j = jsonLine(raw.replace(/\u001b\][^\u0007]*\u0007/g, ""));
      if (!j) return;
      if (typeof j.sessionID === "string") out.sessionId = j.sessionID;
      const part = j.part ?? {};
      if (j.type === "text" && typeof part.text === "string") {
        texts.push(part.text);
        emit({ type: "text", engine, delta: part.text });
      } else if (j.type === "tool_use") {
        const state = part.state ?? {};
        const status = state.status;
        const done = status === "completed" || status === "error";
        emit({
          type: "action",
          engine,
          phase: done ? "completed" : "started",
          action: { id: String(part.callID), kind: "tool", title: String(part.tool) },
          ...(status === "error" ? { ok: false, error: { message: String(state.error ?? "tool failed") } } : status === "completed" ? { ok: true, output: state.output } : {}),
          ...(state.input !== undefined ? { input: state.input } : {}),
        });
      } else if (j.type === "error") {
        out.ok = false;
        out.error = String(j.error?.data?.message ?? j.error?.name ?? "error");
      } else if (j.type === "step_finish") {
        usage = addUsage(usage, normalizeUsage({ ...part.tokens, ...(typeof part.cost === "number" ? { cost: part.cost } : {}) }));
      }
    },
    finish: () => ({ ...out, ...(texts.length ? { answer: texts.join("") } : {}), ...(usage ? { usage } : {}) }),
  };
}
