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
export { createEngineMemoryStore } from "./engine-store.js";
export type { EngineMemoryOps, EngineMemoryStore, EngineMemoryStoreOptions } from "./engine-store.js";
export { createLocalMemoryEngine } from "./local-engine.js";
export type { MemoryEnginePort, Primer, RecallBudget, RecalledMemory, RecallOptions, RetainOptions } from "./port.js";
export { processorsFromConfig, Summarizer, TokenLimiter, TtlGarbageCollector } from "./processors.js";
export type { MemoryProcessor, MemoryProcessorConfig, ProcessorResult, SummarizerAgent } from "./processors.js";
export { activeMemory, attachMemoryEngine, DEFAULT_MEMORY_MAX_TOKENS, memoryEngineOf, prepareTaskMemory, retainTaskMemory } from "./task-memory.js";
export type { MessageHistoryConfig, PreparedTaskMemory, SemanticRecallConfig, TaskMemoryConfig, TaskMemoryContext, WorkingMemoryConfig } from "./task-memory.js";

// For Flow's other areas (not part of the documented entry).
export { MEMORY_TABLES } from "./context.js";
