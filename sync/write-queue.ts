/**
 * @module sync/write-queue
 * The writes a team member makes while the workspace cannot be reached (docs/multiplayer.md
 * "Offline"): approvals, denials, human-task answers, signals, launches, forks and cancels, kept in
 * order in a durable store (the app's IndexedDB, ui/workspace/last-seen.ts: it survives a
 * closed tab and a browser restart), each with a write id made in this browser. When the
 * workspace answers again they are sent in order (writes on one run one after another, writes
 * on different runs together), each with the `flow-write-id` header, so a
 * resend (the answer was lost) is applied once by the Gateway. A write the Gateway refuses
 * (decided meanwhile, a role that no longer allows it, no longer a member) is kept with its
 * refusal for the person to read and dismiss; it is never sent again. A write the Gateway applied
 * leaves the store at once and stays listed as `sent` until its change reached this browser's
 * shapes, so what it decided does not show as undecided meanwhile (an approval offered again).
 */
import { safeRandomUUID } from "@tanstack/db";
import { WRITE_ID_RETENTION_MS } from "../core/api/wire/index.js";
import { FlowError } from "../core/errors.js";
import { ROLE_SCOPES, type WorkspaceRole } from "./membership.js";

/** What a queued write does (the domain API call it becomes). */
export type QueuedWriteKind = "launch" | "fork" | "cancel" | "approve" | "humanTask" | "signal";

/** A write kept in the queue. */
export interface QueuedWrite {
  /** Made in this browser; sent as `flow-write-id`. */
  writeId: string;
  /** The queue it belongs to (a team workspace: `<apiBaseUrl>#<workspaceId>`). */
  queue: string;
  /** Order of sending. */
  seq: number;
  kind: QueuedWriteKind;
  params: Record<string, unknown>;
  /** What it does, in words ("Approve "ship" of run r1"). */
  label: string;
  /** Who made it: the role they had then. */
  role?: string;
  madeAtMs: number;
  /** `sent`: applied, its change not yet in this browser's shapes (kept in memory only). */
  state: "waiting" | "sent" | "refused";
  refusal?: { code: string; message: string; details?: Record<string, unknown>; atMs: number };
}

/** Where queued writes are kept. */
export interface WriteQueueStore {
  list(queue: string): Promise<QueuedWrite[]>;
  put(write: QueuedWrite): Promise<void>;
  delete(writeId: string): Promise<void>;
}

/** The scope a kind of write needs (docs/multiplayer.md "Members and roles"). */
const SCOPE_OF: Record<QueuedWriteKind, string> = {
  launch: "run:write",
  fork: "run:write",
  cancel: "run:write",
  signal: "signal:submit",
  approve: "approval:submit",
  humanTask: "approval:submit",
};

/** Codes that mean "not reached": the write stays queued and is sent again later. */
const NOT_REACHED = new Set(["GATEWAY_UNAVAILABLE", "WORKSPACE_OFFLINE", "SYNC_UPSTREAM_UNAVAILABLE"]);

/**
 * Whether an error means the write did not reach the Gateway (or its answer did not come back).
 * @example
 * if (notReached(error)) queue.add(...);
 */
export function notReached(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? NOT_REACHED.has(code) : error instanceof TypeError;
}

/**
 * Refuses a write the member's last known role does not allow, before anything is queued.
 * @example
 * assertRoleAllows("read", "launch", "Launching release"); // throws FORBIDDEN
 */
export function assertRoleAllows(role: string | undefined, kind: QueuedWriteKind, what: string): void {
  const scopes = role ? ROLE_SCOPES[role as WorkspaceRole] : undefined;
  if (!scopes || scopes.includes(SCOPE_OF[kind])) return;
  throw new FlowError("FORBIDDEN", `${what} was not queued: your role in this workspace is ${role}, which does not allow it (${SCOPE_OF[kind]}). Ask an admin for another role.`, { role, needs: SCOPE_OF[kind] });
}

/** How many queued writes on different runs are sent at once (a browser opens ~6 connections per origin; the shapes hold some). */
const MAX_IN_FLIGHT = 3;

/** The runs a write touches. */
function runsOf(write: QueuedWrite): string[] {
  return [write.params.runId, write.params.newRunId].filter((id): id is string => typeof id === "string");
}

/** Whether `write` must wait for `earlier` to be answered: same run, or either is a cancel. */
function mustFollow(write: QueuedWrite, earlier: QueuedWrite): boolean {
  if (write.kind === "cancel" || earlier.kind === "cancel") return true;
  const mine = runsOf(write);
  const theirs = runsOf(earlier);
  return mine.length === 0 || theirs.length === 0 || theirs.some((id) => mine.includes(id));
}

/** A counter of free places, handed out in the order asked. */
class Slots {
  private readonly waiters: Array<() => void> = [];
  constructor(private free: number) {}
  take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  give(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

/**
 * The queue of one team workspace.
 * @example
 * const queue = new WriteQueue(store, "https://flow.example.com#acme");
 * await queue.open();
 * await queue.add("approve", { runId, nodeId: "ship", decision: "approve" }, 'Approve "ship"');
 * await queue.deliver(send);
 */
/** Settles once an applied write's change reached this browser's shapes (its txid, by the answer). */
type Confirmed = (write: QueuedWrite, answer: unknown) => Promise<unknown>;

export class WriteQueue {
  private items: QueuedWrite[] = [];
  private readonly listeners = new Set<(items: readonly QueuedWrite[]) => void>();
  private delivering: Promise<void> | undefined;
  private opened: Promise<void> | undefined;

  constructor(
    private readonly store: WriteQueueStore,
    readonly name: string,
  ) {}

  /** Reads what an earlier page (or browser) left queued. */
  open(): Promise<void> {
    this.opened ??= this.store
      .list(this.name)
      .then((items) => {
        this.items = [...items, ...this.items.filter((w) => !items.some((i) => i.writeId === w.writeId))].sort((a, b) => a.seq - b.seq);
        this.emit();
      })
      .catch(() => undefined);
    return this.opened;
  }

  /** Every write queued or refused, in order. */
  get all(): readonly QueuedWrite[] {
    return this.items;
  }

  /** How many wait to be sent. */
  get waiting(): number {
    return this.items.filter((w) => w.state === "waiting").length;
  }

  subscribe(listener: (items: readonly QueuedWrite[]) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /**
   * Keeps a write (durably, before it resolves). `writeId` is given when the write was already
   * sent once without an answer; otherwise one is made.
   */
  async add(kind: QueuedWriteKind, params: Record<string, unknown>, label: string, options: { role?: string; writeId?: string } = {}): Promise<QueuedWrite> {
    await this.open();
    const seq = Math.max(Date.now(), (this.items.at(-1)?.seq ?? 0) + 1);
    const write: QueuedWrite = { writeId: options.writeId ?? safeRandomUUID(), queue: this.name, seq, kind, params, label, madeAtMs: Date.now(), state: "waiting", ...(options.role ? { role: options.role } : {}) };
    await this.store.put(write);
    this.items = [...this.items, write];
    this.emit();
    return write;
  }

  /** Forgets a refused write (the person read why). */
  async dismiss(writeId: string): Promise<void> {
    await this.store.delete(writeId);
    this.items = this.items.filter((w) => w.writeId !== writeId);
    this.emit();
  }

  /**
   * Sends the waiting writes with `send`, in order where order matters: a write waits for the
   * earlier ones that touch the same run (its `runId`, a fork's `newRunId`) to be answered, and
   * a cancel waits for every earlier write and holds every later one (it can end child runs);
   * writes on different runs are sent together, up to `MAX_IN_FLIGHT` at once, in the order
   * made, once the first write got through (it goes alone, so a connection that is not back
   * costs one request). A write that does not reach the Gateway stops the delivery: it, and what waits on it,
   * stay first for the next one. A refused write is kept with its refusal; what waits on it is
   * sent. An applied write is `sent` until `confirmed(write, answer)` settles (its txid reached
   * the shapes; later writes are sent meanwhile), then it goes. Concurrent calls share one delivery.
   */
  deliver(send: (write: QueuedWrite) => Promise<unknown>, confirmed?: Confirmed): Promise<void> {
    this.delivering ??= (async () => {
      try {
        await this.open();
        // Writes queued while a round is sent go in the next round.
        while (this.items.some((w) => w.state === "waiting")) if (!(await this.deliverRound(send, confirmed))) return;
      } finally {
        this.delivering = undefined;
        this.emit();
      }
    })();
    return this.delivering;
  }

  /** Sends the writes waiting now; false when one did not reach the Gateway. */
  private async deliverRound(send: (write: QueuedWrite) => Promise<unknown>, confirmed?: Confirmed): Promise<boolean> {
    const waiting = this.items.filter((w) => w.state === "waiting");
    const answered = new Map<string, Promise<boolean>>();
    const slots = new Slots(MAX_IN_FLIGHT);
    let reached = true;
    for (const [i, write] of waiting.entries()) {
      // The first write goes alone: once it got through, the connection is back for the others.
      const before = waiting.slice(0, i).filter((earlier, j) => j === 0 || mustFollow(write, earlier));
      answered.set(
        write.writeId,
        (async () => {
          if (!(await Promise.all(before.map((w) => answered.get(w.writeId)!))).every(Boolean)) return false;
          await slots.take();
          try {
            if (!reached) return false;
            reached &&= await this.sendOne(write, send, confirmed);
            return reached;
          } finally {
            slots.give();
          }
        })(),
      );
    }
    await Promise.all(answered.values());
    return reached;
  }

  /** Sends one write: true once answered (applied, or refused and kept), false when not reached. */
  private async sendOne(write: QueuedWrite, send: (write: QueuedWrite) => Promise<unknown>, confirmed?: Confirmed): Promise<boolean> {
    try {
      // The Gateway keeps write ids 30 days: an older write could apply twice, so it is not sent.
      if (Date.now() - write.madeAtMs > WRITE_ID_RETENTION_MS) throw new FlowError("INVALID_ARGUMENT", `It waited more than ${WRITE_ID_RETENTION_MS / 86_400_000} days in this browser, longer than the workspace remembers write ids, so it was not sent; make it again if it still applies.`, { expired: true });
      const answer = await send(write);
      await this.store.delete(write.writeId);
      const gone = () => (this.items = this.items.filter((w) => w.writeId !== write.writeId));
      if (!confirmed) gone();
      else {
        this.items = this.items.map((w) => (w.writeId === write.writeId ? { ...write, state: "sent" } : w));
        void confirmed(write, answer)
          .catch(() => undefined)
          .then(() => (gone(), this.emit()));
      }
    } catch (error) {
      if (notReached(error)) return false;
      const e = error as { code?: string; message?: string; details?: Record<string, unknown> };
      const refused: QueuedWrite = { ...write, state: "refused", refusal: { code: e.code ?? "INTERNAL", message: e.message ?? String(error), ...(e.details ? { details: e.details } : {}), atMs: Date.now() } };
      await this.store.put(refused);
      this.items = this.items.map((w) => (w.writeId === write.writeId ? refused : w));
    }
    this.emit();
    return true;
  }

  private emit(): void {
    for (const l of this.listeners) l(this.items);
  }
}

/**
 * Why a queued write was refused, in words for the person who made it.
 * @example
 * describeRefusal(write); // "ana approved this 3 min before your denial arrived."
 * describeRefusal(answer); // "ana answered this 3 min before your answer arrived." (a human task)
 */
export function describeRefusal(write: QueuedWrite): string {
  const r = write.refusal;
  if (!r) return "";
  const d = r.details ?? {};
  if (r.code === "APPROVAL_ALREADY_DECIDED") {
    const decision = d.decision as { approved?: unknown; decidedAt?: unknown } | string | null | undefined;
    const verb = typeof decision === "string" ? decision : typeof decision?.approved === "boolean" ? (decision.approved ? "approved" : "denied") : write.kind === "humanTask" ? "answered" : "decided";
    const who = typeof d.decidedBy === "string" ? d.decidedBy : "Someone";
    const mine = write.kind === "approve" ? (write.params.decision === "deny" ? "denial" : write.params.decision === "approve" ? "approval" : "decision") : "answer";
    // When the winner decided: `details.decidedAt`, else the recorded resolution's.
    const decidedAt = d.decidedAt ?? (typeof decision === "object" ? decision?.decidedAt : undefined);
    const at = typeof decidedAt === "number" ? decidedAt : typeof decidedAt === "string" ? Date.parse(decidedAt) : NaN;
    const when = Number.isFinite(at) ? ` ${gap(r.atMs - at)} before your ${mine} arrived` : ` before your ${mine} arrived`;
    return `${who} ${verb} this${when}.`;
  }
  if (d.expired === true) return r.message;
  if (r.code === "WAIT_CLOSED") return `The run was cancelled${typeof d.cancelledBy === "string" ? ` by ${d.cancelledBy}` : ""} before it arrived.`;
  if (r.code === "WAIT_RESET") return "The run asked again (rewound or retried) before it arrived; decide on the new request.";
  if (r.code === "RUN_NOT_WAITING") return `The run no longer waits (${typeof d.status === "string" ? d.status : "ended"}).`;
  if (r.code === "WORKSPACE_NOT_MEMBER") return `You are no longer a member of this workspace, so it was not applied. ${r.message}`;
  if (r.code === "FORBIDDEN") {
    const role = typeof d.role === "string" ? d.role : undefined;
    return role ? `Your role is now ${role}, which does not allow it. ${r.message}` : `Your role no longer allows it. ${r.message}`;
  }
  return `${r.code}: ${r.message}`;
}

function gap(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} min` : `${Math.round(m / 60)} h`;
}
