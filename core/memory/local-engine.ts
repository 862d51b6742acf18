/**
 * @module core/memory/local-engine
 * A `MemoryEnginePort` over the store's own notes, for hosts without an external memory
 * engine (and for the browser app, offline). A bank is a namespace in its serialized form
 * (`"agent:support"`; a bank without a kind prefix is a `global` namespace), retained content
 * becomes notes of that namespace, recall is note search within it (ranked, read contract),
 * and primers are notes fetched by id. A retained `documentId` becomes the note id
 * `<bank>#<documentId>`, so retaining it again is a no-op (notes are append-only). Search of the bank's namespace kind is enabled on first
 * use. See docs/memory.md ("Memory engines").
 */
import { type MemoryNamespaceKind, parseNamespace, serializeNamespace } from "./namespace.js";
import type { MemoryEnginePort, Primer, RecallBudget } from "./port.js";
import type { MemoryStore } from "./store.js";

/** How many notes a recall returns per budget (the caller's `maxTokens` trims further). */
const RECALL_LIMIT: Record<RecallBudget, number> = { low: 5, mid: 10, high: 25 };
/** Tokens are approximated as characters / 4 (SPEC.md "Token approximation"). */
const CHARS_PER_TOKEN = 4;

/**
 * The local memory engine over a memory store.
 * @example
 * const engine = createLocalMemoryEngine(createMemoryStore(api.db));
 * await engine.retainMemory("agent:support", "Refunds need a ticket id");
 * const hits = await engine.recallMemory("agent:support", "refund ticket");
 */
export function createLocalMemoryEngine(store: MemoryStore): MemoryEnginePort {
  const enabled = new Set<MemoryNamespaceKind>();
  const ensureSearch = async (kind: MemoryNamespaceKind) => {
    if (enabled.has(kind)) return;
    await store.enableNoteSearch(kind);
    enabled.add(kind);
  };
  return {
    async recallMemory(bank, query, opts = {}) {
      const ns = parseNamespace(bank);
      await ensureSearch(ns.kind);
      const notes = await store.searchNotes(ns.kind, query, RECALL_LIMIT[opts.budget ?? "mid"], { namespace: ns });
      const wanted = opts.tags ?? [];
      const tagged = wanted.length === 0 ? notes : notes.filter((n) => wanted.every((t) => (JSON.parse(n.tagsJson ?? "[]") as string[]).includes(t)));
      let budget = opts.maxTokens === undefined ? Number.POSITIVE_INFINITY : opts.maxTokens * CHARS_PER_TOKEN;
      const out = [];
      for (const n of tagged) {
        if (n.body.length > budget) break;
        budget -= n.body.length;
        out.push({ id: n.id, text: n.body, type: n.kind ?? "note" });
      }
      return out;
    },
    async getPrimers(_bank, ids) {
      const notes = await Promise.all(ids.map((id) => store.getNote(id)));
      return notes.filter((n) => n !== undefined).map((n): Primer => ({ id: n.id, name: n.kind, content: n.body }));
    },
    async retainMemory(bank, content, opts = {}) {
      const ns = parseNamespace(bank);
      await ensureSearch(ns.kind);
      await store.saveNote({
        namespace: ns,
        body: content,
        ...(opts.context !== undefined ? { kind: opts.context } : {}),
        ...(opts.tags ? { tags: opts.tags } : {}),
        // Note ids are global; a document id is per bank.
        ...(opts.documentId !== undefined ? { id: `${serializeNamespace(ns)}#${opts.documentId}` } : {}),
      });
    },
  };
}
