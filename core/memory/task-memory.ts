/**
 * @module core/memory/task-memory
 * The task `memory` prop (SPEC.md `TaskMemoryConfig`), as functions the engine calls around an
 * agent attempt:
 *
 *   prepareTaskMemory(engine, config, prompt, ctx)  before the agent: recall + primers
 *     -> { prompt (memory block first), block, tools (remember/recall when `tools: true`) }
 *   retainTaskMemory(engine, config, attempt)        after the task completes (`retain: on-complete`)
 *
 * Only a bank selection (`bank` or `banks`) activates memory. The legacy object forms
 * (`namespace`, `remember`, `threadId`, an object `recall`) are accepted and inert: they
 * inject nothing, retain nothing and append no history. Memory never fails a task: an engine
 * that is down is a warning and the agent runs without the block. See docs/memory.md.
 */
import { z } from "zod";
import { bindingOf, type StoreBinding } from "../binding.js";
import { FlowError } from "../errors.js";
// Not through ../tools/index.js: that entry also loads the OpenAPI loader, which is not
// browser-safe yet, and task memory must run in the browser app.
import { defineTool } from "../tools/index.js";
import type { Tool } from "../tools/index.js";
import { createLocalMemoryEngine } from "./local-engine.js";
import type { MemoryEnginePort, RecallBudget, RecalledMemory } from "./port.js";
import { memoryStoreOf } from "./store.js";

/** Legacy and inert: SPEC.md `SemanticRecallConfig`. */
export interface SemanticRecallConfig {
  topK?: number;
  namespace?: string;
  similarityThreshold?: number;
}
/** Legacy and inert: SPEC.md `MessageHistoryConfig`. */
export interface MessageHistoryConfig {
  lastMessages?: number;
  threadId?: string;
}
/** Legacy and inert: SPEC.md `WorkingMemoryConfig`. */
export interface WorkingMemoryConfig {
  schema?: unknown;
  namespace: string;
  ttlMs?: number;
}

/** The task `memory` prop. */
export interface TaskMemoryConfig {
  /** One bank (xor `banks`). */
  bank?: string;
  /** Several banks, recalled in parallel (xor `bank`). */
  banks?: string[];
  tags?: string[];
  /** `auto` (default): the query is the prompt; a string is the query; `false` disables. An object is legacy and inert. */
  recall?: "auto" | string | false | SemanticRecallConfig;
  /** Default `mid`. */
  budget?: RecallBudget;
  /** Cap of the injected block and of a `recall` tool result, in tokens (default 2048). */
  maxTokens?: number;
  /** Ids injected verbatim, before recalled memories. */
  primers?: string[];
  /** Default `off`. */
  retain?: "on-complete" | "off";
  /** Expose the `remember` and `recall` tools (default false). */
  tools?: boolean;
  /** Legacy, inert. */
  namespace?: string;
  /** Legacy, inert. */
  remember?: { namespace?: string; key?: string };
  /** Legacy, inert. */
  threadId?: string;
}

/**
 * SPEC.md "Memory block cap": the default `maxTokens` of task memory.
 * @example
 * const chars = DEFAULT_MEMORY_MAX_TOKENS * 4; // the block's default size in characters
 */
export const DEFAULT_MEMORY_MAX_TOKENS = 2048;
const CHARS_PER_TOKEN = 4;
/** Longest query derived from a prompt (`recall: "auto"`), in characters. */
const AUTO_QUERY_CHARS = 2000;

interface ActiveMemory {
  banks: string[];
  tags: string[];
  query: ((prompt: string) => string) | null;
  budget: RecallBudget;
  maxChars: number;
  primers: string[];
  retain: boolean;
  tools: boolean;
}

/** Where an attempt runs, for tools, retention and warnings. */
export interface TaskMemoryContext {
  runId: string;
  nodeId: string;
  iteration: number;
  warn(message: string, details?: Record<string, unknown>): void;
}

/**
 * Normalizes a `memory` prop: null when it selects no bank (inert), INVALID_ARGUMENT when malformed.
 * @example
 * activeMemory({ threadId: "t1" }, "reply"); // null: legacy forms are inert
 */
export function activeMemory(config: unknown, nodeId: string): ActiveMemory | null {
  if (config === undefined || config === null) return null;
  const c = config as TaskMemoryConfig;
  const bad = (what: string) => new FlowError("INVALID_ARGUMENT", `Task "${nodeId}" memory: ${what}.`, { nodeId });
  if (typeof c !== "object") throw bad("expected an object");
  if (c.bank !== undefined && c.banks !== undefined) throw bad("give `bank` or `banks`, not both");
  const banks = c.bank !== undefined ? [c.bank] : (c.banks ?? []);
  if (banks.some((b) => typeof b !== "string" || b === "")) throw bad("banks must be non-empty strings");
  if (banks.length === 0) return null;
  if (c.budget !== undefined && !["low", "mid", "high"].includes(c.budget)) throw bad(`budget must be low, mid or high, not ${JSON.stringify(c.budget)}`);
  const maxTokens = c.maxTokens ?? DEFAULT_MEMORY_MAX_TOKENS;
  if (!Number.isFinite(maxTokens) || maxTokens <= 0) throw bad("maxTokens must be a positive number");
  const recall = c.recall ?? "auto";
  return {
    banks: [...new Set(banks)],
    tags: c.tags ?? [],
    query: recall === "auto" ? (prompt) => prompt.slice(0, AUTO_QUERY_CHARS) : typeof recall === "string" ? () => recall : null,
    budget: c.budget ?? "mid",
    maxChars: maxTokens * CHARS_PER_TOKEN,
    primers: c.primers ?? [],
    retain: c.retain === "on-complete",
    tools: c.tools === true,
  };
}

const engines = new WeakMap<StoreBinding, MemoryEnginePort>();

/**
 * Uses `engine` for task memory of every workflow on this store (default: the local engine
 * over the store's notes).
 * @example
 * attachMemoryEngine(api.db, createEngineMemoryStore({ baseUrl: "http://localhost:8888", contractStore: createMemoryStore(api.db) }));
 */
export function attachMemoryEngine(db: unknown, engine: MemoryEnginePort): void {
  engines.set(bindingOf(db, "db handle"), engine);
}

/**
 * The memory engine of a store binding (the engine's hook): the attached one, else the local engine over its notes.
 * @example
 * const engine = memoryEngineOf(bindingOf(workflow));
 */
export function memoryEngineOf(binding: StoreBinding): MemoryEnginePort {
  let engine = engines.get(binding);
  if (!engine) {
    engine = createLocalMemoryEngine(memoryStoreOf({ store: binding.store, clock: binding.env.clock, newId: () => binding.env.newId() }));
    engines.set(binding, engine);
  }
  return engine;
}

/** Recalls from every bank in parallel; merged by rank (round robin), duplicates dropped. */
async function recallAll(engine: MemoryEnginePort, m: ActiveMemory, query: string, ctx: TaskMemoryContext): Promise<RecalledMemory[]> {
  const perBank = await Promise.all(
    m.banks.map((bank) =>
      engine.recallMemory(bank, query, { budget: m.budget, maxTokens: Math.floor(m.maxChars / CHARS_PER_TOKEN), ...(m.tags.length ? { tags: m.tags } : {}) }).catch((error: unknown) => {
        ctx.warn(`Memory recall from bank ${bank} failed for task "${ctx.nodeId}" (run ${ctx.runId}); continuing without it: ${FlowError.from(error).message}`, { bank, nodeId: ctx.nodeId });
        return [] as RecalledMemory[];
      }),
    ),
  );
  const seen = new Set<string>();
  const merged: RecalledMemory[] = [];
  for (let rank = 0; perBank.some((list) => rank < list.length); rank++) {
    for (const list of perBank) {
      const hit = list[rank];
      if (hit && !seen.has(hit.text)) {
        seen.add(hit.text);
        merged.push(hit);
      }
    }
  }
  return merged;
}

/** Lines under a heading, as many as fit in `room` characters (whole lines only). */
function section(heading: string, lines: string[], room: number): string {
  let out = heading;
  for (const line of lines) {
    if (out.length + 1 + line.length > room) break;
    out += `\n${line}`;
  }
  return out === heading ? "" : out;
}

function renderBlock(primers: string[], memories: RecalledMemory[], maxChars: number): string {
  const open = "<memory>";
  const close = "</memory>";
  let room = maxChars - open.length - close.length - 2;
  const parts: string[] = [];
  const primed = section("## Primers", primers, room);
  if (primed) {
    parts.push(primed);
    room -= primed.length + 1;
  }
  const recalled = section("## Recalled memories", memories.map((m) => `- ${m.text.replace(/\s+/g, " ").trim()}`), room);
  if (recalled) parts.push(recalled);
  return parts.length === 0 ? "" : `${open}\n${parts.join("\n")}\n${close}`;
}

function memoryTools(engine: MemoryEnginePort, m: ActiveMemory, ctx: TaskMemoryContext): Record<string, Tool> {
  const remember = defineTool({
    name: "remember",
    description: `Store a fact worth remembering in long-term memory (bank ${m.banks[0]}).`,
    schema: z.object({ content: z.string().min(1).describe("What to remember, as a self-contained sentence"), tags: z.array(z.string()).optional() }),
    sideEffect: true,
    async execute({ content, tags }, toolCtx) {
      await engine.retainMemory(m.banks[0]!, content, {
        context: `task:${ctx.nodeId}`,
        documentId: `remember:${toolCtx.idempotencyKey}:${toolCtx.seq}`,
        tags: [...m.tags, ...(tags ?? [])],
        metadata: { runId: ctx.runId, nodeId: ctx.nodeId },
      });
      return "remembered";
    },
  });
  const recall = defineTool({
    name: "recall",
    description: `Search long-term memory (${m.banks.join(", ")}) for what is relevant to a query.`,
    schema: z.object({ query: z.string().min(1).describe("What to look for") }),
    async execute({ query }) {
      const hits = await recallAll(engine, m, query, ctx);
      return section("", hits.map((h) => `- ${h.text}`), m.maxChars).trim() || "Nothing relevant is remembered.";
    },
  });
  return { remember, recall };
}

/** What `prepareTaskMemory` gives the agent call. */
export interface PreparedTaskMemory {
  /** The prompt to send: the memory block, a blank line, then the task's prompt. */
  prompt: string;
  /** The memory block alone ("" when nothing was recalled or primed). */
  block: string;
  /** `remember` and `recall` when `tools: true`, else empty. */
  tools: Record<string, Tool>;
}

/**
 * Before an agent attempt: recalls from the task's banks, fetches its primers and builds the
 * memory block (at most `maxTokens * 4` characters) and tools. Inert configs return the prompt
 * unchanged. Engine failures are warnings; only a malformed config rejects (INVALID_ARGUMENT).
 * @example
 * const { prompt, tools } = await prepareTaskMemory(memoryEngineOf(binding), desc.memoryConfig, taskPrompt, { runId, nodeId, iteration, warn });
 */
export async function prepareTaskMemory(engine: MemoryEnginePort, config: unknown, prompt: string, ctx: TaskMemoryContext): Promise<PreparedTaskMemory> {
  const m = activeMemory(config, ctx.nodeId);
  if (!m) return { prompt, block: "", tools: {} };
  const [primers, memories] = await Promise.all([
    m.primers.length === 0
      ? []
      : engine.getPrimers(m.banks[0]!, m.primers).then(
          (list) => list.map((p) => p.content),
          (error: unknown) => {
            ctx.warn(`Memory primers of task "${ctx.nodeId}" could not be loaded; continuing without them: ${FlowError.from(error).message}`, { nodeId: ctx.nodeId });
            return [] as string[];
          },
        ),
    m.query ? recallAll(engine, m, m.query(prompt), ctx) : [],
  ]);
  const block = renderBlock(primers, memories, m.maxChars);
  return { prompt: block ? `${block}\n\n${prompt}` : prompt, block, tools: m.tools ? memoryTools(engine, m, ctx) : {} };
}

/**
 * After a task completed: with `retain: "on-complete"`, retains the prompt and the output row
 * in every bank of the task (document id `task:<runId>:<nodeId>:<iteration>`, so a re-run
 * replaces it). Never rejects: failures are warnings.
 * @example
 * await retainTaskMemory(memoryEngineOf(binding), desc.memoryConfig, { prompt, output: row }, { runId, nodeId, iteration, warn });
 */
export async function retainTaskMemory(engine: MemoryEnginePort, config: unknown, attempt: { prompt: string; output: unknown }, ctx: TaskMemoryContext): Promise<void> {
  let m: ActiveMemory | null;
  try {
    m = activeMemory(config, ctx.nodeId);
  } catch (error) {
    ctx.warn(FlowError.from(error).message, { nodeId: ctx.nodeId });
    return;
  }
  if (!m?.retain) return;
  const content = `Task ${ctx.nodeId} was asked:\n${attempt.prompt}\n\nIt answered:\n${JSON.stringify(attempt.output)}`;
  await Promise.all(
    m.banks.map((bank) =>
      engine
        .retainMemory(bank, content, {
          context: `task:${ctx.nodeId}`,
          documentId: `task:${ctx.runId}:${ctx.nodeId}:${ctx.iteration}`,
          ...(m.tags.length ? { tags: m.tags } : {}),
          metadata: { runId: ctx.runId, nodeId: ctx.nodeId, iteration: String(ctx.iteration) },
        })
        .catch((error: unknown) => ctx.warn(`Retaining task "${ctx.nodeId}" (run ${ctx.runId}) in memory bank ${bank} failed: ${FlowError.from(error).message}`, { bank, nodeId: ctx.nodeId })),
    ),
  );
}
