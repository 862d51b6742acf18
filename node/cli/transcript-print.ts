/**
 * @module node/cli/transcript-print
 * A task's agent transcript for people (`flow runs <run> --node <id>`), tool-call lines for
 * `flow up`, and token/cost figures for both. See docs/cli.md.
 */
import type { AgentUsage, TranscriptAttempt } from "../../core/agents/index.js";
import type { FlowEvent } from "../../core/engine/index.js";
import { painter } from "./command.js";

/** `1,840 in / 64 out tokens, $0.0132`; empty without usage. */
export function formatUsage(u: (AgentUsage & { attempts?: number }) | undefined): string {
  if (!u || (u.inputTokens === undefined && u.outputTokens === undefined && u.costUsd === undefined)) return "";
  const n = (x: number | undefined) => (x ?? 0).toLocaleString("en-US");
  const cached = u.cacheReadTokens ? ` (${n(u.cacheReadTokens)} cached)` : "";
  const cost = u.costUsd !== undefined ? `, ${formatCost(u.costUsd)}` : "";
  return `${n(u.inputTokens)} in${cached} / ${n(u.outputTokens)} out tokens${cost}`;
}

/** `$0.0132`, `$1.25`, `<$0.0001`. */
export function formatCost(usd: number): string {
  if (usd === 0) return "$0";
  if (usd < 0.0001) return "<$0.0001";
  return `$${usd < 1 ? usd.toPrecision(3).replace(/0+$/, "") : usd.toFixed(2)}`;
}

/**
 * Tool errors that say the tool would not act (its input, its sandbox, its limits), as against
 * one that acted and failed (a command that exited 1, a patch that did not apply, a timeout).
 */
const REFUSALS = new Set(["TOOL_INPUT_INVALID", "TOOL_PATH_OUTSIDE_ROOT", "TOOL_PATH_TOO_LONG", "TOOL_FILE_NOT_REGULAR", "TOOL_FILE_TOO_LARGE", "TOOL_CONTENT_TOO_LARGE", "TOOL_PATCH_TOO_LARGE", "TOOL_NETWORK_DISABLED", "TOOL_GIT_REMOTE_DISABLED"]);

/** One line for a tool call (`flow up`), or for a failed or refused one; null for other events. */
export function formatToolEvent(e: FlowEvent, color: boolean): string | null {
  const c = painter(color);
  const who = (x: { nodeId: string; iteration: number }) => (x.iteration ? `${x.nodeId}#${x.iteration}` : x.nodeId);
  if (e.type === "AgentToolCall") return `  ${c(90, "⚙")} ${who(e)} › ${e.toolName}${e.input === undefined ? "" : ` ${c(90, clip(JSON.stringify(e.input), 100))}`}`;
  // One line whatever the message holds (a command's stderr, a validation error as indented JSON).
  if (e.type === "AgentToolResult" && !e.ok) {
    const code = e.error?.code;
    const how = code ? `${REFUSALS.has(code) ? "refused" : "failed"} ${code}` : "failed";
    return `  ${c(31, "✗")} ${who(e)} › ${e.toolName} ${how}: ${clip((e.error?.message ?? "").replace(/\s+/g, " "), 120)}`;
  }
  return null;
}

/** How an attempt ended, as the store recorded it (`AttemptRecord`'s fields). */
export interface AttemptOutcome {
  iteration: number;
  attempt: number;
  state: string;
  error: { code?: string } | null;
}

/**
 * The transcript of a task, attempt by attempt; each headed by how it ended where `outcomes`
 * (the task's attempts) says (`Attempt 1 · failed TASK_TIMEOUT`), or that it is running, with
 * what it has spent so far.
 * @example
 * io.stdout(formatTranscript(await db.getTranscript(runId, "fix"), false, await db.listAttempts(runId, "fix")));
 */
export function formatTranscript(attempts: TranscriptAttempt[], color: boolean, outcomes: AttemptOutcome[] = []): string {
  const c = painter(color);
  if (attempts.length === 0) return "No agent transcript (the task ran no agent, or has not started).\n";
  const ended = new Map(outcomes.map((o) => [`${o.iteration}:${o.attempt}`, o]));
  const out: string[] = [];
  for (const a of attempts) {
    const outcome = ended.get(`${a.iteration}:${a.attempt}`);
    const running = outcome?.state === "in-progress";
    const spent = formatUsage(a.usage && { ...a.usage, ...(a.costUsd !== undefined ? { costUsd: a.costUsd } : {}) });
    const state = !outcome ? "" : running ? c(34, " · running") : c(outcome.state === "finished" ? 32 : 31, ` · ${outcome.state}${outcome.error?.code ? ` ${outcome.error.code}` : ""}`);
    out.push(c(1, `Attempt ${a.attempt}${a.iteration ? ` (iteration ${a.iteration})` : ""}${a.interrupted ? " — interrupted" : ""}`) + state + (spent ? c(90, `  ${spent}${running ? " so far" : ""}`) : ""));
    for (const g of a.generations) {
      const who = [g.agentId, g.engine, g.model].filter(Boolean).join(" · ");
      out.push(`  ${c(36, `generation ${g.generation}`)} ${c(90, `${who}${g.schemaRetry ? ` · correction ${g.schemaRetry}` : ""} · ${g.status}${g.durationMs !== undefined ? ` · ${g.durationMs} ms` : ""}`)}`);
      const asked = g.prompt ?? g.messages?.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`).join("\n");
      if (asked) out.push(indent(`${c(90, "prompt:")} ${clip(asked, 600)}`, 4));
      for (const p of g.parts) {
        if (p.kind === "text") out.push(indent(p.text, 4));
        else {
          const t = p.call;
          const flags = t.sideEffect ? c(33, " [side effect]") : "";
          const result = t.ok === undefined ? c(90, "running…") : t.ok ? `→ ${clip(JSON.stringify(t.output ?? null), 200)}` : c(31, `✗ ${t.error?.code ? `${t.error.code}: ` : ""}${t.error?.message ?? "failed"}`);
          out.push(indent(`${c(35, "⚙")} ${t.toolName}(${clip(JSON.stringify(t.input ?? {}), 200)})${flags} ${result}${t.durationMs != null ? c(90, ` ${t.durationMs} ms`) : ""}`, 4));
        }
      }
      if (g.error) out.push(indent(c(31, `error: ${g.error.code ? `${g.error.code}: ` : ""}${g.error.message}`), 4));
      const usage = formatUsage(g.usage && { ...g.usage, ...(g.costUsd !== undefined ? { costUsd: g.costUsd } : {}) });
      if (usage) out.push(indent(c(90, usage), 4));
      if (g.truncated) out.push(indent(c(33, "(truncated at maxOutputBytes)"), 4));
    }
  }
  return `${out.join("\n")}\n`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function indent(text: string, n: number): string {
  const pad = " ".repeat(n);
  return text.split("\n").map((l) => pad + l).join("\n");
}
