/**
 * @module core/memory/context
 * What the memory SQL modules share: the store port, the clock and the id source of the
 * workflow's runtime env (no bare `Date.now()` in core), plus the row-decoding helpers that
 * even out the drivers (PostgreSQL returns `bigint` columns as strings).
 */
import type { ClockPort } from "../util/index.js";
import type { StorePort } from "../store/index.js";

/** The internal tables of memory (created by migrations 20, 21, 23 and 24). */
export const MEMORY_TABLES = {
  facts: "_flow_facts",
  threads: "_flow_threads",
  messages: "_flow_messages",
  notes: "_flow_notes",
  noteEdges: "_flow_note_edges",
  noteSearch: "_flow_note_search",
} as const;

export interface MemoryContext {
  store: StorePort;
  clock: ClockPort;
  newId(): string;
}

/** A nullable numeric column as a number. */
export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** A nullable text column as a string. */
export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}
