/**
 * @module core/memory/engine-store
 * `createEngineMemoryStore`: the memory store backed by an external semantic-memory engine
 * that speaks the Hindsight HTTP API (`/v1/default/banks/<bank>/memories`, `.../memories/recall`,
 * `.../mental-models/<id>`; bearer `apiKey`).
 *
 * The local contract store stays authoritative: every operation runs there first, and exact
 * records and ids come from it. Facts, messages and notes that were written are then projected
 * to the engine (bank = the record's serialized namespace, `document_id` = a stable id of the
 * record, so a repeated projection replaces instead of duplicating). Projection is best-effort:
 * a failure is logged and queued for in-process retry with backoff (not durable across
 * restarts) and never rejects the mutation, which is already committed. See docs/memory.md.
 */
import { type ClockPort, systemClock } from "../util/index.js";
import { FlowError } from "../errors.js";
import { type EffectTwins, withEffectTwins } from "./effect.js";
import type { MemoryEnginePort, Primer, RecalledMemory, RecallOptions, RetainOptions } from "./port.js";
import type { MemoryStore } from "./store.js";
import type { MemoryStoreApi } from "./types.js";

export interface EngineMemoryStoreOptions {
  /** The engine's base URL, for example `http://localhost:8888`. */
  baseUrl: string;
  /** The authoritative local store (`createMemoryStore(db)`). */
  contractStore: MemoryStore;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Timers of the retry queue (default: the host clock). */
  clock?: ClockPort;
  /** Where projection failures are reported (default: `console.warn`). */
  log?(message: string, details?: Record<string, unknown>): void;
  /** First retry delay of a failed projection, doubled per failure up to 60 s (default 1000). */
  retryDelayMs?: number;
}

/** Promise operations an engine-backed store adds to the memory store. */
export interface EngineMemoryOps extends MemoryEnginePort {
  /** Projections waiting for a retry. */
  pendingProjections(): Promise<number>;
  /** Waits for projections in flight, then retries the queued ones once, now. Never rejects. */
  flushProjections(): Promise<void>;
}

/** SPEC.md `EngineMemoryStore`: the memory store plus the engine's operations, with twins. */
export type EngineMemoryStore = MemoryStore & EngineMemoryOps & EffectTwins<EngineMemoryOps>;

interface RetainItem {
  content: string;
  context?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  document_id?: string;
  timestamp?: string;
}

const MAX_RETRY_DELAY_MS = 60_000;

function toItem(content: string, opts: RetainOptions = {}): RetainItem {
  const item: RetainItem = { content };
  if (opts.context !== undefined) item.context = opts.context;
  if (opts.tags?.length) item.tags = opts.tags;
  if (opts.metadata) item.metadata = opts.metadata;
  if (opts.documentId !== undefined) item.document_id = opts.documentId;
  if (opts.timestampMs !== undefined) item.timestamp = new Date(opts.timestampMs).toISOString();
  return item;
}

/**
 * A memory store whose writes are also projected to an external memory engine, with the
 * engine's recall, primers and retain operations.
 * @example
 * const memory = createEngineMemoryStore({ baseUrl: "http://localhost:8888", contractStore: createMemoryStore(api.db), apiKey: process.env.MEMORY_API_KEY });
 * await memory.saveNote({ namespace: { kind: "agent", id: "support" }, body: "Refunds need a ticket id" });
 * const hits = await memory.recallMemory("agent:support", "how do refunds work?", { budget: "mid", maxTokens: 1024 });
 */
export function createEngineMemoryStore(opts: EngineMemoryStoreOptions): EngineMemoryStore {
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const clock = opts.clock ?? systemClock;
  const log = opts.log ?? ((message: string, details?: Record<string, unknown>) => console.warn(`[flow] ${message}`, details ?? ""));
  const base = opts.baseUrl.replace(/\/+$/, "");
  const local = opts.contractStore;

  async function request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    } catch (cause) {
      throw new FlowError("MEMORY_ENGINE_FAILED", `The memory engine at ${base} could not be reached (${method} ${path}): ${(cause as Error)?.message ?? cause}`, { url: `${base}${path}` }, { cause });
    }
    const text = await response.text();
    if (!response.ok) {
      throw new FlowError("MEMORY_ENGINE_FAILED", `The memory engine answered ${response.status} to ${method} ${path}: ${text.slice(0, 300)}`, { status: response.status, url: `${base}${path}` });
    }
    try {
      return (text ? JSON.parse(text) : {}) as T;
    } catch (cause) {
      throw new FlowError("MEMORY_ENGINE_FAILED", `The memory engine answered ${method} ${path} with a body that is not JSON.`, { url: `${base}${path}` }, { cause });
    }
  }
  const bankPath = (bank: string) => `/v1/default/banks/${encodeURIComponent(bank)}`;
  const retain = (bank: string, items: RetainItem[]) => request("POST", `${bankPath(bank)}/memories`, { items, async: true });

  // ---- best-effort projection with an in-process retry queue ----
  const queue: Array<{ bank: string; item: RetainItem; failures: number }> = [];
  const inFlight = new Set<Promise<void>>();
  let timer: unknown;

  const attempt = (job: { bank: string; item: RetainItem; failures: number }): Promise<void> => {
    const p = retain(job.bank, [job.item]).then(
      () => undefined,
      (error: unknown) => {
        job.failures++;
        queue.push(job);
        log(`Projection to the memory engine failed (bank ${job.bank}, document ${job.item.document_id}); queued for retry #${job.failures}.`, {
          code: FlowError.from(error).code,
          message: FlowError.from(error).message,
        });
        schedule();
      },
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
    return p;
  };
  const retryQueued = () => Promise.all(queue.splice(0).map(attempt)).then(() => undefined);
  function schedule(): void {
    if (timer !== undefined || queue.length === 0) return;
    const failures = Math.max(...queue.map((j) => j.failures));
    const delay = Math.min(MAX_RETRY_DELAY_MS, (opts.retryDelayMs ?? 1000) * 2 ** Math.max(0, failures - 1));
    timer = clock.setTimeout(() => {
      timer = undefined;
      void retryQueued();
    }, delay);
  }
  const project = (bank: string, item: RetainItem) => void attempt({ bank, item, failures: 0 });

  const contract = Object.fromEntries(Object.entries(local).filter(([k, v]) => typeof v === "function" && !k.endsWith("Effect"))) as unknown as MemoryStoreApi;
  const ops: MemoryStoreApi & EngineMemoryOps = {
    ...contract,
    async setFact(ns, key, value, ttlMs, schemaSig) {
      const fact = await local.setFact(ns, key, value, ttlMs, schemaSig);
      project(fact.namespace, toItem(`${key}: ${fact.valueJson}`, { context: "fact", documentId: `fact:${fact.namespace}:${key}`, timestampMs: fact.updatedAtMs }));
      return fact;
    },
    async saveMessage(msg) {
      const saved = await local.saveMessage(msg);
      const thread = await local.getThread(saved.threadId);
      if (thread) project(thread.namespace, toItem(saved.contentJson, { context: `message:${saved.role}`, documentId: `message:${saved.id}`, timestampMs: saved.createdAtMs }));
      return saved;
    },
    async saveNote(input) {
      const note = await local.saveNote(input);
      project(
        note.namespace,
        toItem(note.body, { context: note.kind ? `note:${note.kind}` : "note", documentId: `note:${note.id}`, timestampMs: note.createdAtMs, ...(input.tags ? { tags: input.tags } : {}) }),
      );
      return note;
    },
    async recallMemory(bank, query, recall: RecallOptions = {}) {
      const body: Record<string, unknown> = { query, budget: recall.budget ?? "mid" };
      if (recall.maxTokens !== undefined) body.max_tokens = recall.maxTokens;
      if (recall.tags?.length) body.tags = recall.tags;
      const res = await request<{ results?: Array<{ id?: unknown; text?: unknown; type?: unknown }> }>("POST", `${bankPath(bank)}/memories/recall`, body);
      return (res.results ?? [])
        .filter((r) => typeof r.text === "string")
        .map((r): RecalledMemory => ({ id: String(r.id ?? ""), text: String(r.text), ...(typeof r.type === "string" ? { type: r.type } : {}) }));
    },
    async getPrimers(bank, ids) {
      const primers: Primer[] = [];
      for (const id of ids) {
        try {
          const m = await request<{ id?: unknown; name?: unknown; content?: unknown }>("GET", `${bankPath(bank)}/mental-models/${encodeURIComponent(id)}`);
          primers.push({ id, name: typeof m.name === "string" ? m.name : null, content: typeof m.content === "string" ? m.content : "" });
        } catch (error) {
          if ((error as FlowError).details?.status !== 404) throw error;
          log(`Primer ${id} does not exist in memory bank ${bank}; it is left out.`, { bank, id });
        }
      }
      return primers;
    },
    async retainMemory(bank, content, retainOpts) {
      await retain(bank, [toItem(content, retainOpts)]);
    },
    async pendingProjections() {
      return queue.length;
    },
    async flushProjections() {
      await Promise.all([...inFlight]);
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      await retryQueued();
    },
  };
  return withEffectTwins(ops) as EngineMemoryStore;
}
