/**
 * @module core/memory/types
 * The records and the store contract of memory (SPEC.md "Memory"). Times are epoch ms from the
 * store's clock. See docs/memory.md.
 */
import type { MemoryNamespace, MemoryNamespaceKind, NamespaceInput } from "./namespace.js";

/** A namespaced key/value fact. Last write wins; `ttlMs` counts from `updatedAtMs`. */
export interface MemoryFact {
  namespace: string;
  key: string;
  valueJson: string;
  schemaSig: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  ttlMs: number | null;
}

/** A message thread. */
export interface MemoryThread {
  threadId: string;
  namespace: string;
  title: string | null;
  metadataJson: string | null;
  createdAtMs: number;
  updatedAtMs: number;
}

/** A message of a thread. `createdAtMs` is optional on save (defaults to now). */
export interface MemoryMessage {
  id: string;
  threadId: string;
  role: string;
  contentJson: string;
  runId: string | null;
  nodeId: string | null;
  createdAtMs: number;
}

/** What `saveMessage` takes: `id` defaults to a fresh id, `createdAtMs` to now. */
export interface SaveMessageInput {
  id?: string;
  threadId: string;
  role: string;
  contentJson: string;
  runId?: string | null;
  nodeId?: string | null;
  createdAtMs?: number;
}

/** An append-only note: only `status` (and `statusChangedAtMs`) ever change. */
export interface MemoryNote {
  id: string;
  namespace: string;
  body: string;
  kind: string | null;
  tagsJson: string | null;
  author: string | null;
  status: string;
  statusChangedAtMs: number | null;
  createdAtMs: number;
  runId: string | null;
  nodeId: string | null;
  iteration: number | null;
}

/** Where a note came from; always passed by the caller, never inferred. */
export interface MemoryProvenance {
  runId?: string;
  nodeId?: string;
  iteration?: number;
}

/** What `saveNote` takes. */
export interface SaveNoteInput {
  namespace: NamespaceInput;
  body: string;
  kind?: string;
  tags?: string[];
  author?: string;
  /** Default `accepted`. */
  status?: string;
  provenance?: MemoryProvenance;
  /** Ids of the notes this one replaces; the edges are written in the note's transaction. */
  supersedes?: string[];
  /** Idempotency key: saving the same id again is a no-op that returns the stored note. */
  id?: string;
}

/**
 * A note read filter. Without one, the read contract applies: status `accepted` and not
 * superseded by an accepted note.
 */
export interface NoteReadFilter {
  /** A status, several, or `any`. Default `accepted`. */
  status?: string | string[] | "any";
  /** Also return notes superseded by an accepted note. Default false. */
  includeSuperseded?: boolean;
  /** Only notes with this `kind` label. */
  kind?: string;
  /** Only notes of this namespace (for `searchNotes`, whose index spans the whole kind). */
  namespace?: NamespaceInput;
}

/** The promise form of the memory store (every method also has an `...Effect` twin). */
export interface MemoryStoreApi {
  getFact(ns: NamespaceInput, key: string): Promise<MemoryFact | undefined>;
  /** Upsert; `schemaSig` (optional, beyond SPEC.md) is stored as the fact's `schemaSig`. */
  setFact(ns: NamespaceInput, key: string, value: unknown, ttlMs?: number | null, schemaSig?: string | null): Promise<MemoryFact>;
  deleteFact(ns: NamespaceInput, key: string): Promise<void>;
  listFacts(ns: NamespaceInput): Promise<MemoryFact[]>;
  listAllFacts(): Promise<MemoryFact[]>;
  deleteExpiredFacts(): Promise<number>;
  /** `metadataJson` (optional, beyond SPEC.md) is stored as the thread's `metadataJson`. */
  createThread(ns: NamespaceInput, title?: string | null, metadataJson?: string | null): Promise<MemoryThread>;
  getThread(threadId: string): Promise<MemoryThread | undefined>;
  listThreads(): Promise<MemoryThread[]>;
  deleteThread(threadId: string): Promise<void>;
  saveMessage(msg: SaveMessageInput): Promise<MemoryMessage>;
  listMessages(threadId: string, limit?: number): Promise<MemoryMessage[]>;
  countMessages(threadId: string): Promise<number>;
  deleteMessages(threadId: string, ids: readonly string[]): Promise<number>;
  saveNote(input: SaveNoteInput): Promise<MemoryNote>;
  getNote(id: string): Promise<MemoryNote | undefined>;
  listNotes(ns: NamespaceInput, filter?: NoteReadFilter): Promise<MemoryNote[]>;
  setNoteStatus(id: string, status: string): Promise<MemoryNote>;
  enableNoteSearch(kind: MemoryNamespaceKind): Promise<void>;
  searchNotes(kind: MemoryNamespaceKind, query: string, limit?: number, filter?: NoteReadFilter): Promise<MemoryNote[]>;
}

export type { MemoryNamespace, MemoryNamespaceKind, NamespaceInput };
