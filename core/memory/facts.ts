/**
 * @module core/memory/facts
 * Namespaced facts: last write wins, optional TTL counted from the last write. An expired fact
 * is invisible to reads at once; `deleteExpiredFacts` removes the rows. See docs/memory.md.
 */
import { FlowError } from "../errors.js";
import type { SqlRow } from "../store/index.js";
import { MEMORY_TABLES, type MemoryContext, numOrNull, strOrNull } from "./context.js";
import { type NamespaceInput, namespaceKey } from "./namespace.js";
import type { MemoryFact } from "./types.js";

const T = MEMORY_TABLES.facts;
const COLUMNS = "namespace, key, value_json, schema_sig, created_at_ms, updated_at_ms, ttl_ms";
/** Rows that have not expired at the bound time. */
const LIVE = "(expires_at_ms IS NULL OR expires_at_ms > ?)";

function toFact(r: SqlRow): MemoryFact {
  return {
    namespace: String(r.namespace),
    key: String(r.key),
    valueJson: String(r.value_json),
    schemaSig: strOrNull(r.schema_sig),
    createdAtMs: Number(r.created_at_ms),
    updatedAtMs: Number(r.updated_at_ms),
    ttlMs: numOrNull(r.ttl_ms),
  };
}

function toJson(value: unknown, ns: string, key: string): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    throw new FlowError("INVALID_ARGUMENT", `The value of fact "${key}" in ${ns} is not JSON-serializable: ${(cause as Error).message}`, { namespace: ns, key }, { cause });
  }
  if (json === undefined) throw new FlowError("INVALID_ARGUMENT", `The value of fact "${key}" in ${ns} is not JSON-serializable (got ${typeof value}).`, { namespace: ns, key });
  return json;
}

function checkTtl(ttlMs: number | null | undefined): number | null {
  if (ttlMs === undefined || ttlMs === null) return null;
  if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new FlowError("INVALID_ARGUMENT", `A fact TTL must be a positive number of milliseconds; got ${ttlMs}.`, { ttlMs });
  return Math.trunc(ttlMs);
}

/** The fact, or undefined when it is missing or expired. */
export async function getFact(c: MemoryContext, ns: NamespaceInput, key: string): Promise<MemoryFact | undefined> {
  const rows = await c.store.query(`SELECT ${COLUMNS} FROM ${T} WHERE namespace = ? AND key = ? AND ${LIVE}`, [namespaceKey(ns), key, c.clock.now()]);
  return rows[0] ? toFact(rows[0]) : undefined;
}

/** Upserts a fact (last write wins); a new write restarts its TTL. */
export async function setFact(c: MemoryContext, ns: NamespaceInput, key: string, value: unknown, ttlMs?: number | null, schemaSig?: string | null): Promise<MemoryFact> {
  const namespace = namespaceKey(ns);
  const json = toJson(value, namespace, key);
  const ttl = checkTtl(ttlMs);
  const now = c.clock.now();
  const rows = await c.store.query(
    `INSERT INTO ${T} (${COLUMNS}, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (namespace, key) DO UPDATE SET value_json = excluded.value_json, schema_sig = excluded.schema_sig,
       updated_at_ms = excluded.updated_at_ms, ttl_ms = excluded.ttl_ms, expires_at_ms = excluded.expires_at_ms
     RETURNING ${COLUMNS}`,
    [namespace, key, json, schemaSig ?? null, now, now, ttl, ttl === null ? null : now + ttl],
  );
  return toFact(rows[0]!);
}

export async function deleteFact(c: MemoryContext, ns: NamespaceInput, key: string): Promise<void> {
  await c.store.execute(`DELETE FROM ${T} WHERE namespace = ? AND key = ?`, [namespaceKey(ns), key]);
}

/** Live facts of a namespace, by key. */
export async function listFacts(c: MemoryContext, ns: NamespaceInput): Promise<MemoryFact[]> {
  const rows = await c.store.query(`SELECT ${COLUMNS} FROM ${T} WHERE namespace = ? AND ${LIVE} ORDER BY key`, [namespaceKey(ns), c.clock.now()]);
  return rows.map(toFact);
}

/** Live facts of every namespace, by namespace then key. */
export async function listAllFacts(c: MemoryContext): Promise<MemoryFact[]> {
  const rows = await c.store.query(`SELECT ${COLUMNS} FROM ${T} WHERE ${LIVE} ORDER BY namespace, key`, [c.clock.now()]);
  return rows.map(toFact);
}

/** Deletes facts whose TTL ran out; resolves to how many. */
export async function deleteExpiredFacts(c: MemoryContext): Promise<number> {
  return c.store.execute(`DELETE FROM ${T} WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ?`, [c.clock.now()]);
}
