/**
 * @module core/agents/types
 * The agent contract (SPEC.md "Agents"). Any object with `generate` is an agent: the SDK and
 * CLI agents Flow ships, an AI SDK `ToolLoopAgent`, or your own. See docs/agents.md.
 */
import type { AgentCapabilityRegistry } from "./capabilities.js";

/** Per-call timeout: a number is the total time only; an object sets each limit on its own. */
export type AgentTimeout = number | { totalMs?: number; idleMs?: number };

/** A message of a conversation handed to an agent (`AgentGenerateOptions.messages`). */
export interface AgentMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: unknown;
}

/**
 * Options passed to `AgentLike.generate` (SPEC.md `AgentGenerateOptions`).
 * @example
 * const result = await agent.generate({ prompt: "Summarize README.md", timeout: { totalMs: 60_000 } });
 */
export interface AgentGenerateOptions {
  prompt?: string;
  messages?: AgentMessage[];
  timeout?: AgentTimeout;
  abortSignal?: AbortSignal;
  /** Working directory for CLI agents when the agent has no `cwd`. */
  rootDir?: string;
  /** Native session id to continue (a CLI agent's session, thread or conversation). */
  resumeSession?: string;
  maxOutputBytes?: number;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  onEvent?: (event: AgentEvent) => void;
  retry?: boolean;
  isRetry?: boolean;
  retryAttempt?: number;
  /** 1 for the first correction call after an output failed its schema; absent otherwise. */
  schemaRetry?: number;
  /** The zod schema the result must satisfy (used natively when `supportsNativeStructuredOutput`). */
  outputSchema?: unknown;
  taskContext?: { runId?: string; nodeId?: string; iteration?: number; attempt?: number };
  /** Tool allowlist for CLI agents (`Task.allowTools` or the run's `cliAgentToolsDefault`). */
  allowTools?: string[];
  [extra: string]: unknown;
}

/**
 * SPEC.md `AgentLike`.
 * @example
 * const echo: AgentLike = { id: "echo", generate: async (o) => ({ text: JSON.stringify({ said: o?.prompt }) }) };
 */
export interface AgentLike {
  id?: string;
  generate(args?: AgentGenerateOptions): Promise<unknown>;
  tools?: Record<string, unknown>;
  capabilities?: AgentCapabilityRegistry;
  supportsNativeStructuredOutput?: boolean;
  /** Runs once before the first generation; a rejection fails the task without retry. */
  preflight?(args?: AgentGenerateOptions): Promise<void>;
}

/**
 * Token counts of one or more model calls, flattened from the AI SDK's usage shape.
 * @example
 * const usage: AgentUsage = { inputTokens: 1840, outputTokens: 64, totalTokens: 1904, cacheReadTokens: 1200 };
 */
export interface AgentUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
  /** Cost the agent reported (CLI agents that print one). */
  costUsd?: number;
}

/**
 * What Flow's agents resolve `generate` to. `output` holds structured output when the agent
 * produced it natively; otherwise run-agent looks for JSON in `text` and `steps`.
 * @example
 * const { text, sessionId, usage } = (await agent.generate({ prompt: "hi" })) as AgentResult;
 */
export interface AgentResult {
  text: string;
  output?: unknown;
  usage?: AgentUsage;
  /** The agent's native session id, for retries, schema corrections and `fork`. */
  sessionId?: string;
  /** The directory that session ran in (CLI agents): where a person reopens it (hijack). */
  sessionDir?: string;
  finishReason?: string;
  modelId?: string;
  /** Who served the model: the AI SDK provider id (`openai.chat`), or the CLI engine. */
  provider?: string;
  /** Texts of the model steps, oldest first (for JSON extraction). */
  steps?: { text: string }[];
}

/**
 * Progress an agent reports through `onEvent` (CLI agents; SDK agents report tool calls as
 * `action` events too).
 * @example
 * agent.generate({ prompt, onEvent: (e) => e.type === "action" && console.log(e.action.title) });
 */
export type AgentEvent =
  | { type: "started"; engine: string; title: string; resume?: string }
  | {
      type: "action";
      engine: string;
      phase: "started" | "updated" | "completed";
      entryType?: "thought" | "message";
      action: { id: string; kind: AgentActionKind; title: string; detail?: unknown };
      message?: string;
      ok?: boolean;
      level?: "info" | "warning" | "error";
      /** A tool call's arguments (phase `started`). */
      input?: unknown;
      /** A tool call's result (phase `completed`, `ok` true). */
      output?: unknown;
      /** Why a tool call failed or was refused (phase `completed`, `ok` false). */
      error?: { code?: string; message: string };
    }
  /** Streamed answer text: an SDK model's text deltas, a CLI's streamed assistant text. */
  | { type: "text"; engine: string; delta: string }
  /** What a model step spent as it ended (an SDK tool loop's step; `model`: the model that answered it). */
  | { type: "usage"; engine: string; usage: AgentUsage; model?: string }
  | { type: "completed"; engine: string; ok: boolean; answer?: string; error?: string; resume?: string; usage?: AgentUsage };

/** Kinds of `action` events. */
export type AgentActionKind = "turn" | "command" | "tool" | "file_change" | "web_search" | "todo_list" | "reasoning" | "warning" | "note";

/**
 * True for an object that can act as an agent.
 * @example
 * if (!isAgentLike(value)) throw new Error("not an agent");
 */
export function isAgentLike(value: unknown): value is AgentLike {
  return typeof value === "object" && value !== null && typeof (value as AgentLike).generate === "function";
}
