/**
 * @module sync/source-multiplayer
 * The `multiplayer` WorkspaceMode (SPEC.md "Data layer"; docs/multiplayer.md): the
 * collections every member of a team workspace shares change live for all of them because
 * they read Electric shapes through the Gateway's proxy — `runs` and `approvals` — with the
 * same ids, row types and keys as `local` mode. The per-run and other collections (nodes,
 * events, run tree, workflows, crons, ...) read the domain API as in `local` mode; the
 * per-run ones follow the workspace's `nodes` shape, so a task that changes on any Gateway of
 * the workspace (not only the member's own, whose change stream knows its own runs alone)
 * refetches the open run's collections at once (docs/multiplayer.md "Following a run").
 *
 * Writes go through the same domain API. A team Gateway answers each with the txids of the
 * transactions that changed each shape (node/sync/sync-txids.ts); the write settles once
 * the shape brought the first of them (`awaitTxId`), so an optimistic row is replaced by the
 * synced one without a flicker. A txid that does not arrive in time does not fail the write:
 * the write is durable, and the row shows when the shape catches up.
 *
 * Offline: while the shapes cannot be reached (or the browser says it is offline) writes are
 * refused with WORKSPACE_OFFLINE before anything is sent — never queued, never lost silently.
 */
import type { QueryClient } from "@tanstack/query-core";
import { createCollections, type FlowCollections } from "../core/data/collections.js";
import type { DataApi } from "../core/data/data-api.js";
import type { DataClient } from "../core/data/data-client.js";
import { assertMultiplayerMode, mergeHeaders, type MultiplayerWorkspaceMode } from "../core/data/mode.js";
import type { LiveCollection } from "../core/data/query-collection.js";
import type { GatewayApprovalRow, GatewayRunSummaryRow } from "../core/data/rows.js";
import { type CollectionSource, type CollectionsOptions, localSource } from "../core/data/source.js";
import { FlowError } from "../core/errors.js";
import { ShapeHealth, shapeCollection, type ShapeCollectionUtils } from "./shape-collection.js";
import { approvalFromShape, runFromShape, type ShapeRow, shapeRowContext } from "./shape-rows.js";
import type { TeamShapeName } from "./team-shapes.js";

/** What a team Gateway adds to a write's answer: `{ <shape>: txid[] }`, in commit order. */
type WithTxids = { txids?: Partial<Record<TeamShapeName, number[]>> };

/**
 * The live collections of a team workspace (`createCollections` of `durable-flow/data` with
 * the multiplayer factory): `runs` and `approvals` from Electric shapes, the rest from the
 * domain API.
 * @example
 * import { createTeamCollections } from "durable-flow/sync";
 * const cols = createTeamCollections({ kind: "multiplayer", apiBaseUrl: origin, electricBaseUrl: `${origin}/sync`, workspaceId: "acme", token }, new QueryClient());
 */
export function createTeamCollections(source: MultiplayerWorkspaceMode | DataClient, queryClient: QueryClient, options: Omit<CollectionsOptions, "sourceFactory"> = {}): FlowCollections {
  return createCollections(source, queryClient, { ...options, sourceFactory: multiplayerSource });
}

/**
 * `multiplayer` mode: `runs` and `approvals` from Electric shapes, the rest from the domain API.
 * @example
 * const cols = createCollections(mode, new QueryClient(), { sourceFactory: multiplayerSource });
 */
export function multiplayerSource(data: DataClient, queryClient: QueryClient, opts: CollectionsOptions): CollectionSource {
  const mode = data.mode;
  assertMultiplayerMode(mode);
  const base = localSource(data, queryClient, opts);
  const health = new ShapeHealth(opts.fetch ?? globalThis.fetch.bind(globalThis));
  const headers = Object.fromEntries(mergeHeaders(mode, opts.headers).entries());
  const shapeUrl = (shape: TeamShapeName) => `${mode.electricBaseUrl.replace(/\/$/, "")}/${encodeURIComponent(mode.workspaceId)}/${shape}`;
  const id = (name: string) => `flow:${mode.apiBaseUrl}:${name}`;
  // A run no Gateway annotated is known by its workflow's name, as a Gateway knows it
  // (core/api/run-rows.ts); the runs shape starts once the workspace's workflows are read.
  const workflowKeyOfName = (name: string) => (base.workflows.status === "ready" ? base.workflows.toArray.find((w) => w.name === name)?.key : undefined);
  const rowContext = shapeRowContext(workflowKeyOfName);
  const runs = shapeCollection<GatewayRunSummaryRow>({ id: id("runs"), url: shapeUrl("runs"), headers, health, toRow: (row) => runFromShape(row, rowContext), getKey: (r) => r.runId, before: () => base.workflows.preload().catch(() => undefined) });
  const approvals = shapeCollection<GatewayApprovalRow>({ id: id("approvals"), url: shapeUrl("approvals"), headers, health, toRow: approvalFromShape, getKey: (a) => a.key });
  const api = confirmingApi(data.api, { runs, approvals }, health, mode.workspaceId, opts.confirmTimeoutMs ?? 10_000);
  const tasks = shapeCollection<ShapeRow>({ id: id("nodes"), url: shapeUrl("nodes"), headers, health, toRow: (r) => r, getKey: (r) => `${String(r.run_id)}/${String(r.node_id)}#${String(r.iteration)}` });
  const follow = followTasks(tasks, base);
  return {
    ...base,
    run: (runId) => follow(base.run(runId)),
    nodes: (runId) => follow(base.nodes(runId)),
    runEvents: (runId) => follow(base.runEvents(runId)),
    runTree: (runId) => follow(base.runTree(runId)),
    tickets: (runId) => follow(base.tickets(runId)),
    runs,
    approvals,
    confirmsWrites: true,
    replicated: new Set(["runs", "approvals"]),
    writeClient: {
      mode,
      api,
      stream: data.stream,
      get closed() {
        return data.closed;
      },
      close: () => data.close(),
    },
    all: () => [runs, approvals, tasks, ...base.all().filter((c) => c !== base.runs && c !== base.approvals)],
  };
}

/**
 * Follows the workspace's tasks: from the first per-run collection on, every change of the
 * `nodes` shape (a task started, finished, failed... on any Gateway) refetches the per-run
 * collections built for that run. Returns the wrapper of those collections.
 * @example
 * const follow = followTasks(nodesShape, base);
 * const nodes = follow(base.nodes(runId));
 */
function followTasks(nodes: LiveCollection<ShapeRow>, base: CollectionSource): <C>(collection: C) => C {
  let following = false;
  return (collection) => {
    if (!following) {
      following = true;
      nodes.subscribeChanges((changes) => {
        const runIds = new Set(changes.map((c) => String(c.value.run_id)));
        for (const runId of runIds) for (const c of base.perRun(runId).values()) void c.utils.refetch().catch(() => undefined);
      });
      void nodes.preload().catch(() => undefined);
    }
    return collection;
  };
}

/**
 * The domain API the writes use: refused while offline, confirmed by the shapes' txids.
 * @example
 * const api = confirmingApi(data.api, { runs, approvals }, health, "acme", 10_000);
 */
function confirmingApi(api: DataApi, cols: { runs: LiveCollection<GatewayRunSummaryRow>; approvals: LiveCollection<GatewayApprovalRow> }, health: ShapeHealth, workspaceId: string, timeoutMs: number): DataApi {
  const refuseOffline = (what: string) => {
    const browserOffline = typeof navigator !== "undefined" && navigator.onLine === false;
    if (!health.offline && !browserOffline) return;
    const why = browserOffline ? "this browser is offline" : `its shapes cannot be reached (${(health.lastError as Error | undefined)?.message ?? "no answer"})`;
    throw new FlowError("WORKSPACE_OFFLINE", `${what} was not sent: workspace "${workspaceId}" is offline (${why}). Nothing was changed; try again once the connection is back.`, { workspaceId });
  };
  const confirm = async <R>(result: R, shape: "runs" | "approvals"): Promise<R> => {
    const txid = (result as WithTxids | null)?.txids?.[shape]?.[0];
    const collection = cols[shape] as unknown as { status: string; utils: ShapeCollectionUtils };
    if (typeof txid === "number" && collection.status === "ready") await collection.utils.awaitTxId(txid, timeoutMs).catch(() => false);
    return result;
  };
  return {
    ...api,
    async launchRun(p) {
      refuseOffline(`Launching ${p.workflow}`);
      return confirm(await api.launchRun(p), "runs");
    },
    async cancelRun(runId) {
      refuseOffline(`Cancelling run ${runId}`);
      return confirm(await api.cancelRun(runId), "runs");
    },
    async submitApproval(p) {
      refuseOffline(`The decision on "${p.nodeId}" of run ${p.runId}`);
      return confirm(await api.submitApproval(p), "approvals");
    },
    async submitSignal(p) {
      refuseOffline(`Signal "${p.name}"`);
      return confirm(await api.submitSignal(p), "runs");
    },
  };
}
