/**
 * @module node/agents/cli/variants/legacy-conversation-cli-agent
 * Variant 4 (the older Google CLI, deprecated): Google's Gemini CLI, executable `gemini`,
 * engine `gemini` (CLI-AGENTS.md "V4"). Flow keeps it working with the CLI's real flags
 * (`-p`, `-o json|stream-json`, `--approval-mode`) for users who still have it; new code
 * should use {@link ConversationCliAgent}.
 */
import type { AgentEvent } from "../../../../core/agents/index.js";
import { normalizeUsage } from "../../../../core/agents/index.js";
import { BaseCliAgent } from "../base-cli-agent.js";
import type { BaseCliAgentOptions, CliCall, CliCommand, CliInterpreter, InterpretedOutput } from "../cli-types.js";
import { flag, jsonLine, list, opt } from "../cli-types.js";

/**
 * Options of {@link LegacyConversationCliAgent} (SPEC.md variant 4).
 * @example
 * const opts: LegacyConversationCliAgentOptions = { approvalMode: "auto_edit", model: "gemini-2.5-pro" };
 */
export interface LegacyConversationCliAgentOptions extends BaseCliAgentOptions {
  approvalMode?: "default" | "auto_edit" | "yolo" | "plan";
  sandbox?: boolean;
  extensions?: string[];
  /** Session to resume (`latest` or an id; a per-call `resumeSession` wins). */
  resume?: string;
  includeDirectories?: string[];
  allowedTools?: string[];
  /** `GEMINI_DIR`. */
  configDir?: string;
  /** `GEMINI_API_KEY`. */
  apiKey?: string;
}

/**
 * The Gemini CLI as a Flow agent.
 * @deprecated The vendor retired this CLI; use ConversationCliAgent (variant 3).
 * @example
 * import { LegacyConversationCliAgent } from "durable-flow";
 * const agent = new LegacyConversationCliAgent({ approvalMode: "auto_edit" });
 */
export class LegacyConversationCliAgent extends BaseCliAgent<LegacyConversationCliAgentOptions> {
  readonly engine = "gemini" as const;

  protected override capabilityOverrides() {
    return { builtIns: this.options.allowedTools ?? ["sunset"] };
  }

  protected buildCommand(call: CliCall): CliCommand {
    const o = this.options;
    const approval = o.approvalMode ?? (call.yolo ? "yolo" : undefined);
    const allowed = call.allowTools ?? o.allowedTools;
    const args = [
      ...opt("-m", o.model),
      ...opt("--approval-mode", approval),
      ...flag("-s", o.sandbox),
      ...list("-e", o.extensions),
      ...opt("-r", call.resumeSession ?? o.resume),
      ...(o.includeDirectories?.length ? ["--include-directories", o.includeDirectories.join(",")] : []),
      ...(allowed?.length === 0 ? ["--allowed-tools", ""] : list("--allowed-tools", allowed)),
      ...(o.extraArgs ?? []),
      "-o",
      call.streaming ? "stream-json" : "json",
      "-p",
      call.promptWithSystem,
    ];
    return { command: "gemini", args, env: { GEMINI_DIR: o.configDir, GEMINI_API_KEY: o.apiKey }, interpreter: legacyInterpreter(this.engine) };
  }
}

/** `json` (one object: `{response, stats, error?}`) or `stream-json` events. */
function legacyInterpreter(engine: string): CliInterpreter {
  const out: InterpretedOutput = {};
  const lines: string[] = [];
  let streamed = "";
  return {
    onLine(line, emit: (e: AgentEvent) => void) {
      lines.push(line);
      const j = jsonLine(line);
      if (!j) return;
      if (j.type === "init" && typeof j.session_id === "string") out.sessionId = j.session_id;
      else if (j.type === "message" && j.role === "assistant" && typeof j.content === "string") {
        streamed += j.content;
        emit({ type: "text", engine, delta: j.content });
      } else if (j.type === "tool_use") emit({ type: "action", engine, phase: "started", action: { id: String(j.tool_id), kind: "tool", title: String(j.tool_name) }, ...(j.parameters !== undefined ? { input: j.parameters } : {}) });
      else if (j.type === "tool_result") {
        const ok = j.status === "success";
        const payload = ok ? (j.output !== undefined ? { output: j.output } : {}) : { error: { message: String(j.error?.message ?? j.output ?? "tool failed") } };
        emit({ type: "action", engine, phase: "completed", ok, action: { id: String(j.tool_id), kind: "tool", title: "tool result" }, ...payload });
      }
      else if (j.type === "error" && j.severity !== "warning") {
        out.ok = false;
        out.error = String(j.message ?? "error");
      } else if (j.type === "result") {
        const usage = normalizeUsage(j.stats);
        if (usage) out.usage = usage;
        if (j.status && j.status !== "success") out.ok = false;
      }
    },
    finish() {
      // `-o json` prints one (possibly pretty-printed) object.
      const whole = jsonLine(lines.join("\n"));
      if (whole && ("response" in whole || "error" in whole)) {
        if (typeof whole.response === "string") out.answer = whole.response;
        const models = Object.values(whole.stats?.models ?? {}) as any[];
        if (models.length) {
          const usage = normalizeUsage({ input: sum(models, "prompt"), output: sum(models, "candidates"), total: sum(models, "total") });
          if (usage) out.usage = usage;
        }
        if (whole.error) {
          out.ok = false;
          out.error = String(whole.error.message ?? whole.error);
        }
      }
      return { ...out, ...(streamed ? { answer: out.answer ?? streamed, streamed } : {}) };
    },
  };
}

function sum(models: any[], key: string): number {
  return models.reduce((n, m) => n + (Number(m?.tokens?.[key]) || 0), 0);
}
