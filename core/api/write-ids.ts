/**
 * @module core/api/write-ids
 * The ledger of write ids (docs/multiplayer.md "Offline writes"): a write a browser may send
 * more than once (queued offline, resent after a lost answer) carries `flow-write-id`
 * (`HEADERS.writeId`), and the Gateway applies each id once. This module is the table's one
 * voice (`_flow_write_ids`, migration 41): the id's rules, what identifies a request (who
 * sent it, where, the body's hash), the row written *inside* the write's own transaction, the
 * answer recorded after it, and the expiry. node/server/write-once.ts decides when each runs.
 */
import { FlowError } from "../errors.js";
import { TABLES } from "../protocol.js";
import type { Dialect, SqlExecutor, SqlValue, StorePort } from "../store/index.js";
import { HEADERS } from "./contract.js";
import type { CallerIdentity } from "./identity.js";

/** How long an applied write id is kept (30 days): a resend after that is applied as a new write. */
export const WRITE_ID_RETENTION_MS = 30 * 24 * 3_600_000;

/** A write id: 1-128 of letters, digits, `_ . : -`, starting with a letter or digit (a UUID fits). */
const WRITE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * One write as the ledger knows it: the key (workspace, id) and what must match on a resend.
 * @example
 * const w: WriteRequest = { workspaceId: "acme", writeId: "5f0c…", sentBy: "user:bea", request: "POST /v1/api/approvals", bodyHash: "9b1e…" };
 */
export interface WriteRequest {
  workspaceId: string;
  writeId: string;
  sentBy: string;
  request: string;
  bodyHash: string;
}

/** A recorded write: its first answer (null while the request that applied it has not answered). */
export interface RecordedWrite extends WriteRequest {
  txid: string | null;
  status: number | null;
  answer: string | null;
  appliedAtMs: number;
}

interface WriteIdRow {
  [key: string]: unknown;
  workspace_id: string;
  write_id: string;
  sent_by: string;
  request: string;
  body_hash: string;
  txid: string | null;
  status: number | string | null;
  answer_json: string | null;
  applied_at_ms: number | string;
}

/**
 * The `flow-write-id` of a request: undefined without the header; INVALID_ARGUMENT (400) for
 * an id that breaks the rule (too long, odd characters), before anything is read or applied.
 * @example
 * writeIdOf(new Request("http://gw/v1/api/runs", { method: "POST", headers: { "flow-write-id": crypto.randomUUID() } }));
 */
export function writeIdOf(req: Request): string | undefined {
  const id = req.headers.get(HEADERS.writeId);
  if (id === null) return undefined;
  if (!WRITE_ID.test(id)) {
    throw new FlowError("INVALID_ARGUMENT", `The ${HEADERS.writeId} header must be 1-128 letters, digits, "_", ".", ":" or "-" (a UUID fits); got ${id.length > 40 ? `${id.slice(0, 40)}… (${id.length} characters)` : JSON.stringify(id)}. Nothing was applied.`, {
      header: HEADERS.writeId,
      length: id.length,
    });
  }
  return id;
}

/**
 * Who sent a write, as the ledger compares it: `user:<id>` for a user, else the caller's
 * `triggeredBy` (a token), `anonymous` without auth.
 * @example
 * senderOf({ userId: "bea", role: "approve", scopes: [], triggeredBy: "user:bea" }); // "user:bea"
 */
export function senderOf(caller: CallerIdentity | null): string {
  if (caller === null) return "anonymous";
  return caller.userId !== undefined ? `user:${caller.userId}` : caller.triggeredBy;
}

/**
 * The SHA-256 (hex) of a JSON body with object keys sorted, so a resend that serializes the
 * same value with its keys in another order is the same body.
 * @example
 * await bodyHashOf({ b: 1, a: [2] }) === await bodyHashOf({ a: [2], b: 1 }); // true
 */
export async function bodyHashOf(body: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(body));
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

const COLUMNS = "workspace_id, write_id, sent_by, request, body_hash, txid, status, answer_json, applied_at_ms";

/**
 * The statement that records `w` inside the write's transaction, with that transaction's txid
 * on PostgreSQL. A second transaction recording the same id fails on the primary key, so it
 * (and the write it carries) rolls back: two Gateways given one id apply it once.
 * @example
 * await tx.execute(...recordInTransaction("postgres", w, Date.now()));
 */
export function recordInTransaction(dialect: Dialect, w: WriteRequest, nowMs: number): [string, SqlValue[]] {
  const txid = dialect === "postgres" ? "pg_current_xact_id()::xid::text" : "NULL";
  return [`INSERT INTO ${TABLES.writeIds} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ${txid}, NULL, NULL, ?)`, [w.workspaceId, w.writeId, w.sentBy, w.request, w.bodyHash, Math.trunc(nowMs)]];
}

/**
 * True for the error of a transaction that lost the id to another (the ledger's primary key).
 * @example
 * if (isWriteIdTaken(error)) return replayFirstAnswer();
 */
export function isWriteIdTaken(error: unknown): boolean {
  const text = `${(error as { message?: unknown } | null)?.message ?? ""} ${(error as { constraint?: unknown } | null)?.constraint ?? ""}`;
  return text.includes(TABLES.writeIds);
}

/**
 * The ledger of one store.
 * @example
 * const ledger = new WriteIdLedger(store);
 * const first = await ledger.find("acme", writeId);
 */
export class WriteIdLedger {
  private prunedAtMs = 0;

  constructor(private readonly store: StorePort) {}

  /** The recorded write of an id, if any. */
  async find(workspaceId: string, writeId: string, db: SqlExecutor = this.store): Promise<RecordedWrite | undefined> {
    const [r] = await db.query<WriteIdRow>(`SELECT ${COLUMNS} FROM ${TABLES.writeIds} WHERE workspace_id = ? AND write_id = ?`, [workspaceId, writeId]);
    if (!r) return undefined;
    return {
      workspaceId: r.workspace_id,
      writeId: r.write_id,
      sentBy: r.sent_by,
      request: r.request,
      bodyHash: r.body_hash,
      txid: r.txid,
      status: r.status === null ? null : Number(r.status),
      answer: r.answer_json,
      appliedAtMs: Number(r.applied_at_ms),
    };
  }

  /** Stores the answer of a write recorded in its transaction. */
  async answer(w: WriteRequest, status: number, answer: string): Promise<void> {
    await this.store.execute(`UPDATE ${TABLES.writeIds} SET status = ?, answer_json = ? WHERE workspace_id = ? AND write_id = ?`, [status, answer, w.workspaceId, w.writeId]);
  }

  /**
   * Records a write that committed nothing of its own (an idempotent repeat, a cancel of a run
   * already cancelled) with its answer; false when the id was recorded meanwhile by another.
   */
  async recordAnswered(w: WriteRequest, status: number, answer: string, nowMs: number): Promise<boolean> {
    const n = await this.store.execute(`INSERT INTO ${TABLES.writeIds} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?) ON CONFLICT DO NOTHING`, [
      w.workspaceId,
      w.writeId,
      w.sentBy,
      w.request,
      w.bodyHash,
      status,
      answer,
      Math.trunc(nowMs),
    ]);
    return n === 1;
  }

  /** Forgets ids applied more than WRITE_ID_RETENTION_MS ago, at most once an hour. */
  async prune(nowMs: number): Promise<void> {
    if (nowMs - this.prunedAtMs < 3_600_000) return;
    this.prunedAtMs = nowMs;
    await this.store.execute(`DELETE FROM ${TABLES.writeIds} WHERE applied_at_ms < ?`, [Math.trunc(nowMs - WRITE_ID_RETENTION_MS)]);
  }
}
