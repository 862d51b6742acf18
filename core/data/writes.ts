/**
 * @module core/data/writes
 * The registry's writes — `launch`, `cancel`, `approve`, `signal`, `answer` — as optimistic TanStack DB
 * transactions: the change shows in the collections at once (a new `running` row, a run
 * `cancelled`, an approval gone from the inbox, a waiting run `running`), the domain API is
 * called, and the transaction settles only once the change stream's refresh brought the
 * confirmed rows (core/data/live-sync.ts), so nothing flickers back. A refused call rolls the
 * optimistic change back and throws the gateway's error. When no confirmation comes within
 * `confirmTimeoutMs` (the stream is down), the rows are refetched directly instead.
 */
import { createTransaction, safeRandomUUID } from "@tanstack/db";
import type { RpcParams, RpcResult } from "../client/index.js";
import type { DataClient } from "./data-client.js";
import type { AppliedRefresh, LiveSync } from "./live-sync.js";
import { type GatewayRunSummaryRow, runNodeKey } from "./rows.js";
import { ANNOTATIONS, annotatedWorkflowKey, runSummaryOf } from "../api/wire/index.js";
import type { CollectionSource } from "./source.js";

/**
 * Optimistic writes of a registry.
 * @example
 * const { runId } = await cols.launch({ workflow: "greet", input: { name: "ada" } });
 * await cols.cancel(runId);
 */
export interface DataWrites {
  /** Launches a run: a `running` row appears in `runs` at once (with the run id this call picks unless `runId` is given). */
  launch(params: RpcParams<"launchRun">): Promise<RpcResult<"launchRun">>;
  /** Forks a run from a task attempt (`forkRun`): the new run shows in `runs` once its first row arrives. */
  fork(params: RpcParams<"forkRun">): Promise<RpcResult<"forkRun">>;
  /** Cancels a run: its row shows `cancelled` at once. */
  cancel(runId: string): Promise<RpcResult<"cancelRun">>;
  /** Decides an approval: it leaves `approvals` at once. */
  approve(params: RpcParams<"submitApproval">): Promise<RpcResult<"submitApproval">>;
  /** Delivers a signal: a run waiting for an event shows `running` at once. */
  signal(params: RpcParams<"submitSignal">): Promise<RpcResult<"submitSignal">>;
  /** Answers a human task with its row: it leaves `approvals` at once. */
  answer(params: Parameters<DataClient["api"]["submitHumanTask"]>[0]): Promise<RpcResult<"submitApproval">>;
}

const ENDED = new Set(["finished", "failed", "cancelled", "continued"]);

/**
 * The writes of a registry.
 * @example
 * const writes = createWrites(data, cols, sync, 10_000);
 */
export function createWrites(data: DataClient, cols: CollectionSource, sync: LiveSync, confirmTimeoutMs: number): DataWrites {
  const api = data.api;

  /**
   * Calls the API, then waits until a refresh the change stream triggered shows the change:
   * `shows(applied)` is checked against the refreshes applied after the call was sent (the
   * change may arrive before the answer) and every later one. Without one in time, the
   * target is refreshed directly.
   */
  async function confirmed<R>(call: () => Promise<R>, shows: (a: AppliedRefresh, result: R) => boolean, target: Parameters<LiveSync["invalidate"]>[0]): Promise<R> {
    // A source whose write client settles each write itself (multiplayer: on the txid reaching
    // the shape, sync/source-multiplayer.ts) needs no change-stream refresh on top.
    if (cols.confirmsWrites) return call();
    const seen: AppliedRefresh[] = [];
    let check: ((a: AppliedRefresh) => void) | undefined;
    const off = sync.onApplied((a) => (check ? check(a) : seen.push(a)));
    try {
      const result = await call();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => void sync.invalidate(target).finally(resolve), confirmTimeoutMs);
        check = (a) => {
          if (shows(a, result)) {
            clearTimeout(timer);
            resolve();
          }
        };
        seen.forEach(check);
      });
      return result;
    } finally {
      off();
    }
  }

  /** Applies `change` optimistically (when given) and settles once `persist` did. */
  async function optimistic<R>(change: (() => void) | undefined, persist: () => Promise<R>): Promise<R> {
    if (!change) return persist();
    let result!: R;
    const tx = createTransaction({
      mutationFn: async () => {
        result = await persist();
      },
    });
    tx.mutate(change);
    await tx.isPersisted.promise;
    return result;
  }

  /** Removes a decided item from the inbox (optimistic), when it is there. */
  const leaveInbox = (p: { runId: string; nodeId: string; iteration?: number }) => {
    const approvals = cols.approvals.status === "ready" ? cols.approvals.toArray : [];
    const pending = approvals.find((a) => a.runId === p.runId && a.nodeId === p.nodeId && (p.iteration === undefined || a.iteration === p.iteration));
    return pending ? () => cols.approvals.delete(runNodeKey(pending)) : undefined;
  };
  const readyRun = (runId: string) => (cols.runs.status === "ready" ? cols.runs.get(runId) : undefined);
  const runShows = (runId: string, ok: (row: GatewayRunSummaryRow) => boolean) => (a: AppliedRefresh) => a.kind === "run" && a.runId === runId && a.row !== undefined && ok(a.row);

  return {
    launch(params) {
      const runId = params.runId ?? safeRandomUUID(); // crypto.randomUUID is missing on plain-http pages
      const now = Date.now();
      const show = cols.runs.status === "ready" && !cols.runs.has(runId);
      // The row the launch will store, through the mapper every reader of runs uses (core/api/run-rows.ts).
      const startedBy = params.options?.startedBy;
      const annotations = { ...params.options?.annotations, [ANNOTATIONS.workflow]: params.workflow, ...(startedBy ? { [ANNOTATIONS.startedBy]: JSON.stringify(startedBy) } : {}) };
      const workflowName = (cols.workflows.status === "ready" ? cols.workflows.get(params.workflow)?.name : null) ?? null;
      const stored = { runId, annotations, workflowName, status: "running", parentRunId: null, nextRunId: null, error: null, input: params.input ?? {}, createdAtMs: now, updatedAtMs: now, finishedAtMs: null, pauseReason: null } as const;
      const row = runSummaryOf(stored, null, { workflowKeyOf: annotatedWorkflowKey, ownerOf: () => "live" }) as GatewayRunSummaryRow;
      return optimistic(show ? () => cols.runs.insert(row) : undefined, () => confirmed(() => api.launchRun({ ...params, runId }), runShows(runId, () => true), { runId }));
    },
    fork(params) {
      // The new run's id is chosen here (as for a launch), so a write client that queues it offline keeps it.
      const newRunId = params.newRunId ?? safeRandomUUID();
      return confirmed(() => api.forkRun({ ...params, newRunId }), runShows(newRunId, () => true), { runId: newRunId });
    },
    cancel(runId) {
      const row = readyRun(runId);
      const change = row && !ENDED.has(row.status) ? () => cols.runs.update(runId, (d) => void (d.status = "cancelled")) : undefined;
      return optimistic(change, () => confirmed(() => api.cancelRun(runId), (a, r) => runShows(runId, (row) => row.status === r.status)(a), { runId }));
    },
    approve(params) {
      return optimistic(leaveInbox(params), () => confirmed(() => api.submitApproval(params), (a) => a.kind === "collection" && a.name === "approvals", { collection: "approvals" }));
    },
    answer(params) {
      return optimistic(leaveInbox(params), () => confirmed(() => api.submitHumanTask(params), (a) => a.kind === "collection" && a.name === "approvals", { collection: "approvals" }));
    },
    signal(params) {
      const runId = params.runId;
      if (!runId) return api.submitSignal(params);
      const change = readyRun(runId)?.status === "waiting-event" ? () => cols.runs.update(runId, (d) => void (d.status = "running")) : undefined;
      return optimistic(change, () => confirmed(() => api.submitSignal(params), runShows(runId, (row) => row.status !== "waiting-event"), { runId }));
    },
  };
}
