/**
 * @module core/memory/notes
 * Append-only notes with `supersedes` edges, and the read contract (SPEC.md "Memory"): by
 * default a read returns notes whose status is `accepted` and that no *accepted* note
 * supersedes; a pending or rejected superseder hides nothing. A note and its edges are written
 * in one transaction; re-saving an `id` is a no-op. Works on every backend. See docs/memory.md.
 */
import { FlowError } from "../errors.js";
import type { SqlExecutor, SqlRow, SqlValue } from "../store/index.js";
import { MEMORY_TABLES, type MemoryContext, numOrNull, strOrNull } from "./context.js";
import { type NamespaceInput, namespaceKey, parseNamespace } from "./namespace.js";
import type { MemoryNote, NoteReadFilter, SaveNoteInput } from "./types.js";

const { notes: TN, noteEdges: TE } = MEMORY_TABLES;
/** Columns of a note, qualified by the alias `n`. */
export const NOTE_COLUMNS = "n.id, n.namespace, n.body, n.kind, n.tags_json, n.author, n.status, n.status_changed_at_ms, n.created_at_ms, n.run_id, n.node_id, n.iteration";
/** The status a note gets when none is given, and the one the read contract returns. */
export const DEFAULT_NOTE_STATUS = "accepted";

export function toNote(r: SqlRow): MemoryNote {
  return {
    id: String(r.id),
    namespace: String(r.namespace),
    body: String(r.body),
    kind: strOrNull(r.kind),
    tagsJson: strOrNull(r.tags_json),
    author: strOrNull(r.author),
    status: String(r.status),
    statusChangedAtMs: numOrNull(r.status_changed_at_ms),
    createdAtMs: Number(r.created_at_ms),
    runId: strOrNull(r.run_id),
    nodeId: strOrNull(r.node_id),
    iteration: numOrNull(r.iteration),
  };
}

/**
 * SQL conditions (on alias `n`) that apply a read filter; with no filter, the read contract.
 * `namespace` is left to the caller, which knows whether its query is per namespace.
 */
export function readFilterSql(filter: NoteReadFilter = {}): { where: string[]; params: SqlValue[] } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const status = filter.status ?? DEFAULT_NOTE_STATUS;
  if (status !== "any") {
    const list = Array.isArray(status) ? status : [status];
    if (list.length === 0) where.push("1 = 0");
    else {
      where.push(`n.status IN (${list.map(() => "?").join(", ")})`);
      params.push(...list);
    }
  }
  if (!filter.includeSuperseded) {
    where.push(`NOT EXISTS (SELECT 1 FROM ${TE} e JOIN ${TN} s ON s.id = e.note_id WHERE e.supersedes_id = n.id AND s.status = ?)`);
    params.push(DEFAULT_NOTE_STATUS);
  }
  if (filter.kind !== undefined) {
    where.push("n.kind = ?");
    params.push(filter.kind);
  }
  return { where, params };
}

async function readNote(ex: SqlExecutor, id: string): Promise<MemoryNote | undefined> {
  const rows = await ex.query(`SELECT ${NOTE_COLUMNS} FROM ${TN} n WHERE n.id = ?`, [id]);
  return rows[0] ? toNote(rows[0]) : undefined;
}

function checkInput(input: SaveNoteInput): void {
  const bad = (what: string) => new FlowError("INVALID_ARGUMENT", `saveNote: ${what} (note ${input?.id ?? "(new)"}).`, { id: input?.id });
  if (typeof input?.body !== "string") throw bad("`body` must be a string");
  if (input.tags !== undefined && (!Array.isArray(input.tags) || input.tags.some((t) => typeof t !== "string"))) throw bad("`tags` must be an array of strings");
  if (input.supersedes !== undefined && (!Array.isArray(input.supersedes) || input.supersedes.some((t) => typeof t !== "string"))) {
    throw bad("`supersedes` must be an array of note ids");
  }
}

/**
 * Saves a note and its `supersedes` edges atomically. Every superseded id must exist
 * (NOTE_NOT_FOUND otherwise, and nothing is written). Re-saving an existing `id` writes
 * nothing and resolves to the stored note.
 */
export async function saveNote(c: MemoryContext, input: SaveNoteInput): Promise<MemoryNote> {
  checkInput(input);
  const namespace = namespaceKey(input.namespace);
  const id = input.id ?? c.newId();
  const now = c.clock.now();
  const p = input.provenance ?? {};
  const note: MemoryNote = {
    id,
    namespace,
    body: input.body,
    kind: input.kind ?? null,
    tagsJson: input.tags ? JSON.stringify(input.tags) : null,
    author: input.author ?? null,
    status: input.status ?? DEFAULT_NOTE_STATUS,
    statusChangedAtMs: null,
    createdAtMs: now,
    runId: p.runId ?? null,
    nodeId: p.nodeId ?? null,
    iteration: p.iteration ?? null,
  };
  const supersedes = [...new Set(input.supersedes ?? [])];
  return c.store.transaction(async (tx) => {
    const stored = await readNote(tx, id);
    if (stored) return stored;
    if (supersedes.includes(id)) throw new FlowError("INVALID_ARGUMENT", `Note ${id} cannot supersede itself.`, { id });
    if (supersedes.length > 0) {
      const found = await tx.query<{ id: string }>(`SELECT id FROM ${TN} WHERE id IN (${supersedes.map(() => "?").join(", ")})`, supersedes);
      const missing = supersedes.filter((s) => !found.some((f) => String(f.id) === s));
      if (missing.length > 0) {
        throw new FlowError("NOTE_NOT_FOUND", `Note ${id} supersedes notes that do not exist: ${missing.join(", ")}. Nothing was saved.`, { id, missing });
      }
    }
    const inserted = await tx.execute(
      `INSERT INTO ${TN} (id, seq, namespace, ns_kind, body, kind, tags_json, author, status, status_changed_at_ms, created_at_ms, run_id, node_id, iteration)
       SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ? FROM ${TN} WHERE 1 = 1
       ON CONFLICT (id) DO NOTHING`,
      [id, namespace, parseNamespace(namespace).kind, note.body, note.kind, note.tagsJson, note.author, note.status, now, note.runId, note.nodeId, note.iteration],
    );
    // A concurrent save of the same id won the race (PostgreSQL): this save is the no-op.
    if (inserted === 0) return (await readNote(tx, id))!;
    for (const target of supersedes) {
      await tx.execute(`INSERT INTO ${TE} (note_id, supersedes_id, created_at_ms) VALUES (?, ?, ?)`, [id, target, now]);
    }
    return note;
  });
}

export async function getNote(c: MemoryContext, id: string): Promise<MemoryNote | undefined> {
  return readNote(c.store, id);
}

/** Notes of a namespace under the read filter (the read contract by default), oldest first. */
export async function listNotes(c: MemoryContext, ns: NamespaceInput, filter: NoteReadFilter = {}): Promise<MemoryNote[]> {
  const { where, params } = readFilterSql(filter);
  const rows = await c.store.query(
    `SELECT ${NOTE_COLUMNS} FROM ${TN} n WHERE ${["n.namespace = ?", ...where].join(" AND ")} ORDER BY n.created_at_ms, n.seq`,
    [namespaceKey(ns), ...params],
  );
  return rows.map(toNote);
}

/** Sets a note's status (its only mutable field) and stamps `statusChangedAtMs`. */
export async function setNoteStatus(c: MemoryContext, id: string, status: string): Promise<MemoryNote> {
  if (typeof status !== "string" || status === "") throw new FlowError("INVALID_ARGUMENT", `setNoteStatus needs a non-empty status string for note ${id}.`, { id });
  const changed = await c.store.execute(`UPDATE ${TN} SET status = ?, status_changed_at_ms = ? WHERE id = ?`, [status, c.clock.now(), id]);
  if (changed === 0) throw new FlowError("NOTE_NOT_FOUND", `Note ${id} does not exist; its status cannot be set.`, { id });
  return (await readNote(c.store, id))!;
}
