/**
 * @module node/server/write-once
 * Each write id applies once (docs/multiplayer.md "Offline writes"). A write request (non-GET
 * `/v1/` HTTP, read methods excepted) that carries `flow-write-id` runs in a scope of its own;
 * while it is open, the first transaction of the request that changes rows also inserts the
 * id's ledger row (core/api/write-ids.ts) — in that same transaction, so the id is recorded
 * exactly when the write commits, whatever the store (SQLite, PGlite, PostgreSQL) and however
 * the engine writes (`transaction`, `executeBatch`, a lone `execute`). Then:
 *
 *   id recorded already ──▶ same sender, request and body? ──▶ replay the first answer
 *                                          └─ no ─▶ 409 WRITE_ID_CONFLICT
 *   id new ──▶ apply ──▶ committed with the id ──▶ store the answer, send it
 *                   ├─▶ lost the id to a concurrent resend (primary key) ──▶ rolled back; replay theirs
 *                   └─▶ changed nothing ──▶ 2xx: record id + answer; refused: the id applied meanwhile
 *                                              by a concurrent request? replay theirs; else answer, record nothing
 *
 * A refusal that applied nothing is not recorded: a resend is judged again. Why a store hook
 * and not the engine: writes come from many places (launch, deliveries, cancellation,
 * membership) and none of them should know about write ids, as with txids (node/sync/sync-txids.ts).
 * The request's async context (AsyncLocalStorage) tells the store whose write it is.
 *
 * The ledger lives in the host's store (`host.db`). A write that goes to another store (a local
 * Gateway serving workflows of several stores; a team Gateway has one) is recorded after it
 * answers, not in its transaction.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { errorResponse, jsonResponse, METHOD_SCOPES, readJsonBody } from "../../core/api/index.js";
import {
  bodyHashOf,
  isWriteIdTaken,
  PATHS,
  type RecordedWrite,
  recordInTransaction,
  senderOf,
  WriteIdLedger,
  writeIdOf,
  type WriteRequest,
} from "../../core/api/internal.js";
import type { CallerIdentity } from "../../core/api/index.js";
import { FlowError } from "../../core/errors.js";
import type { SqlExecutor, StorePort } from "../../core/store/index.js";

/** How long after a write applied a resend waits for its first answer (the request applying it is still at it). */
export const FIRST_ANSWER_WAIT_MS = 5_000;

interface WriteScope {
  write: WriteRequest;
  nowMs: number;
  /** `open`: the id is not recorded yet; `recorded`: a transaction committed it; `lost`: another request holds it; `closed`: answered. */
  state: "open" | "recorded" | "lost" | "closed";
  /** A transaction of the request is recording the id now (parallel writes of one request record it once). */
  recording: boolean;
}

/** Options of `WriteOnce`. */
export interface WriteOnceOptions {
  /** The store the Gateway's writes go to (its ledger lives there). */
  store: () => StorePort;
  /** The team workspace's id ('' outside a team). */
  workspaceId: string;
  authenticate: (req: Request) => Promise<CallerIdentity | null>;
  now: () => number;
  maxBodyBytes: number;
}

const READ_METHODS = new Set(Object.entries(METHOD_SCOPES).filter(([, scope]) => scope.endsWith(":read")).map(([method]) => method));
const DML = /^\s*(?:INSERT|UPDATE|DELETE|WITH)\b/i;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The write-id layer of one Gateway.
 * @example
 * const once = new WriteOnce({ store: () => host.db.store, workspaceId: "", authenticate, now: Date.now, maxBodyBytes: 1 << 20 });
 * const fetch = once.wrap(api.fetch);
 */
export class WriteOnce {
  private readonly als = new AsyncLocalStorage<WriteScope>();
  private readonly hooked = new WeakSet<StorePort>();
  private readonly ledgers = new WeakMap<StorePort, WriteIdLedger>();
  /** Writes of this process by key, so a concurrent resend to the same Gateway waits for the first. */
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(private readonly opts: WriteOnceOptions) {}

  /** Wraps the domain API's `fetch`: requests with a write id apply once. */
  wrap(inner: (req: Request) => Promise<Response>): (req: Request) => Promise<Response> {
    return async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS" || !(path.startsWith(PATHS.v1) || path === PATHS.rpcEnvelope)) return inner(req);
      let writeId: string | undefined;
      let write: WriteRequest;
      try {
        writeId = writeIdOf(req);
        if (writeId === undefined) return inner(req);
        const body = await readJsonBody(req.clone(), this.opts.maxBodyBytes);
        if (READ_METHODS.has(methodOf(path, body))) return inner(req);
        const caller = await this.opts.authenticate(req);
        write = { workspaceId: this.opts.workspaceId, writeId, sentBy: senderOf(caller), request: `${req.method} ${path}`, bodyHash: await bodyHashOf(body) };
      } catch (error) {
        return errorResponse(error);
      }
      const key = `${write.workspaceId}/${write.writeId}`;
      const before = this.inFlight.get(key);
      const done = (async () => {
        await before?.catch(() => {});
        return this.once(write, req, inner);
      })();
      this.inFlight.set(key, done);
      try {
        return await done;
      } finally {
        if (this.inFlight.get(key) === done) this.inFlight.delete(key);
      }
    };
  }

  private async once(write: WriteRequest, req: Request, inner: (req: Request) => Promise<Response>): Promise<Response> {
    const ledger = this.ledger();
    const first = await ledger.find(write.workspaceId, write.writeId);
    if (first) return this.replay(write, first);
    const scope: WriteScope = { write, nowMs: this.opts.now(), state: "open", recording: false };
    let res: Response;
    try {
      res = await this.als.run(scope, () => inner(req));
    } finally {
      if (scope.state === "open") scope.state = "closed";
    }
    if (scope.state === "lost") return this.replay(write, await this.waitForRecord(write));
    const text = await res.text();
    const answered = new Response(text, { status: res.status, headers: res.headers });
    if (scope.state === "recorded") {
      await ledger.answer(write, res.status, text);
    } else if (res.ok) {
      if (!(await ledger.recordAnswered(write, res.status, text, this.opts.now()))) return this.replay(write, await this.waitForRecord(write));
    } else {
      // Refused because a concurrent request with the id changed the state first (its claim of
      // the run won, the decision was taken): that request applied the id; answer what it answered.
      const applied = await ledger.find(write.workspaceId, write.writeId);
      if (applied) return this.replay(write, applied);
    }
    await ledger.prune(this.opts.now()).catch(() => {});
    return answered;
  }

  /** The first answer of a recorded id, or WRITE_ID_CONFLICT when the resend is not the same write. */
  private async replay(write: WriteRequest, first: RecordedWrite): Promise<Response> {
    if (first.sentBy !== write.sentBy || first.request !== write.request || first.bodyHash !== write.bodyHash) {
      const reason = first.sentBy !== write.sentBy ? "another-sender" : first.request !== write.request ? "another-request" : "another-body";
      return errorResponse(
        new FlowError(
          "WRITE_ID_CONFLICT",
          `Write id ${write.writeId} was used ${new Date(first.appliedAtMs).toISOString()} ${reason === "another-sender" ? "by someone else" : reason === "another-request" ? `for ${first.request}` : "with another body"}; a write id names one write. Nothing was applied: send this write with a new id.`,
          { writeId: write.writeId, reason, appliedAt: new Date(first.appliedAtMs).toISOString() },
        ),
      );
    }
    const settled = first.answer === null ? await this.waitForAnswer(write, first) : first;
    if (settled.answer === null || settled.status === null) {
      // Applied (its transaction committed) but never answered: the Gateway that applied it
      // stopped, or is still at it. What is known is that it applied, and its txid.
      return jsonResponse({ ok: true, result: { writeId: write.writeId, status: "applied", txid: settled.txid === null ? null : Number(settled.txid) } });
    }
    return new Response(settled.answer, { status: settled.status, headers: { "content-type": "application/json" } });
  }

  private async waitForRecord(write: WriteRequest): Promise<RecordedWrite> {
    const deadline = Date.now() + FIRST_ANSWER_WAIT_MS;
    for (;;) {
      const found = await this.ledger().find(write.workspaceId, write.writeId);
      if (found) return found;
      // The other request's transaction holds the row until it commits; the primary key told us it did.
      if (Date.now() > deadline) throw new FlowError("INTERNAL", `Write id ${write.writeId} was taken by another request, whose record cannot be read.`, { writeId: write.writeId });
      await sleep(25);
    }
  }

  /** Waits for the answer of a write applied less than FIRST_ANSWER_WAIT_MS ago (an older one's request is gone). */
  private async waitForAnswer(write: WriteRequest, first: RecordedWrite): Promise<RecordedWrite> {
    const deadline = first.appliedAtMs + FIRST_ANSWER_WAIT_MS;
    let now = first;
    while (now.answer === null && this.opts.now() < deadline) {
      await sleep(25);
      now = (await this.ledger().find(write.workspaceId, write.writeId)) ?? now;
    }
    return now;
  }

  private ledger(): WriteIdLedger {
    const store = this.opts.store();
    this.hook(store);
    let ledger = this.ledgers.get(store);
    if (!ledger) this.ledgers.set(store, (ledger = new WriteIdLedger(store)));
    return ledger;
  }

  /** The scope of the write whose id is not recorded yet, if this async context has one. */
  private open(): WriteScope | undefined {
    const s = this.als.getStore();
    return s && (s.state === "open" || s.state === "lost") ? s : undefined;
  }

  /**
   * Makes `store` record the open write's id in the first transaction that changes rows. After
   * a lost id every write of the request fails the same way, so nothing of it applies.
   */
  private hook(store: StorePort): void {
    if (this.hooked.has(store)) return;
    this.hooked.add(store);
    const transaction = store.transaction.bind(store);
    const execute = store.execute.bind(store);
    const executeBatch = store.executeBatch?.bind(store);
    const taken = (scope: WriteScope) => new FlowError("WRITE_ID_CONFLICT", `Write id ${scope.write.writeId} is being applied by another request.`, { writeId: scope.write.writeId, reason: "in-flight" });
    /** Runs a commit that carries the id when `mine`; its outcome decides the scope's state. */
    const settle = async <T>(scope: WriteScope, mine: () => boolean, commit: () => Promise<T>): Promise<T> => {
      try {
        const result = await commit();
        if (mine() && scope.state === "open") scope.state = "recorded";
        return result;
      } catch (error) {
        if (isWriteIdTaken(error)) scope.state = "lost";
        throw error;
      } finally {
        if (mine()) scope.recording = false;
      }
    };
    store.transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> => {
      const scope = this.open();
      if (!scope) return transaction(fn);
      if (scope.state === "lost") return Promise.reject(taken(scope));
      let wrote = false;
      let mine = false;
      return settle(scope, () => mine, () =>
        transaction(async (tx) => {
          const counting: SqlExecutor = {
            execute: async (sql, params) => {
              const n = await tx.execute(sql, params);
              if (n > 0) wrote = true;
              return n;
            },
            query: (sql, params) => tx.query(sql, params),
          };
          const result = await fn(counting);
          if (wrote && scope.state === "open" && !scope.recording) {
            mine = scope.recording = true;
            await tx.execute(...recordInTransaction(store.dialect, scope.write, scope.nowMs));
          }
          return result;
        }),
      );
    };
    store.execute = (sql, params) => {
      const scope = this.open();
      if (!scope || !DML.test(sql)) return execute(sql, params);
      return store.transaction((tx) => tx.execute(sql, params));
    };
    if (executeBatch) {
      store.executeBatch = (statements) => {
        const scope = this.open();
        if (!scope) return executeBatch(statements);
        if (scope.state === "lost") return Promise.reject(taken(scope));
        if (scope.recording) return executeBatch(statements);
        scope.recording = true;
        return settle(scope, () => true, () => executeBatch([...statements, recordInTransaction(store.dialect, scope.write, scope.nowMs)]));
      };
    }
  }
}

/** The RPC method a request calls (`/v1/rpc/<method>`, `/rpc` with `{ method }`), else ''. */
function methodOf(path: string, body: unknown): string {
  if (path.startsWith(PATHS.rpc)) return decodeURIComponent(path.slice(PATHS.rpc.length));
  if (path === PATHS.rpcEnvelope && typeof body === "object" && body !== null) return String((body as { method?: unknown }).method ?? "");
  return "";
}
