/**
 * @module core/memory/store
 * `createMemoryStore(db)`: the memory store of a workflow's store (facts, threads and
 * messages, notes and note search), a facade over the per-concern modules beside it, with the
 * `...Effect` twin of every method. `createMemoryLayer({ db })` provides it as the Effect
 * service `MemoryService`. See docs/memory.md.
 */
import type { Layer } from "effect";
import { bindingOf } from "../binding.js";
import type { MemoryContext } from "./context.js";
import { type EffectTwins, type MemoryServiceApi, memoryLayerOf, withEffectTwins } from "./effect.js";
import * as facts from "./facts.js";
import * as search from "./note-search.js";
import * as notes from "./notes.js";
import * as threads from "./threads.js";
import type { MemoryStoreApi } from "./types.js";

/** The memory store: SPEC.md's Promise methods and their `...Effect` twins. */
export type MemoryStore = MemoryStoreApi & EffectTwins<MemoryStoreApi>;

/**
 * Builds a memory store over a store port, a clock and an id source (hosts without a `db` handle).
 * @example
 * const memory = memoryStoreOf({ store, clock: systemClock, newId: () => crypto.randomUUID() });
 */
export function memoryStoreOf(c: MemoryContext): MemoryStore {
  const api: MemoryStoreApi = {
    getFact: (ns, key) => facts.getFact(c, ns, key),
    setFact: (ns, key, value, ttlMs, schemaSig) => facts.setFact(c, ns, key, value, ttlMs, schemaSig),
    deleteFact: (ns, key) => facts.deleteFact(c, ns, key),
    listFacts: (ns) => facts.listFacts(c, ns),
    listAllFacts: () => facts.listAllFacts(c),
    deleteExpiredFacts: () => facts.deleteExpiredFacts(c),
    createThread: (ns, title, metadataJson) => threads.createThread(c, ns, title, metadataJson),
    getThread: (id) => threads.getThread(c, id),
    listThreads: () => threads.listThreads(c),
    deleteThread: (id) => threads.deleteThread(c, id),
    saveMessage: (msg) => threads.saveMessage(c, msg),
    listMessages: (id, limit) => threads.listMessages(c, id, limit),
    countMessages: (id) => threads.countMessages(c, id),
    deleteMessages: (id, ids) => threads.deleteMessages(c, id, ids),
    saveNote: (input) => notes.saveNote(c, input),
    getNote: (id) => notes.getNote(c, id),
    listNotes: (ns, filter) => notes.listNotes(c, ns, filter),
    setNoteStatus: (id, status) => notes.setNoteStatus(c, id, status),
    enableNoteSearch: (kind) => search.enableNoteSearch(c, kind),
    searchNotes: (kind, query, limit, filter) => search.searchNotes(c, kind, query, limit, filter),
  };
  return withEffectTwins(api);
}

/**
 * The memory store of a workflow's `db` handle (synchronous; its methods are async). Times
 * come from the workflow's clock and ids from its id source.
 * @example
 * const { db } = createFlow({ output: z.object({ ok: z.boolean() }) });
 * const memory = createMemoryStore(db);
 * await memory.setFact({ kind: "user", id: "u1" }, "theme", "dark");
 * const fact = await memory.getFact({ kind: "user", id: "u1" }, "theme"); // fact.valueJson === '"dark"'
 */
export function createMemoryStore(db: unknown): MemoryStore {
  const { store, env } = bindingOf(db, "db handle");
  return memoryStoreOf({ store, clock: env.clock, newId: () => env.newId() });
}

/**
 * A layer that provides `MemoryService` over a workflow's `db` handle.
 * @example
 * const layer = createMemoryLayer({ db: api.db });
 * const fact = await Effect.runPromise(Effect.provide(Effect.flatMap(MemoryService, (m) => m.getFact("user:u1", "theme")), layer));
 */
export function createMemoryLayer(opts: { db: unknown }): Layer.Layer<MemoryServiceApi> {
  return memoryLayerOf(createMemoryStore(opts.db));
}
