/**
 * @module sync/team-writes
 * The domain API a team workspace's writes go through (docs/multiplayer.md "Writes and their
 * txids", "Offline"): each write is confirmed by the txid its shape brings (`awaitTxId`), so an
 * optimistic row is replaced by the synced one without a flicker.
 *
 * With a write queue (sync/write-queue.ts), a write made while the workspace cannot be reached
 * — or while earlier writes still wait, so the order holds — is checked against the member's
 * last known role and queued with a write id made here; the call resolves with a
 * `{ queued: true, writeId }` answer (`isQueued`). A write sent online carries a write id too:
 * when its answer is lost (the network dropped mid-request) it is queued under the same id and
 * the Gateway applies it once however often it arrives. The queue is delivered in order as
 * soon as the shapes answer again (or the browser says it is online).
 * Without a queue, a write made offline is refused with WORKSPACE_OFFLINE before anything is sent.
 */
import { safeRandomUUID } from "@tanstack/db";
import { HEADERS } from "../core/api/wire/index.js";
import { createDataApi, type DataApi, type GatewayApprovalRow, type GatewayRunSummaryRow, type LiveCollection, type MultiplayerWorkspaceMode } from "../core/data/index.js";
import { FlowError } from "../core/errors.js";
import type { ShapeCollectionUtils, ShapeHealth } from "./shape-collection.js";
import type { TeamShapeName } from "./team-shapes.js";
import { assertRoleAllows, notReached, type QueuedWrite, type QueuedWriteKind, type WriteQueue } from "./write-queue.js";

/** What a team Gateway adds to a write's answer: `{ <shape>: txid[] }`, in commit order. */
type WithTxids = { txids?: Partial<Record<TeamShapeName, number[]>> };

/** The answer of a write that was queued instead of sent. */
export interface QueuedAnswer {
  queued: true;
  writeId: string;
  /** A queued launch's or fork's run id (chosen here, so the run keeps it once sent). */
  runId?: string;
  status: "queued";
}

/**
 * Whether a write's answer says it was queued (the workspace could not be reached).
 * @example
 * const result = await cols.launch({ workflow: "release", input });
 * if (isQueued(result)) showPending(result.writeId);
 */
export function isQueued(result: unknown): result is QueuedAnswer {
  return (result as QueuedAnswer | null)?.queued === true;
}

/** What the team writes need. */
export interface TeamWritesContext {
  api: DataApi;
  mode: MultiplayerWorkspaceMode;
  fetch: typeof fetch;
  headers: Record<string, string>;
  cols: { runs: LiveCollection<GatewayRunSummaryRow>; approvals: LiveCollection<GatewayApprovalRow> };
  health: ShapeHealth;
  timeoutMs: number;
  queue?: WriteQueue;
  /** The member's role as last known (the queue refuses what it does not allow). */
  role?: () => string | undefined;
  /** True once the collections closed: queued writes are then left for the next page. */
  closed: () => boolean;
}

/** The shape a kind of write is confirmed by. */
const SHAPE_OF: Record<QueuedWriteKind, "runs" | "approvals"> = { launch: "runs", fork: "runs", cancel: "runs", signal: "runs", approve: "approvals", humanTask: "approvals" };

/**
 * The domain API of a team workspace's writes: confirmed by txid, queued while offline.
 * @example
 * const api = teamWrites({ api: data.api, mode, fetch, headers, cols: { runs, approvals }, health, timeoutMs: 10_000, queue });
 */
export function teamWrites(ctx: TeamWritesContext): DataApi & { submitHumanTask: DataApi["submitHumanTask"] } {
  const { api, health, mode, queue } = ctx;
  const offline = () => health.offline || (typeof navigator !== "undefined" && navigator.onLine === false);
  const refuseOffline = (what: string) => {
    if (!offline()) return;
    const browserOffline = typeof navigator !== "undefined" && navigator.onLine === false;
    const why = browserOffline ? "this browser is offline" : `its shapes cannot be reached (${(health.lastError as Error | undefined)?.message ?? "no answer"})`;
    throw new FlowError("WORKSPACE_OFFLINE", `${what} was not sent: workspace "${mode.workspaceId}" is offline (${why}). Nothing was changed; try again once the connection is back.`, { workspaceId: mode.workspaceId });
  };
  const confirm = async <R>(result: R, shape: "runs" | "approvals"): Promise<R> => {
    const txid = (result as WithTxids | null)?.txids?.[shape]?.[0];
    const collection = ctx.cols[shape] as unknown as { status: string; utils: ShapeCollectionUtils };
    if (typeof txid === "number" && collection.status === "ready") await collection.utils.awaitTxId(txid, ctx.timeoutMs).catch(() => false);
    return result;
  };
  /** The API with `flow-write-id: <writeId>` on its requests. */
  const withWriteId = (writeId: string) =>
    createDataApi({
      mode,
      headers: { ...ctx.headers, [HEADERS.writeId]: writeId },
      fetch: ctx.fetch,
      signal: new AbortController().signal,
    });
  const call = (a: DataApi, kind: QueuedWriteKind, p: Record<string, unknown>): Promise<unknown> => {
    if (kind === "launch") return a.launchRun(p as Parameters<DataApi["launchRun"]>[0]);
    if (kind === "fork") return a.forkRun(p as Parameters<DataApi["forkRun"]>[0]);
    if (kind === "cancel") return a.cancelRun(p.runId as string);
    if (kind === "approve") return a.submitApproval(p as Parameters<DataApi["submitApproval"]>[0]);
    if (kind === "humanTask") return a.submitHumanTask(p as Parameters<DataApi["submitHumanTask"]>[0]);
    return a.submitSignal(p as Parameters<DataApi["submitSignal"]>[0]);
  };
  const send = async (write: Pick<QueuedWrite, "writeId" | "kind" | "params">) => confirm(await call(withWriteId(write.writeId), write.kind, write.params), SHAPE_OF[write.kind]);
  /** A queued write is sent once the Gateway answered; its txid is awaited while the next is sent (the queue lists it as sent meanwhile). */
  const sendQueued = (write: QueuedWrite) => call(withWriteId(write.writeId), write.kind, write.params);
  const confirmQueued = (write: QueuedWrite, answer: unknown) => confirm(answer, SHAPE_OF[write.kind]);

  /** Sends now, or queues: offline, behind waiting writes, or when the answer is lost. */
  async function write<R>(kind: QueuedWriteKind, params: Record<string, unknown>, what: string): Promise<R> {
    if (!queue) {
      refuseOffline(what);
      return confirm((await call(api, kind, params)) as R, SHAPE_OF[kind]);
    }
    const role = ctx.role?.();
    const enqueue = async (writeId?: string) => {
      const queued = await queue.add(kind, params, what, { ...(role ? { role } : {}), ...(writeId ? { writeId } : {}) });
      if (!offline()) void deliver();
      const runId = kind === "launch" ? params.runId : kind === "fork" ? params.newRunId : undefined;
      return { queued: true, writeId: queued.writeId, status: "queued", ...(typeof runId === "string" ? { runId } : {}) } as R;
    };
    if (offline() || queue.waiting > 0) {
      assertRoleAllows(role, kind, what);
      return enqueue();
    }
    const writeId = safeRandomUUID();
    try {
      return (await send({ writeId, kind, params })) as R;
    } catch (error) {
      if (!notReached(error)) throw error;
      assertRoleAllows(role, kind, what);
      return enqueue(writeId);
    }
  }

  // Delivery stops at a write that does not get through; it is tried again every second while
  // writes wait (a failed try costs one refused connection), so a reconnect is noticed even
  // when neither the shapes' backoff nor the browser's `online` event says so soon.
  let retry: ReturnType<typeof setTimeout> | undefined;
  const deliver = async (): Promise<void> => {
    if (!queue) return;
    clearTimeout(retry);
    await queue.deliver(sendQueued, confirmQueued);
    if (queue.waiting > 0 && !ctx.closed()) retry = setTimeout(() => void deliver(), 1000);
  };
  if (queue) {
    // Back online: the waiting writes go, in order. Also at start (a tab reopened with writes left).
    health.onChange((isOffline) => void (!isOffline && deliver()));
    if (typeof addEventListener === "function") addEventListener("online", () => void deliver());
    void queue.open().then(() => void (queue.waiting > 0 && deliver()));
  }

  return {
    ...api,
    launchRun: (p) => write("launch", { ...p, runId: p.runId ?? safeRandomUUID() }, `Launching ${p.workflow}`),
    // The new run's id is chosen here, as for a launch, so a queued fork keeps it once sent.
    forkRun: (p) => write("fork", { ...p, newRunId: p.newRunId ?? safeRandomUUID() }, `Forking run ${p.runId} from "${p.nodeId}"`),
    cancelRun: (runId) => write("cancel", { runId }, `Cancelling run ${runId}`),
    submitApproval: (p) => write("approve", p as Record<string, unknown>, `${p.decision === "deny" ? "Denying" : p.decision === "approve" ? "Approving" : "The decision on"} "${p.nodeId}" of run ${p.runId}`),
    submitSignal: (p) => write("signal", p as Record<string, unknown>, `Signal "${p.name}"`),
    submitHumanTask: (p) => write("humanTask", p as Record<string, unknown>, `The answer to "${p.nodeId}" of run ${p.runId}`),
  };
}
