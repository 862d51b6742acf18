/**
 * @module core/memory/processors
 * Memory processors (SPEC.md "Processors"): maintenance passes over a memory store, each with
 * `name`, `process(store)` and its Effect twin `processEffect(store)`.
 *
 * - `Summarizer(agent)`: per thread, older messages are replaced by one `system` message that
 *   summarizes them; the two most recent messages are kept as they are.
 * - `TokenLimiter(maxTokens)`: per thread, the oldest messages are deleted until the thread's
 *   content fits in about `maxTokens * 4` characters (the newest message is always kept).
 * - `TtlGarbageCollector()`: deletes expired facts.
 *
 * `MemoryProcessorConfig.processors` names them (`summarizer`, `token-limiter`,
 * `ttl-garbage-collector`); `processorsFromConfig` builds that list. See docs/memory.md.
 */
import type { Effect } from "effect";
import { FlowError } from "../errors.js";
import { effectOf } from "./effect.js";
import type { MemoryStore } from "./store.js";

/** What a processor reports. */
export interface ProcessorResult {
  /** Threads changed (Summarizer, TokenLimiter) or facts deleted (TtlGarbageCollector). */
  changed: number;
  /** Messages or facts removed. */
  removed: number;
}

export interface MemoryProcessor {
  name: string;
  process(store: MemoryStore): Promise<ProcessorResult>;
  processEffect(store: MemoryStore): Effect.Effect<ProcessorResult, FlowError>;
}

/** SPEC.md `MemoryProcessorConfig`. */
export interface MemoryProcessorConfig {
  processors?: string[];
}

/** An agent that can summarize: `run(prompt)` resolves to the summary text (or `{ text }`). */
export interface SummarizerAgent {
  run(prompt: string): Promise<unknown>;
}

/** Messages a Summarizer keeps verbatim (SPEC.md). */
const KEEP_RECENT = 2;
const CHARS_PER_TOKEN = 4;

function processor(name: string, process: (store: MemoryStore) => Promise<ProcessorResult>): MemoryProcessor {
  return { name, process, processEffect: effectOf(process) };
}

/** The text of a message's content (its JSON string decoded when it holds a string). */
function textOf(contentJson: string): string {
  try {
    const value = JSON.parse(contentJson) as unknown;
    return typeof value === "string" ? value : contentJson;
  } catch {
    return contentJson;
  }
}

/**
 * Compresses each thread's older messages into one `system` summary message.
 * @example
 * await Summarizer({ run: async (prompt) => (await agent.generate({ prompt })).text }).process(memory);
 */
export function Summarizer(agent: SummarizerAgent): MemoryProcessor {
  if (typeof agent?.run !== "function") throw new FlowError("INVALID_ARGUMENT", "Summarizer needs an agent with run(prompt) -> Promise<string>.");
  return processor("summarizer", async (store) => {
    const result: ProcessorResult = { changed: 0, removed: 0 };
    for (const thread of await store.listThreads()) {
      const messages = await store.listMessages(thread.threadId);
      const older = messages.slice(0, Math.max(0, messages.length - KEEP_RECENT));
      if (older.length < 2) continue;
      const transcript = older.map((m) => `${m.role}: ${textOf(m.contentJson)}`).join("\n");
      const answer = await agent.run(`Summarize this conversation so far in a few sentences, keeping every fact, decision and open question:\n\n${transcript}`);
      const summary = typeof answer === "string" ? answer : String((answer as { text?: unknown })?.text ?? "");
      if (!summary.trim()) throw new FlowError("AGENT_FAILED", `Summarizer got an empty summary for thread ${thread.threadId}; nothing was changed.`, { threadId: thread.threadId });
      // Dated just before the first kept message, so it lists before the messages it precedes.
      await store.saveMessage({ threadId: thread.threadId, role: "system", contentJson: JSON.stringify(summary), createdAtMs: messages[older.length]!.createdAtMs - 1 });
      result.removed += await store.deleteMessages(thread.threadId, older.map((m) => m.id));
      result.changed++;
    }
    return result;
  });
}

/**
 * Deletes each thread's oldest messages until its content fits in about `maxTokens * 4` characters.
 * @example
 * await TokenLimiter(4000).process(memory);
 */
export function TokenLimiter(maxTokens: number): MemoryProcessor {
  if (!Number.isFinite(maxTokens) || maxTokens <= 0) throw new FlowError("INVALID_ARGUMENT", `TokenLimiter needs a positive maxTokens; got ${maxTokens}.`, { maxTokens });
  const budget = maxTokens * CHARS_PER_TOKEN;
  return processor("token-limiter", async (store) => {
    const result: ProcessorResult = { changed: 0, removed: 0 };
    for (const thread of await store.listThreads()) {
      const messages = await store.listMessages(thread.threadId);
      let used = 0;
      let keepFrom = messages.length;
      while (keepFrom > 0 && (keepFrom === messages.length || used + messages[keepFrom - 1]!.contentJson.length <= budget)) {
        used += messages[--keepFrom]!.contentJson.length;
      }
      if (keepFrom === 0) continue;
      result.removed += await store.deleteMessages(thread.threadId, messages.slice(0, keepFrom).map((m) => m.id));
      result.changed++;
    }
    return result;
  });
}

/**
 * Deletes expired facts (`deleteExpiredFacts`).
 * @example
 * const { removed } = await TtlGarbageCollector().process(memory);
 */
export function TtlGarbageCollector(): MemoryProcessor {
  return processor("ttl-garbage-collector", async (store) => {
    const removed = await store.deleteExpiredFacts();
    return { changed: removed, removed };
  });
}

/**
 * The processors a config names, in order. `summarizer` needs `agent`; `token-limiter` uses
 * `maxTokens` (default 2048).
 * @example
 * for (const p of processorsFromConfig({ processors: ["ttl-garbage-collector"] })) await p.process(memory);
 */
export function processorsFromConfig(config: MemoryProcessorConfig, deps: { agent?: SummarizerAgent; maxTokens?: number } = {}): MemoryProcessor[] {
  return (config.processors ?? []).map((name) => {
    if (name === "ttl-garbage-collector") return TtlGarbageCollector();
    if (name === "token-limiter") return TokenLimiter(deps.maxTokens ?? 2048);
    if (name === "summarizer") {
      if (!deps.agent) throw new FlowError("INVALID_ARGUMENT", "The summarizer processor needs an agent (processorsFromConfig(config, { agent })).");
      return Summarizer(deps.agent);
    }
    throw new FlowError("INVALID_ARGUMENT", `Unknown memory processor "${name}" (use summarizer, token-limiter or ttl-garbage-collector).`, { name });
  });
}
