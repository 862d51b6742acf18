/**
 * @module core/engine/waits/wait-manager
 * The waiting nodes of one run session. When the scheduler reaches a waiting node, the manager
 * records its wait (durably, with its deadline), and settles it as soon as its delivery is
 * there: a decision, a submission, a signal, or the deadline passing. Settling happens in the
 * session's batch (node, output row, wait row and event in one transaction), so a delivery
 * is acted on exactly once. See docs/waiting.md.
 */
import { TABLES } from "../../protocol.js";
import type { EventInit } from "../events.js";
import { FlowError } from "../../errors.js";
import type { TableEntry } from "../../schema/index.js";
import type { StorePort } from "../../store/index.js";
import type { NodeDescriptor } from "../describe-node.js";
import type { PlanTask } from "../plan.js";
import type { WriteBatch } from "../run-sql.js";
import type { NodeState, RunStatus } from "../types.js";
import type { ClockPort } from "../../util/index.js";
import type { WaitData } from "../../jsx/index.js";
import type { ApprovalWait, HumanWait, SignalWait, WaitSpec } from "./spec.js";
import { recordedSchemaOf } from "./payload-schema.js";
import { signalSql, type WaitRow, waitSql } from "./wait-sql.js";

/** What the manager needs from its session. */
export interface WaitHost {
  runId: string;
  store: StorePort;
  clock: ClockPort;
  batch: WriteBatch;
  emit(init: EventInit): void;
  setState(task: PlanTask, state: NodeState, error?: FlowError): void;
  storeOutput(entry: TableEntry, nodeId: string, iteration: number, row: Record<string, unknown>): void;
  resolveTable(key: string): TableEntry;
  /** The node is complete: scheduling moves on. */
  complete(task: PlanTask): void;
  /** Later siblings may go on while an `async` wait waits. */
  passThrough(task: PlanTask): void;
  /** The node failed for good (the run fails unless it has continueOnFail). */
  fail(task: PlanTask, error: FlowError): void;
  /** An approval gate passed: the gated task itself runs now. */
  runGatedTask(task: PlanTask): void;
  requestRender(): void;
  wake(): void;
}

interface Waiting {
  task: PlanTask;
  spec: WaitSpec;
  row: WaitRow;
}

const STATE_OF: Record<WaitSpec["kind"], NodeState> = {
  approval: "waiting-approval",
  human: "waiting-approval",
  signal: "waiting-event",
  event: "waiting-event",
  timer: "waiting-timer",
};

export class WaitManager {
  private readonly waiting = new Map<string, Waiting>();
  /** Data of resolved signals, by node id, for renders. */
  private readonly data = new Map<string, WaitData>();
  private deadlineTimer: unknown;
  private deadlineAt = Infinity;

  constructor(private readonly host: WaitHost) {}

  get size(): number {
    return this.waiting.size;
  }

  /** Whether `key` waits (it holds no concurrency slot and is not queued). */
  has(key: string): boolean {
    return this.waiting.has(key);
  }

  /** The data a render sees for a Signal node. */
  dataOf(nodeId: string): WaitData {
    return this.data.get(nodeId) ?? { resolved: false };
  }

  /** The run status while only waits are left: approvals first, then events, then timers. */
  parkStatus(): RunStatus {
    const kinds = new Set([...this.waiting.values()].map((w) => STATE_OF[w.spec.kind]));
    return kinds.has("waiting-approval") ? "waiting-approval" : kinds.has("waiting-event") ? "waiting-event" : "waiting-timer";
  }

  /** Node ids waiting now. */
  waitingOn(): string[] {
    return [...this.waiting.values()].map((w) => w.task.desc.nodeId);
  }

  /** Loads what settled Signals delivered, so that a resumed run renders their children again. */
  async load(): Promise<void> {
    const rows = await this.host.store.query<{ node_id: string; resolution_json: string | null }>(
      `SELECT node_id, resolution_json FROM ${TABLES.waits} WHERE run_id = ? AND kind = 'signal' AND status = 'settled' ORDER BY iteration`,
      [this.host.runId],
    );
    for (const r of rows) {
      const res = r.resolution_json ? (JSON.parse(r.resolution_json) as { data?: unknown; timedOut?: boolean; onTimeout?: string }) : {};
      if (res.timedOut && res.onTimeout !== "continue") continue;
      this.data.set(r.node_id, { resolved: true, value: res.data });
    }
  }

  /** The scheduler reached a waiting node: record its wait, and settle it if it can be. */
  async activate(task: PlanTask): Promise<void> {
    const desc = task.desc as NodeDescriptor;
    const spec = desc.wait!;
    const { runId } = this.host;
    const now = this.host.clock.now();
    let row = await waitSql.get(this.host.store, runId, desc.nodeId, desc.iteration);
    // Closed by a cancel, and the run was resumed (retried) since: the node asks afresh.
    if (row?.status === "closed") waitSql.remove(this.host.batch, runId, desc.nodeId, desc.iteration);
    if (!row || row.status === "closed") {
      const request = requestOf(spec, desc, now, spec.kind === "signal" || spec.kind === "event" ? this.payloadSchema(spec, desc) : undefined);
      const deadlineMs = earliest(request.autoAtMs, request.timeoutAtMs, request.fireAtMs);
      const name = spec.kind === "signal" || spec.kind === "event" ? spec.name : null;
      const correlationId = (spec.kind === "signal" || spec.kind === "event") && spec.correlationId ? spec.correlationId : null;
      waitSql.insert(this.host.batch, { runId, nodeId: desc.nodeId, iteration: desc.iteration, kind: spec.kind, name, correlationId, request, deadlineMs, now });
      row = {
        run_id: runId,
        node_id: desc.nodeId,
        iteration: desc.iteration,
        kind: spec.kind,
        status: "pending",
        name,
        correlation_id: correlationId,
        request_json: JSON.stringify(request),
        deadline_ms: deadlineMs,
        resolution_json: null,
        resolved_by: null,
        created_at_ms: now,
        resolved_at_ms: null,
      };
      if (spec.kind === "approval" || spec.kind === "human") this.host.emit({ type: "ApprovalRequested", nodeId: desc.nodeId, iteration: desc.iteration, kind: spec.kind });
    }
    const entry: Waiting = { task, spec, row };
    if (await this.trySettle(entry)) return;
    this.waiting.set(task.key, entry);
    this.host.setState(task, STATE_OF[spec.kind]);
    if (desc.waitAsync) this.host.passThrough(task);
    this.armDeadline();
  }

  /** Re-checks every waiting node (deliveries from other processes, passed deadlines). */
  async poll(): Promise<boolean> {
    let progressed = false;
    for (const [key, entry] of [...this.waiting]) {
      const row = await waitSql.get(this.host.store, this.host.runId, entry.task.desc.nodeId, entry.task.desc.iteration);
      if (row) entry.row = row;
      if (await this.trySettle(entry)) {
        this.waiting.delete(key);
        progressed = true;
      }
    }
    this.armDeadline();
    return progressed;
  }

  /**
   * A new render: each wait takes its node's current spec (an approval's `autoApprove`
   * condition and `revertOn`, an ApprovalGate's `when`). Returns whether any wait is left to
   * re-check.
   */
  refresh(byKey: ReadonlyMap<string, PlanTask>): boolean {
    for (const [key, entry] of this.waiting) {
      const spec = (byKey.get(key)?.desc as NodeDescriptor | undefined)?.wait;
      if (spec && spec.kind === entry.spec.kind) entry.spec = spec;
    }
    return this.waiting.size > 0;
  }

  /** Forgets a node that left the tree. */
  drop(key: string): void {
    this.waiting.delete(key);
  }

  stop(): void {
    if (this.deadlineTimer !== undefined) this.host.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
  }

  private armDeadline(): void {
    const next = earliest(...[...this.waiting.values()].map((w) => (w.row.deadline_ms === null ? undefined : Number(w.row.deadline_ms))));
    if (next === this.deadlineAt && this.deadlineTimer !== undefined) return;
    this.stop();
    this.deadlineAt = next ?? Infinity;
    if (next === null) return;
    this.deadlineTimer = this.host.clock.setTimeout(() => {
      this.deadlineTimer = undefined;
      this.deadlineAt = Infinity;
      this.host.wake();
    }, Math.max(0, next - this.host.clock.now()));
  }

  private async trySettle(entry: Waiting): Promise<boolean> {
    switch (entry.spec.kind) {
      case "approval":
        return this.settleApproval(entry, entry.spec);
      case "human":
        return this.settleHuman(entry, entry.spec);
      case "signal":
      case "event":
        return this.settleSignal(entry, entry.spec);
      case "timer":
        return this.settleTimer(entry);
    }
  }

  private request(entry: Waiting): Record<string, number | undefined> {
    return entry.row.request_json ? (JSON.parse(entry.row.request_json) as Record<string, number | undefined>) : {};
  }

  private timedOut(entry: Waiting): boolean {
    const at = this.request(entry).timeoutAtMs;
    return at !== undefined && at <= this.host.clock.now();
  }

  private async settleApproval(entry: Waiting, spec: ApprovalWait): Promise<boolean> {
    const { row, task } = entry;
    const now = this.host.clock.now();
    let decision: ApprovalResolution | undefined;
    if (row.status !== "pending" && row.resolution_json) decision = JSON.parse(row.resolution_json) as ApprovalResolution;
    else if (!spec.revertOn && (spec.autoNow || (this.request(entry).autoAtMs ?? Infinity) <= now)) {
      decision = { approved: true, note: "approved automatically", decidedBy: spec.audit ?? "auto", decidedAt: new Date(now).toISOString() };
      if (spec.mode === "select") decision = { selected: spec.options![0]!.key, notes: "selected automatically", decidedBy: spec.audit ?? "auto" };
      if (spec.mode === "rank") decision = { ranked: spec.options!.map((o) => o.key), notes: "ranked automatically", decidedBy: spec.audit ?? "auto" };
    } else if (this.timedOut(entry)) {
      return this.timeout(entry, "fail");
    }
    if (!decision) return false;
    const desc = task.desc;
    if (row.status !== "settled") {
      waitSql.settle(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, decision, decision.decidedBy ?? null, now);
      this.host.emit({ type: "ApprovalDecided", nodeId: desc.nodeId, iteration: desc.iteration, decision: decision as Record<string, unknown> });
    }
    const denied = spec.mode === "approve" && decision.approved === false;
    if (denied && spec.onDeny !== "continue") {
      if (spec.onDeny === "skip") {
        this.host.setState(task, "skipped");
        this.host.complete(task);
      } else {
        this.host.fail(task, new FlowError("APPROVAL_DENIED", `Approval "${desc.nodeId}" was denied${decision.decidedBy ? ` by ${decision.decidedBy}` : ""}${decision.note ? `: ${decision.note}` : ""}.`, { nodeId: desc.nodeId, decision }));
      }
      return true;
    }
    if (spec.gatesTask) {
      this.host.runGatedTask(task);
      return true;
    }
    const out = outputOf(spec, decision);
    return this.finish(entry, out);
  }

  private async settleHuman(entry: Waiting, spec: HumanWait): Promise<boolean> {
    const { row, task } = entry;
    if (row.status === "pending" || !row.resolution_json) return this.timedOut(entry) ? this.timeout(entry, "fail") : false;
    const desc = task.desc;
    const submitted = (JSON.parse(row.resolution_json) as { value: unknown }).value;
    const parsed = (desc.outputSchema ?? this.host.resolveTable(desc.outputTable).schema).safeParse(submitted);
    if (parsed.success) {
      waitSql.settle(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, null, row.resolved_by, this.host.clock.now());
      this.host.emit({ type: "HumanTaskSubmitted", nodeId: desc.nodeId, iteration: desc.iteration, submittedBy: row.resolved_by });
      return this.finish(entry, parsed.data as Record<string, unknown>);
    }
    const request = this.request(entry);
    const rejected = (request.rejected ?? 0) + 1;
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "(row)"}: ${i.message}`).join("; ");
    this.host.emit({ type: "HumanTaskRejected", nodeId: desc.nodeId, iteration: desc.iteration, attempt: rejected, issues });
    if (rejected >= spec.maxAttempts) {
      waitSql.settle(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, null, row.resolved_by, this.host.clock.now());
      this.host.fail(task, new FlowError("TASK_OUTPUT_INVALID", `HumanTask "${desc.nodeId}" got ${rejected} invalid submissions (maxAttempts ${spec.maxAttempts}); last: ${issues}`, { nodeId: desc.nodeId }));
      return true;
    }
    const reopened = { ...request, rejected, lastIssues: issues };
    waitSql.reopen(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, reopened);
    entry.row = { ...row, status: "pending", resolution_json: null, request_json: JSON.stringify(reopened) };
    return false;
  }

  /** The schema a signal's or event's payload must match (none: anything is taken). */
  private payloadSchema(spec: SignalWait, desc: NodeDescriptor) {
    return spec.kind === "signal" ? desc.outputSchema : desc.outputSchema ?? this.host.resolveTable(desc.outputTable).schema;
  }

  private async settleSignal(entry: Waiting, spec: SignalWait): Promise<boolean> {
    const desc = entry.task.desc;
    const { runId, store } = this.host;
    const now = this.host.clock.now();
    const schema = this.payloadSchema(spec, desc);
    const candidates = await signalSql.candidates(store, { kind: spec.kind, name: spec.name, runId, nodeId: desc.nodeId, iteration: desc.iteration, correlationId: spec.correlationId ?? null });
    for (const c of candidates) {
      const parsed = schema ? schema.safeParse(JSON.parse(c.payload_json)) : { success: true as const, data: JSON.parse(c.payload_json) };
      if (!parsed.success) continue;
      const mine = c.consumed_run_id === runId && c.consumed_node_id === desc.nodeId && Number(c.consumed_iteration) === desc.iteration;
      // Claimed in its own statement: once claimed, no other node can take it, and a crash
      // before the settle below finds it claimed by this node on resume.
      if (!mine && !(await signalSql.claim(store, c.delivery_id, runId, desc.nodeId, desc.iteration, now))) continue;
      waitSql.settle(this.host.batch, runId, desc.nodeId, desc.iteration, { deliveryId: c.delivery_id, data: parsed.data }, null, now);
      this.host.emit({ type: "SignalReceived", nodeId: desc.nodeId, iteration: desc.iteration, name: spec.name, deliveryId: c.delivery_id });
      if (spec.kind === "signal") {
        this.data.set(desc.nodeId, { resolved: true, value: parsed.data });
        this.host.requestRender();
        this.host.setState(entry.task, "finished");
        this.host.complete(entry.task);
        return true;
      }
      return this.finish(entry, parsed.data as Record<string, unknown>);
    }
    return this.timedOut(entry) ? this.timeout(entry, spec.onTimeout) : false;
  }

  private async settleTimer(entry: Waiting): Promise<boolean> {
    const fireAt = this.request(entry).fireAtMs ?? 0;
    if (fireAt > this.host.clock.now()) return false;
    const desc = entry.task.desc;
    waitSql.settle(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, { firedAtMs: this.host.clock.now() }, null, this.host.clock.now());
    this.host.emit({ type: "TimerFired", nodeId: desc.nodeId, iteration: desc.iteration, scheduledAtMs: fireAt });
    this.host.setState(entry.task, "finished");
    this.host.complete(entry.task);
    return true;
  }

  private finish(entry: Waiting, row: Record<string, unknown>): boolean {
    const desc = entry.task.desc;
    const table = this.host.resolveTable(desc.outputTable);
    const parsed = table.schema.safeParse(row);
    if (!parsed.success) {
      this.host.fail(entry.task, new FlowError("TASK_OUTPUT_INVALID", `"${desc.nodeId}" produced a row that does not match its "${desc.outputTable}" schema: ${parsed.error.message}`, { nodeId: desc.nodeId }));
      return true;
    }
    this.host.storeOutput(table, desc.nodeId, desc.iteration, parsed.data as Record<string, unknown>);
    this.host.setState(entry.task, "finished");
    this.host.complete(entry.task);
    return true;
  }

  private timeout(entry: Waiting, onTimeout: "fail" | "skip" | "continue"): boolean {
    const desc = entry.task.desc;
    const now = this.host.clock.now();
    waitSql.settle(this.host.batch, this.host.runId, desc.nodeId, desc.iteration, { timedOut: true, onTimeout }, null, now);
    this.host.emit({ type: "WaitTimedOut", nodeId: desc.nodeId, iteration: desc.iteration, onTimeout });
    if (onTimeout === "fail") {
      this.host.fail(entry.task, new FlowError("WAIT_TIMEOUT", `"${desc.nodeId}" waited longer than its timeoutMs (${desc.timeoutMs} ms).`, { nodeId: desc.nodeId, timeoutMs: desc.timeoutMs }));
      return true;
    }
    if (onTimeout === "continue") this.data.set(desc.nodeId, { resolved: true, value: undefined });
    this.host.setState(entry.task, onTimeout === "skip" ? "skipped" : "finished");
    this.host.complete(entry.task);
    if (onTimeout === "continue") this.host.requestRender();
    return true;
  }
}

/** A delivered approval decision (approve, select or rank). */
export interface ApprovalResolution {
  approved?: boolean;
  note?: string | null;
  selected?: string;
  ranked?: string[];
  notes?: string | null;
  decidedBy?: string | null;
  decidedAt?: string | null;
}

function outputOf(spec: ApprovalWait, d: ApprovalResolution): Record<string, unknown> {
  if (spec.mode === "select") return { selected: d.selected, notes: d.notes ?? null };
  if (spec.mode === "rank") return { ranked: d.ranked, notes: d.notes ?? null };
  return { approved: d.approved === true, note: d.note ?? null, decidedBy: d.decidedBy ?? null, decidedAt: d.decidedAt ?? null };
}

/**
 * What a wait row records at creation: what is asked, and when it is due; for a signal or an
 * event, the JSON Schema its payload must match (checked at delivery, payload-schema.ts).
 */
function requestOf(spec: WaitSpec, desc: NodeDescriptor, now: number, payloadSchema?: unknown): Record<string, unknown> & { autoAtMs?: number; timeoutAtMs?: number; fireAtMs?: number } {
  switch (spec.kind) {
    case "approval":
      return {
        mode: spec.mode,
        request: spec.request,
        ...(spec.options ? { options: spec.options } : {}),
        ...(spec.allowedScopes ? { allowedScopes: spec.allowedScopes } : {}),
        ...(spec.allowedUsers ? { allowedUsers: spec.allowedUsers } : {}),
        ...(spec.autoAfterMs !== undefined ? { autoAtMs: now + spec.autoAfterMs } : {}),
        ...(spec.timeoutMs !== undefined ? { timeoutAtMs: now + spec.timeoutMs } : {}),
        gatesTask: spec.gatesTask === true,
      };
    case "human":
      return { prompt: spec.prompt, outputTable: desc.outputTable, maxAttempts: spec.maxAttempts, ...(spec.timeoutMs !== undefined ? { timeoutAtMs: now + spec.timeoutMs } : {}) };
    case "signal":
    case "event": {
      const schema = recordedSchemaOf(payloadSchema);
      return { name: spec.name, ...(spec.timeoutMs !== undefined ? { timeoutAtMs: now + spec.timeoutMs } : {}), ...(schema ? { schema } : {}) };
    }
    case "timer":
      return { fireAtMs: spec.untilMs ?? now + (spec.durationMs ?? 0) };
  }
}

function earliest(...values: Array<number | undefined>): number | null {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return defined.length ? Math.min(...defined) : null;
}
