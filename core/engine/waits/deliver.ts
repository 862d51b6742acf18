/**
 * @module core/engine/waits/deliver
 * Delivering what waiting nodes wait for: approval decisions, human-task submissions, signals
 * and events. A delivery is durable before the call returns, a repeated delivery is a no-op,
 * and a session of the run in this process is woken at once (others find it when they resume
 * or poll). The Gateway's RPCs call these. See docs/waiting.md.
 *
 * A new delivery is refused when nothing can take it: the run does not exist (RUN_NOT_FOUND),
 * it has ended (RUN_NOT_WAITING), it was cancelled, which closed its waits (WAIT_CLOSED: when, and
 * by whom when known), the wait a decision names by `askedAtMs` was reset by a rewind or retry
 * (WAIT_RESET), or the payload does not match the schema the waiting Signal
 * or WaitForEvent recorded (SIGNAL_PAYLOAD_INVALID). Repeating an earlier delivery stays a
 * no-op (`duplicate`) whatever the run's state.
 */
import { FlowError } from "../../errors.js";
import { ANNOTATIONS, TABLES } from "../../protocol.js";
import { FlowDb, type RunRecord } from "../flow-db.js";
import { TERMINAL_STATUSES } from "../status.js";
import { checkPayload } from "./payload-schema.js";
import type { ApprovalResolution } from "./wait-manager.js";
import { pendingApprovalFields } from "../row-fields.js";
import { signalSql, type WaitRow, waitSql } from "./wait-sql.js";

/** Who delivers: checked against an approval's allowedUsers and allowedScopes. */
export interface DeliveryActor {
  userId?: string;
  scopes?: string[];
}

export interface SubmitApprovalInput {
  runId: string;
  nodeId: string;
  /** Default: the iteration that waits (else the latest). */
  iteration?: number;
  /** `approve`/`deny` for a decision; `{ selected }` or `{ ranked }` for select and rank modes. */
  decision: "approve" | "deny" | { selected: string } | { ranked: string[] };
  note?: string;
  /** Recorded as `decidedBy` (default: `actor.userId`). */
  decidedBy?: string;
  actor?: DeliveryActor;
  /** When the wait this decision answers asked (its row's `createdAtMs`): refused with WAIT_RESET once a reset asked again. */
  askedAtMs?: number;
}

export interface DeliveryResult {
  runId: string;
  nodeId: string;
  iteration: number;
  /** `duplicate`: the same delivery was made before; nothing changed. */
  status: "accepted" | "duplicate";
}

/** A pending approval or human task. */
export interface PendingApproval {
  runId: string;
  nodeId: string;
  iteration: number;
  kind: "approval" | "human";
  request: Record<string, unknown>;
  createdAtMs: number;
  deadlineMs: number | null;
}

type Adapter = FlowDb | { db?: unknown };
const flowDbOf = (a: Adapter) => (a instanceof FlowDb ? a : new FlowDb((a as { db?: unknown }).db ?? a));

/**
 * Decides an approval.
 * @example
 * await submitApproval(new FlowDb(api.db), { runId, nodeId: "ship", decision: "approve", actor: { userId: "ana", scopes: ["release"] } });
 */
export async function submitApproval(adapter: Adapter, input: SubmitApprovalInput): Promise<DeliveryResult> {
  const db = flowDbOf(adapter);
  await requireRun(db, input.runId);
  const row = await findWait(db, input.runId, input.nodeId, input.iteration, "approval", input.askedAtMs);
  const request = JSON.parse(row.request_json ?? "{}") as { mode?: string; options?: Array<{ key: string }>; allowedUsers?: string[]; allowedScopes?: string[] };
  authorize(request, input.actor, input.decidedBy, row);
  const decidedBy = input.decidedBy ?? input.actor?.userId ?? null;
  const decidedAt = new Date(db.binding.env.clock.now()).toISOString();
  const resolution = resolutionOf(request, input, decidedBy, decidedAt, row);
  return record(db, row, resolution, decidedBy, (a, b) => sameDecision(a as ApprovalResolution, b as ApprovalResolution));
}

export interface SubmitHumanTaskInput {
  runId: string;
  nodeId: string;
  iteration?: number;
  /** The row; validated against the task's output schema when the run settles it. */
  value: Record<string, unknown>;
  submittedBy?: string;
  actor?: DeliveryActor;
  /** As for approvals: the `createdAtMs` of the wait this submission answers. */
  askedAtMs?: number;
}

/**
 * Submits the row a HumanTask waits for.
 * @example
 * await submitHumanTask(new FlowDb(api.db), { runId, nodeId: "triage", value: { label: "bug" }, submittedBy: "ana" });
 */
export async function submitHumanTask(adapter: Adapter, input: SubmitHumanTaskInput): Promise<DeliveryResult> {
  const db = flowDbOf(adapter);
  await requireRun(db, input.runId);
  const row = await findWait(db, input.runId, input.nodeId, input.iteration, "human", input.askedAtMs);
  const by = input.submittedBy ?? input.actor?.userId ?? null;
  return record(db, row, { value: input.value }, by, (a, b) => JSON.stringify(a) === JSON.stringify(b));
}

export interface SubmitSignalInput {
  /** The Signal's id, or the WaitForEvent's event name. */
  name: string;
  /** The run to deliver to; or give `correlationId` to reach whichever run waits on it. */
  runId?: string;
  correlationId?: string;
  payload: unknown;
  /** Idempotency key: a second delivery with the same id is a no-op (default: a fresh id). */
  deliveryId?: string;
}

/**
 * Delivers a signal to a `<Signal id={name}>` (by run id or correlation id).
 * @example
 * await submitSignal(new FlowDb(api.db), { name: "ci-done", runId, payload: { green: true }, deliveryId: "build-812" });
 */
export function submitSignal(adapter: Adapter, input: SubmitSignalInput): Promise<{ deliveryId: string; status: "accepted" | "duplicate" }> {
  return deliver(flowDbOf(adapter), "signal", input);
}

/**
 * Delivers an event to a `<WaitForEvent event={name}>`; its payload becomes the node's row.
 * @example
 * await submitEvent(new FlowDb(api.db), { name: "invoice.paid", correlationId: "inv-7", payload: { amount: 120 } });
 */
export function submitEvent(adapter: Adapter, input: SubmitSignalInput): Promise<{ deliveryId: string; status: "accepted" | "duplicate" }> {
  return deliver(flowDbOf(adapter), "event", input);
}

/**
 * Approvals and human tasks waiting for a person, oldest first.
 * @example
 * for (const a of await listPendingApprovals(new FlowDb(api.db))) console.log(a.runId, a.nodeId, a.request.request);
 */
export async function listPendingApprovals(adapter: Adapter, filter: { runId?: string } = {}): Promise<PendingApproval[]> {
  const db = flowDbOf(adapter);
  const rows = filter.runId
    ? await db.store.query<WaitRow & Record<string, unknown>>(`SELECT w.* FROM ${TABLES.waits} w JOIN ${TABLES.runs} r ON r.run_id = w.run_id WHERE w.status = 'pending' AND w.kind IN ('approval', 'human') AND r.status <> 'cancelled' AND w.run_id = ? ORDER BY w.created_at_ms`, [filter.runId])
    : await db.store.query<WaitRow & Record<string, unknown>>(`SELECT w.* FROM ${TABLES.waits} w JOIN ${TABLES.runs} r ON r.run_id = w.run_id WHERE w.status = 'pending' AND w.kind IN ('approval', 'human') AND r.status <> 'cancelled' ORDER BY w.created_at_ms`);
  return rows.map((r) => pendingApprovalFields(r) as PendingApproval);
}

/**
 * Parked runs that can progress now: a delivery arrived, a deadline passed, or a signal for
 * them is waiting. A scheduler (the Gateway) resumes these. `runId` asks about one run.
 * @example
 * for (const runId of await listRunsToWake(new FlowDb(api.db))) await runWorkflow(workflow, { runId, resume: true });
 */
export async function listRunsToWake(adapter: Adapter, filter: { runId?: string } = {}): Promise<string[]> {
  const db = flowDbOf(adapter);
  const now = db.binding.env.clock.now();
  const rows = await db.store.query<{ run_id: string }>(
    `SELECT DISTINCT w.run_id FROM ${TABLES.waits} w JOIN ${TABLES.runs} r ON r.run_id = w.run_id
     WHERE r.status IN ('waiting-approval', 'waiting-event', 'waiting-timer')${filter.runId ? " AND w.run_id = ?" : ""} AND (
       w.status = 'resolved'
       OR (w.status = 'pending' AND w.deadline_ms IS NOT NULL AND w.deadline_ms <= ?)
       OR (w.status = 'pending' AND w.kind IN ('signal', 'event') AND EXISTS (
         SELECT 1 FROM ${TABLES.signals} s WHERE s.kind = w.kind AND s.name = w.name AND s.consumed_run_id IS NULL
           AND (s.run_id = w.run_id OR (s.run_id IS NULL AND s.correlation_id = w.correlation_id))))
     ) ORDER BY w.run_id`,
    filter.runId ? [filter.runId, now] : [now],
  );
  return rows.map((r) => r.run_id);
}

/** Each kind of wait in words, with its article. */
const A_WAIT: Record<string, string> = { approval: "an approval", human: "a human task", signal: "a signal", event: "an event", timer: "a timer" };

async function findWait(db: FlowDb, runId: string, nodeId: string, iteration: number | undefined, kind: "approval" | "human", askedAtMs: number | undefined): Promise<WaitRow> {
  const rows = await db.store.query<WaitRow & Record<string, unknown>>(
    `SELECT * FROM ${TABLES.waits} WHERE run_id = ? AND node_id = ? ORDER BY CASE WHEN status = 'pending' THEN 0 ELSE 1 END, iteration DESC`,
    [runId, nodeId],
  );
  const row = iteration === undefined ? rows[0] : rows.find((r) => Number(r.iteration) === iteration);
  // The wait the person answered was dropped by a reset (time travel, retryTask): gone, or asked again since.
  if (askedAtMs !== undefined && (!row || Number(row.created_at_ms) !== askedAtMs)) throw reset(runId, nodeId, kind, iteration ?? (row ? Number(row.iteration) : 0), askedAtMs, row ? Number(row.created_at_ms) : null);
  if (!row) {
    // Said with what does wait (a typo in the node id is the usual cause).
    const what = kind === "human" ? "human task" : "approval";
    const pending = await db.store.query<{ node_id: string }>(`SELECT DISTINCT node_id FROM ${TABLES.waits} WHERE run_id = ? AND kind = ? AND status = 'pending' ORDER BY node_id`, [runId, kind]);
    const waiting = pending.map((r) => String(r.node_id));
    const hint = waiting.length ? ` It waits on the ${what}${waiting.length > 1 ? "s" : ""} ${waiting.map((n) => `"${n}"`).join(", ")}.` : ` No ${what} of it is waiting.`;
    throw new FlowError("WAIT_NOT_FOUND", `Run ${runId} has no ${what} "${nodeId}" waiting${iteration === undefined ? "" : ` at iteration ${iteration}`}.${hint}`, { runId, nodeId, waiting });
  }
  if (row.kind !== kind) throw new FlowError("WAIT_NOT_FOUND", `Node "${nodeId}" of run ${runId} waits for ${A_WAIT[row.kind] ?? row.kind}, not ${A_WAIT[kind]}.`, { runId, nodeId, kind: row.kind });
  return row;
}

function authorize(request: { allowedUsers?: string[]; allowedScopes?: string[] }, actor: DeliveryActor | undefined, decidedBy: string | undefined, row: WaitRow): void {
  const user = actor?.userId ?? decidedBy;
  if (request.allowedUsers?.length && !(user && request.allowedUsers.includes(user))) {
    throw new FlowError("APPROVAL_FORBIDDEN", `${user ?? "An anonymous user"} may not decide "${row.node_id}" of run ${row.run_id}; allowed: ${request.allowedUsers.join(", ")}.`, {
      runId: row.run_id,
      nodeId: row.node_id,
    });
  }
  const scopes = actor?.scopes ?? [];
  if (request.allowedScopes?.length && !scopes.includes("*") && !request.allowedScopes.some((s) => scopes.includes(s))) {
    throw new FlowError("APPROVAL_FORBIDDEN", `Deciding "${row.node_id}" of run ${row.run_id} needs one of the scopes ${request.allowedScopes.join(", ")}.`, {
      runId: row.run_id,
      nodeId: row.node_id,
      requiredScope: request.allowedScopes[0],
    });
  }
}

function resolutionOf(request: { mode?: string; options?: Array<{ key: string }> }, input: SubmitApprovalInput, decidedBy: string | null, decidedAt: string, row: WaitRow): ApprovalResolution {
  const mode = request.mode ?? "approve";
  const keys = (request.options ?? []).map((o) => o.key);
  const d = input.decision;
  const bad = (why: string) => new FlowError("INVALID_ARGUMENT", `Approval "${row.node_id}" of run ${row.run_id} is in ${mode} mode: ${why}.`, { runId: row.run_id, nodeId: row.node_id });
  if (mode === "select") {
    if (typeof d !== "object" || !("selected" in d) || !keys.includes(d.selected)) throw bad(`decide with { selected } set to one of ${keys.join(", ")}`);
    return { selected: d.selected, notes: input.note ?? null, decidedBy, decidedAt };
  }
  if (mode === "rank") {
    if (typeof d !== "object" || !("ranked" in d) || d.ranked.length !== keys.length || [...d.ranked].sort().join() !== [...keys].sort().join()) {
      throw bad(`decide with { ranked } listing each of ${keys.join(", ")} once`);
    }
    return { ranked: d.ranked, notes: input.note ?? null, decidedBy, decidedAt };
  }
  if (d !== "approve" && d !== "deny") throw bad(`decide with "approve" or "deny"`);
  return { approved: d === "approve", note: input.note ?? null, decidedBy, decidedAt };
}

function sameDecision(a: ApprovalResolution, b: ApprovalResolution): boolean {
  return a.approved === b.approved && a.selected === b.selected && JSON.stringify(a.ranked) === JSON.stringify(b.ranked);
}

async function record(db: FlowDb, row: WaitRow, resolution: unknown, by: string | null, same: (a: unknown, b: unknown) => boolean): Promise<DeliveryResult> {
  const iteration = Number(row.iteration);
  const result = { runId: row.run_id, nodeId: row.node_id, iteration };
  if (row.status === "pending" || row.status === "closed") refuseEnded(await requireRun(db, row.run_id), row.node_id);
  if (row.status === "closed") throw closed(await requireRun(db, row.run_id), row.node_id);
  if (await waitSql.resolve(db.store, row.run_id, row.node_id, iteration, resolution, by, db.binding.env.clock.now())) {
    db.binding.wakers?.get(row.run_id)?.();
    return { ...result, status: "accepted" };
  }
  const current = await waitSql.get(db.store, row.run_id, row.node_id, iteration);
  const winning = current?.resolution_json ? (JSON.parse(current.resolution_json) as Record<string, unknown>) : null;
  // The same decision again is a retry when it comes from the one who decided, or from a
  // caller with no identity (local use); another member learns who decided (docs/multiplayer.md).
  if (winning && same(winning, resolution) && (by === null || (current?.resolved_by ?? null) === by)) return { ...result, status: "duplicate" };
  // Two people deciding at once: the first decision won (compare-and-set above); the second
  // learns what it was and who made it, so a console can show it instead of its own, even
  // when it decided the same.
  const decidedAt = isoOf(current?.resolved_at_ms);
  throw new FlowError("APPROVAL_ALREADY_DECIDED", `"${row.node_id}" of run ${row.run_id} was already decided${current?.resolved_by ? ` by ${current.resolved_by}` : ""}${winning ? ` (${describeResolution(winning)})` : ""}${decidedAt ? ` at ${decidedAt}` : ""}; that decision stands.`, {
    runId: row.run_id,
    nodeId: row.node_id,
    decidedBy: current?.resolved_by ?? null,
    decision: winning,
    decidedAt,
  });
}

/** A recorded resolution in a few words: `approved`, `denied`, `selected x`, `ranked a > b`, `submitted`. */
function describeResolution(r: Record<string, unknown>): string {
  if (typeof r.approved === "boolean") return r.approved ? "approved" : "denied";
  if (typeof r.selected === "string") return `selected ${r.selected}`;
  if (Array.isArray(r.ranked)) return `ranked ${r.ranked.join(" > ")}`;
  return "submitted";
}

async function deliver(db: FlowDb, kind: "signal" | "event", input: SubmitSignalInput): Promise<{ deliveryId: string; status: "accepted" | "duplicate" }> {
  if (!input.name) throw new FlowError("INVALID_ARGUMENT", `A ${kind} needs a name.`);
  if (!input.runId && !input.correlationId) throw new FlowError("INVALID_ARGUMENT", `A ${kind} needs a runId or a correlationId to find its run.`, { name: input.name });
  const deliveryId = input.deliveryId ?? db.binding.env.newId();
  if (input.deliveryId !== undefined && (await signalSql.exists(db.store, deliveryId))) return { deliveryId, status: "duplicate" };
  if (input.runId) refuseEnded(await requireRun(db, input.runId));
  for (const wait of await pendingWaitsFor(db, kind, input)) {
    checkPayload((JSON.parse(wait.request_json ?? "{}") as { schema?: unknown }).schema, input.payload, { kind, name: input.name, runId: wait.run_id, nodeId: wait.node_id });
  }
  const fresh = await signalSql.insert(db.store, {
    deliveryId,
    kind,
    name: input.name,
    runId: input.runId ?? null,
    correlationId: input.correlationId ?? null,
    payload: input.payload,
    now: db.binding.env.clock.now(),
  });
  if (fresh) {
    const wakers = db.binding.wakers;
    if (input.runId) wakers?.get(input.runId)?.();
    else for (const wake of wakers?.values() ?? []) wake();
  }
  return { deliveryId, status: fresh ? "accepted" : "duplicate" };
}

/** The run a delivery names; RUN_NOT_FOUND when the store has no such run. */
async function requireRun(db: FlowDb, runId: string): Promise<RunRecord> {
  const run = await db.getRun(runId);
  if (!run) throw new FlowError("RUN_NOT_FOUND", `Run ${runId} does not exist in this store. Check the run id (and that this is the store the workflow uses).`, { runId });
  return run;
}

/**
 * RUN_NOT_WAITING for a run that has ended, WAIT_CLOSED for a cancelled one: nothing would
 * ever take a new delivery.
 */
function refuseEnded(run: RunRecord, nodeId?: string): void {
  if (run.status === "cancelled") throw closed(run, nodeId);
  if (!TERMINAL_STATUSES.has(run.status)) return;
  const next = run.status === "continued" && run.nextRunId ? ` Deliver to the run it continued as, ${run.nextRunId}.` : "";
  throw new FlowError("RUN_NOT_WAITING", `Run ${run.runId} is ${run.status}; it waits for nothing, so nothing was delivered.${next}`, { runId: run.runId, status: run.status });
}

/** WAIT_CLOSED, saying when the run was cancelled and by whom (`flow:cancelledBy`, written by the Gateway's cancel) when known. */
function closed(run: RunRecord, nodeId: string | undefined): FlowError {
  const cancelledAt = isoOf(run.finishedAtMs ?? run.updatedAtMs);
  const by = run.annotations?.[ANNOTATIONS.cancelledBy];
  const cancelledBy = typeof by === "string" ? by : null;
  return new FlowError(
    "WAIT_CLOSED",
    `Run ${run.runId} was cancelled${cancelledBy ? ` by ${cancelledBy}` : ""}${cancelledAt ? ` at ${cancelledAt}` : ""}, which closed its waits${nodeId ? ` ("${nodeId}" included)` : ""}; nothing was delivered. Retry or rewind the run to ask again.`,
    { runId: run.runId, ...(nodeId ? { nodeId } : {}), cancelledAt, cancelledBy },
  );
}

/** WAIT_RESET: the wait a decision answered was reset; `askedAgainAtMs` when the node asks again already. */
function reset(runId: string, nodeId: string, kind: "approval" | "human", iteration: number, askedAtMs: number, askedAgainAtMs: number | null): FlowError {
  const what = kind === "human" ? "human task" : "approval";
  const now = askedAgainAtMs === null ? "it has not been asked again yet" : `it asks again since ${isoOf(askedAgainAtMs)}`;
  return new FlowError("WAIT_RESET", `The ${what} "${nodeId}" of run ${runId} that was asked at ${isoOf(askedAtMs)} was reset (a rewind or retry) and ${now}; nothing was delivered. Decide the new request.`, {
    runId,
    nodeId,
    iteration,
    askedAt: isoOf(askedAtMs),
    askedAgainAt: askedAgainAtMs === null ? null : isoOf(askedAgainAtMs),
  });
}

/** A stored millisecond time as an ISO string (null when unknown). */
function isoOf(ms: number | string | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();
}

/** Pending waits a signal or event would reach now: of its run, or waiting on its correlation id. */
async function pendingWaitsFor(db: FlowDb, kind: "signal" | "event", input: SubmitSignalInput): Promise<WaitRow[]> {
  return input.runId
    ? db.store.query<WaitRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} WHERE status = 'pending' AND kind = ? AND name = ? AND run_id = ?`, [kind, input.name, input.runId])
    : db.store.query<WaitRow & Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} WHERE status = 'pending' AND kind = ? AND name = ? AND correlation_id = ?`, [kind, input.name, input.correlationId ?? ""]);
}
