/**
 * @module core/memory/port
 * `MemoryEnginePort`: what task memory needs from a semantic-memory engine, whatever serves it.
 * `createEngineMemoryStore` implements it over an external engine's HTTP API; the local engine
 * (`createLocalMemoryEngine`) implements it over the store's own notes and note search.
 * See docs/memory.md ("Memory engines").
 */

/** How hard the engine looks (SPEC.md `TaskMemoryConfig.budget`). */
export type RecallBudget = "low" | "mid" | "high";

export interface RecallOptions {
  budget?: RecallBudget;
  /** Upper bound on the tokens of returned memories (the engine trims). */
  maxTokens?: number;
  /** Only memories carrying these tags. */
  tags?: string[];
}

/** One recalled memory. */
export interface RecalledMemory {
  id: string;
  text: string;
  /** Engine-specific kind (for example `world`, `experience`, `note`). */
  type?: string;
}

/** A primer: a document injected verbatim, by id. */
export interface Primer {
  id: string;
  name: string | null;
  content: string;
}

export interface RetainOptions {
  /** A short label of where the content comes from (for example `task:answer`). */
  context?: string;
  tags?: string[];
  metadata?: Record<string, string>;
  /** A stable id: retaining the same document again replaces it instead of duplicating it. */
  documentId?: string;
  /** When the content happened (epoch ms). */
  timestampMs?: number;
}

/** A semantic-memory engine with banks (SPEC.md `EngineMemoryStore` operations). */
export interface MemoryEnginePort {
  recallMemory(bank: string, query: string, opts?: RecallOptions): Promise<RecalledMemory[]>;
  getPrimers(bank: string, ids: readonly string[]): Promise<Primer[]>;
  retainMemory(bank: string, content: string, opts?: RetainOptions): Promise<void>;
}
