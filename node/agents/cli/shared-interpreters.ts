/**
 * @module node/agents/cli/shared-interpreters
 * Output formats that more than one CLI speaks (CLI-AGENTS.md section 4):
 * - Claude-style stream-json (variant 1, and variant 9's `--stream-json`): `system/init`,
 *   `assistant`, `user` tool results, `result`, `rate_limit_event`;
 * - Pi-style JSON events (variants 5 and 6, JSON and RPC modes): `session`, `message_update`,
 *   `tool_execution_*`, `agent_end`, `response`;
 * - role lines (variants 7 and 10): `{role, content, tool_calls?}` per line.
 */
import type { AgentEvent, AgentUsage } from "../../../core/agents/index.js";
import { normalizeUsage } from "../../../core/agents/index.js";
import type { CliInterpreter, InterpretedOutput } from "./cli-types.js";
import { jsonLine } from "./cli-types.js";

type Emit = (event: AgentEvent) => void;

/** A tool call's start (with its arguments) or end (with its result), for the transcript. */
const toolEvent = (engine: string, phase: "started" | "completed", id: string, title: string, ok?: boolean, payload?: unknown): AgentEvent => ({
  type: "action",
  engine,
  phase,
  action: { id, kind: "tool", title },
  ...(ok !== undefined ? { ok } : {}),
  ...(payload === undefined ? {} : phase === "started" ? { input: payload } : ok === false ? { error: { message: textOf(payload) } } : { output: payload }),
});

function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((p) => (typeof p?.text === "string" ? p.text : JSON.stringify(p))).join("");
  return JSON.stringify(value);
}

/** Arguments of an OpenAI-style tool call: JSON text, parsed when it parses. */
function parsedArgs(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Claude-style stream-json. `answerFrom: "result"` takes `result.result` (falling back to the
 * last assistant text); `"assistant"` joins every assistant text (falling back to the result).
 */
export function claudeStreamInterpreter(engine: string, answerFrom: "result" | "assistant"): CliInterpreter {
  const texts: string[] = [];
  const out: InterpretedOutput = {};
  let result: string | undefined;
  return {
    onLine(line, emit) {
      const j = jsonLine(line);
      if (!j) return;
      if (typeof j.session_id === "string") out.sessionId = j.session_id;
      if (j.type === "assistant") {
        for (const part of j.message?.content ?? []) {
          if (part.type === "text" && typeof part.text === "string") {
            texts.push(part.text);
            emit({ type: "action", engine, phase: "updated", entryType: "message", action: { id: `msg-${texts.length}`, kind: "turn", title: "message" }, message: part.text });
          } else if (part.type === "tool_use") emit(toolEvent(engine, "started", String(part.id), String(part.name), undefined, part.input));
        }
      } else if (j.type === "user") {
        for (const part of j.message?.content ?? []) if (part.type === "tool_result") emit(toolEvent(engine, "completed", String(part.tool_use_id), "tool result", part.is_error !== true, part.content));
      } else if (j.type === "result") {
        if (typeof j.result === "string") result = j.result;
        const usage = withCost(normalizeUsage(j.usage), j.total_cost_usd);
        if (usage) out.usage = usage;
        if (j.is_error === true || (typeof j.subtype === "string" && j.subtype.startsWith("error"))) {
          out.ok = false;
          out.error = typeof j.error === "string" ? j.error : (result ?? j.subtype);
        }
      } else if (j.type === "rate_limit_event" && j.rate_limit_info?.status === "rejected") {
        // Only a rejection stops the run; overage or warning statuses are informational.
        out.quota = true;
        const reset = j.rate_limit_info.resetsAt;
        out.error = `rate limit exceeded${typeof reset === "number" ? `, try again at ${new Date(reset * 1000).toISOString()}` : ""}`;
      }
    },
    finish() {
      const joined = texts.join("");
      const answer = answerFrom === "result" ? (result ?? texts.at(-1)) : joined || result;
      return { ...out, ...(answer !== undefined ? { answer } : {}), ...(joined ? { streamed: joined } : {}) };
    },
  };
}

/** Pi-style JSON events (JSON mode and RPC mode of variants 5 and 6). */
export function piEventsInterpreter(engine: string): CliInterpreter & { done(): boolean; sawPromptResponse(): boolean } {
  const out: InterpretedOutput = {};
  let streamed = "";
  let finished = false;
  let promptAnswered = false;
  return {
    onLine(line, emit) {
      const j = jsonLine(line);
      if (!j) return;
      switch (j.type) {
        case "session":
          if (typeof j.id === "string") out.sessionId = j.id;
          break;
        case "session_info_update":
          if (typeof (j.sessionId ?? j.sessionFile) === "string") out.sessionId = j.sessionId ?? j.sessionFile;
          break;
        case "message_update":
          if (j.assistantMessageEvent?.type === "text_delta") {
            streamed += j.assistantMessageEvent.delta ?? "";
            emit({ type: "text", engine, delta: String(j.assistantMessageEvent.delta ?? "") });
          }
          break;
        case "tool_execution_start":
          emit(toolEvent(engine, "started", String(j.toolCallId), String(j.toolName), undefined, j.args));
          break;
        case "tool_execution_end":
          emit(toolEvent(engine, "completed", String(j.toolCallId), String(j.toolName), j.isError !== true, j.result?.content ?? j.result));
          break;
        case "turn_end":
          if (j.message?.role === "assistant") readAssistant(j.message);
          break;
        case "agent_end":
        case "prompt_result": {
          const last = [...(j.messages ?? [])].reverse().find((m: any) => m?.role === "assistant");
          if (last) readAssistant(last);
          finished = true;
          break;
        }
        case "response":
          if (j.command === "get_state" && typeof j.data?.sessionId === "string") out.sessionId = j.data.sessionId;
          if (j.command === "prompt") {
            promptAnswered = true;
            if (j.success === false) {
              out.ok = false;
              out.error = String(j.error ?? "prompt rejected");
              finished = true;
            } else if (j.data?.agentInvoked === false) finished = true;
          }
          break;
      }
    },
    finish: () => ({ ...out, ...(streamed ? { streamed } : {}) }),
    done: () => finished,
    sawPromptResponse: () => promptAnswered,
  };

  function readAssistant(message: any): void {
    const text = (message.content ?? []).filter((p: any) => p?.type === "text").map((p: any) => p.text).join("");
    if (text) out.answer = text;
    const usage = normalizeUsage(message.usage);
    if (usage) out.usage = usage;
    if (message.stopReason === "error" || message.stopReason === "aborted") {
      out.ok = false;
      out.error = String(message.errorMessage ?? `assistant stopped: ${message.stopReason}`);
    }
  }
}

/** Role lines: `last` takes the last assistant content (variant 7), `join` joins them all (variant 10). */
export function roleLinesInterpreter(engine: string, answer: "last" | "join"): CliInterpreter {
  const texts: string[] = [];
  const out: InterpretedOutput = {};
  return {
    onLine(line, emit) {
      const j = jsonLine(line);
      if (!j) return;
      if (j.role === "meta" && j.type === "session.resume_hint" && typeof j.session_id === "string") out.sessionId = j.session_id;
      if (j.role === "assistant") {
        if (typeof j.content === "string" && j.content) {
          texts.push(j.content);
          emit({ type: "text", engine, delta: answer === "last" && texts.length > 1 ? `\n\n${j.content}` : j.content });
        }
        for (const c of j.tool_calls ?? []) emit(toolEvent(engine, "started", String(c.id), String(c.function?.name ?? "tool"), undefined, parsedArgs(c.function?.arguments)));
      } else if (j.role === "tool") emit(toolEvent(engine, "completed", String(j.tool_call_id), "tool result", true, j.content));
    },
    finish() {
      const text = answer === "last" ? texts.at(-1) : texts.join("");
      return { ...out, ...(text !== undefined && text !== "" ? { answer: text } : {}) };
    },
  };
}

function withCost(usage: AgentUsage | undefined, cost: unknown): AgentUsage | undefined {
  if (typeof cost !== "number") return usage;
  return { ...(usage ?? {}), costUsd: cost };
}
