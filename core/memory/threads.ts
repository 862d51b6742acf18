/**
 * @module core/memory/threads
 * Message threads. Messages keep their save order (a per-thread `seq`), so messages saved in
 * the same millisecond list in the order they were saved. `deleteThread` removes the thread
 * and its messages in one transaction, on every backend. See docs/memory.md.
 */
import { FlowError } from "../errors.js";
import type { SqlExecutor, SqlRow } from "../store/index.js";
import { MEMORY_TABLES, type MemoryContext, strOrNull } from "./context.js";
import { type NamespaceInput, namespaceKey } from "./namespace.js";
import type { MemoryMessage, MemoryThread, SaveMessageInput } from "./types.js";

const { threads: TT, messages: TM } = MEMORY_TABLES;
const THREAD_COLUMNS = "thread_id, namespace, title, metadata_json, created_at_ms, updated_at_ms";
const MESSAGE_COLUMNS = "id, thread_id, role, content_json, run_id, node_id, created_at_ms";

function toThread(r: SqlRow): MemoryThread {
  return {
    threadId: String(r.thread_id),
    namespace: String(r.namespace),
    title: strOrNull(r.title),
    metadataJson: strOrNull(r.metadata_json),
    createdAtMs: Number(r.created_at_ms),
    updatedAtMs: Number(r.updated_at_ms),
  };
}

function toMessage(r: SqlRow): MemoryMessage {
  return {
    id: String(r.id),
    threadId: String(r.thread_id),
    role: String(r.role),
    contentJson: String(r.content_json),
    runId: strOrNull(r.run_id),
    nodeId: strOrNull(r.node_id),
    createdAtMs: Number(r.created_at_ms),
  };
}

/** Creates a thread in a namespace; `metadataJson` is an optional JSON string. */
export async function createThread(c: MemoryContext, ns: NamespaceInput, title?: string | null, metadataJson?: string | null): Promise<MemoryThread> {
  const now = c.clock.now();
  const thread: MemoryThread = { threadId: c.newId(), namespace: namespaceKey(ns), title: title ?? null, metadataJson: metadataJson ?? null, createdAtMs: now, updatedAtMs: now };
  await c.store.execute(`INSERT INTO ${TT} (${THREAD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`, [
    thread.threadId,
    thread.namespace,
    thread.title,
    thread.metadataJson,
    now,
    now,
  ]);
  return thread;
}

export async function getThread(c: MemoryContext, threadId: string): Promise<MemoryThread | undefined> {
  const rows = await c.store.query(`SELECT ${THREAD_COLUMNS} FROM ${TT} WHERE thread_id = ?`, [threadId]);
  return rows[0] ? toThread(rows[0]) : undefined;
}

/** Every thread, most recently active first. */
export async function listThreads(c: MemoryContext): Promise<MemoryThread[]> {
  const rows = await c.store.query(`SELECT ${THREAD_COLUMNS} FROM ${TT} ORDER BY updated_at_ms DESC, thread_id`);
  return rows.map(toThread);
}

/** Deletes a thread and its messages atomically (a missing thread is a no-op). */
export async function deleteThread(c: MemoryContext, threadId: string): Promise<void> {
  await c.store.transaction(async (tx) => {
    await tx.execute(`DELETE FROM ${TM} WHERE thread_id = ?`, [threadId]);
    await tx.execute(`DELETE FROM ${TT} WHERE thread_id = ?`, [threadId]);
  });
}

async function readMessage(ex: SqlExecutor, id: string): Promise<MemoryMessage | undefined> {
  const rows = await ex.query(`SELECT ${MESSAGE_COLUMNS} FROM ${TM} WHERE id = ?`, [id]);
  return rows[0] ? toMessage(rows[0]) : undefined;
}

/**
 * Appends a message and marks the thread active. Saving an `id` that exists is a no-op that
 * returns the stored message (so a retried save does not duplicate).
 */
export async function saveMessage(c: MemoryContext, msg: SaveMessageInput): Promise<MemoryMessage> {
  if (typeof msg?.role !== "string" || typeof msg.contentJson !== "string") {
    throw new FlowError("INVALID_ARGUMENT", `saveMessage needs a string role and a JSON string contentJson (thread ${msg?.threadId}).`, { threadId: msg?.threadId });
  }
  const id = msg.id ?? c.newId();
  const now = c.clock.now();
  return c.store.transaction(async (tx) => {
    const stored = await readMessage(tx, id);
    if (stored) return stored;
    const touched = await tx.execute(`UPDATE ${TT} SET updated_at_ms = ? WHERE thread_id = ?`, [now, msg.threadId]);
    if (touched === 0) throw new FlowError("THREAD_NOT_FOUND", `Thread ${msg.threadId} does not exist; create it with createThread before saving messages.`, { threadId: msg.threadId });
    const message: MemoryMessage = {
      id,
      threadId: msg.threadId,
      role: msg.role,
      contentJson: msg.contentJson,
      runId: msg.runId ?? null,
      nodeId: msg.nodeId ?? null,
      createdAtMs: msg.createdAtMs ?? now,
    };
    await tx.execute(
      `INSERT INTO ${TM} (${MESSAGE_COLUMNS}, seq)
       SELECT ?, ?, ?, ?, ?, ?, ?, COALESCE(MAX(seq), 0) + 1 FROM ${TM} WHERE thread_id = ?`,
      [id, message.threadId, message.role, message.contentJson, message.runId, message.nodeId, message.createdAtMs, message.threadId],
    );
    return message;
  });
}

/** Messages oldest first; with `limit`, the newest `limit` of them (still oldest first). */
export async function listMessages(c: MemoryContext, threadId: string, limit?: number): Promise<MemoryMessage[]> {
  if (limit === undefined) {
    const rows = await c.store.query(`SELECT ${MESSAGE_COLUMNS} FROM ${TM} WHERE thread_id = ? ORDER BY created_at_ms, seq`, [threadId]);
    return rows.map(toMessage);
  }
  const n = Math.max(0, Math.trunc(limit));
  const rows = await c.store.query(`SELECT ${MESSAGE_COLUMNS} FROM ${TM} WHERE thread_id = ? ORDER BY created_at_ms DESC, seq DESC LIMIT ?`, [threadId, n]);
  return rows.map(toMessage).reverse();
}

export async function countMessages(c: MemoryContext, threadId: string): Promise<number> {
  const rows = await c.store.query<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${TM} WHERE thread_id = ?`, [threadId]);
  return Number(rows[0]?.n ?? 0);
}

/** Deletes these messages of the thread; resolves to how many existed. */
export async function deleteMessages(c: MemoryContext, threadId: string, ids: readonly string[]): Promise<number> {
  let removed = 0;
  // Chunks keep the statement under every driver's bound-parameter limit.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    removed += await c.store.execute(`DELETE FROM ${TM} WHERE thread_id = ? AND id IN (${chunk.map(() => "?").join(", ")})`, [threadId, ...chunk]);
  }
  return removed;
}
