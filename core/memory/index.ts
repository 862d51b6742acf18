/**
 * @module core/memory
 * Memory across runs: namespaced facts, message threads, append-only notes with search, the
 * Effect service, processors, the external memory-engine adapter and the task `memory` prop.
 * See docs/memory.md.
 */
export { isNamespaceKind, NAMESPACE_KINDS, namespaceKey, parseNamespace, serializeNamespace } from "./namespace.js";
export type { MemoryNamespace, MemoryNamespaceKind, NamespaceInput } from "./namespace.js";
export type { MemoryFact, MemoryMessage, MemoryNote, MemoryProvenance, MemoryStoreApi, MemoryThread, NoteReadFilter, SaveMessageInput, SaveNoteInput } from "./types.js";
export { createMemoryLayer, createMemoryStore, memoryStoreOf } from "./store.js";
export type { MemoryStore } from "./store.js";
export { MemoryService } from "./effect.js";
export type { EffectTwins, MemoryServiceApi } from "./effect.js";
export { DEFAULT_SEARCH_LIMIT } from "./note-search.js";
