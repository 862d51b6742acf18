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
 * Offline (`TeamOfflineOptions`): the shapes' rows and resume points are kept in the browser
 * (sync/shape-cache.ts), so the collections open with the last-synced rows at once; writes are
 * queued durably and sent in order when the workspace answers again (sync/team-writes.ts,
 * sync/write-queue.ts). Without those options, writes made offline are refused with
 * WORKSPACE_OFFLINE before anything is sent — never lost silently.
 */
import type { QueryClient } from "@tanstack/query-core";
import {
  assertMultiplayerMode,
  type CollectionSource,
  type CollectionsOptions,
  createCollections,
  type DataClient,
  type FlowCollections,
  type GatewayApprovalRow,
  type GatewayRunSummaryRow,
  type LastSeenStore,
  type LiveCollection,
  localSource,
  mergeHeaders,
  type MultiplayerWorkspaceMode,
  runNodeKey,
} from "../core/data/index.js";
import { ShapeHealth, shapeCollection } from "./shape-collection.js";
import { approvalFromShape, nodeFromShape, runFromShape, type ShapeNodeRow, type ShapeRow, shapeRowContext } from "./shape-rows.js";
import type { TeamShapeName } from "./team-shapes.js";
import { teamWrites } from "./team-writes.js";
import type { WriteQueue } from "./write-queue.js";

/**
 * What lets a team workspace work offline (docs/multiplayer.md "Offline").
 * @example
 * const offline: TeamOfflineOptions = { shapes: lastSeen, queue: new WriteQueue(store, "https://flow.example.com#acme"), role: () => "approve" };
 */
export interface TeamOfflineOptions {
  /** Keeps the shapes' rows and resume points (the app: IndexedDB, ui/workspace/last-seen.ts). */
  shapes?: LastSeenStore;
  /** Queues writes made offline and sends them when back. */
  queue?: WriteQueue;
  /** The member's role as last known at sign-in: the queue refuses what it does not allow (see `userId`). */
  role?: () => string | undefined;
  /**
   * The member's user id (`ext.workspace.list` answers it). Given, the workspace's `members`
   * shape is kept too, and the queue checks the role it last brought for this user (a change
   * that arrived before going offline counts), falling back to `role` before it first synced.
   */
  userId?: string;
}

/**
 * The live collections of a team workspace (`createCollections` of `durable-flow/data` with
 * the multiplayer factory): `runs` and `approvals` from Electric shapes, the rest from the
 * domain API.
 * @example
 * import { createTeamCollections } from "durable-flow/sync";
 * const cols = createTeamCollections({ kind: "multiplayer", apiBaseUrl: origin, electricBaseUrl: `${origin}/sync`, workspaceId: "acme", token }, new QueryClient());
 */
export function createTeamCollections(source: MultiplayerWorkspaceMode | DataClient, queryClient: QueryClient, options: Omit<CollectionsOptions, "sourceFactory"> = {}, offline: TeamOfflineOptions = {}): FlowCollections {
  return createCollections(source, queryClient, { ...options, sourceFactory: (d, q, o) => multiplayerSource(d, q, o, offline) });
}

/**
 * `multiplayer` mode: `runs` and `approvals` from Electric shapes, the rest from the domain API.
 * @example
 * const cols = createCollections(mode, new QueryClient(), { sourceFactory: multiplayerSource });
 */
export function multiplayerSource(data: DataClient, queryClient: QueryClient, opts: CollectionsOptions, offline: TeamOfflineOptions = {}): CollectionSource {
  const mode = data.mode;
  assertMultiplayerMode(mode);
  const base = localSource(data, queryClient, opts);
  const health = new ShapeHealth(opts.fetch ?? globalThis.fetch.bind(globalThis));
  const headers = Object.fromEntries(mergeHeaders(mode, opts.headers).entries());
  const shapeUrl = (shape: TeamShapeName) => `${mode.electricBaseUrl.replace(/\/$/, "")}/${encodeURIComponent(mode.workspaceId)}/${shape}`;
  const id = (name: string) => `flow:${mode.apiBaseUrl}:${name}`;
  const cache = offline.shapes ? { cache: offline.shapes } : {};
  // A run no Gateway annotated is known by its workflow's name, as a Gateway knows it
  // (core/api/run-rows.ts); the runs shape starts once the workspace's workflows are read.
  const workflowKeyOfName = (name: string) => (base.workflows.status === "ready" ? base.workflows.toArray.find((w) => w.name === name)?.key : undefined);
  const rowContext = shapeRowContext(workflowKeyOfName);
  const runs = shapeCollection<GatewayRunSummaryRow>({ id: id("runs"), url: shapeUrl("runs"), headers, health, toRow: (row) => runFromShape(row, rowContext), getKey: (r) => r.runId, before: () => base.workflows.preload().catch(() => undefined), ...cache });
  const approvals = shapeCollection<GatewayApprovalRow>({ id: id("approvals"), url: shapeUrl("approvals"), headers, health, toRow: approvalFromShape, getKey: (a) => a.key, ...cache });
  // Who holds which role, as last synced (kept like the other shapes): the role the queue checks.
  const members = shapeCollection<ShapeRow>({ id: id("members"), url: shapeUrl("members"), headers, health, toRow: (r) => r, getKey: (r) => String(r.user_id), ...cache });
  const userId = offline.userId;
  if (userId !== undefined) void members.preload().catch(() => undefined);
  const role = (): string | undefined => {
    const mine = userId !== undefined && members.status === "ready" ? members.get(userId) : undefined;
    return typeof mine?.role === "string" ? mine.role : offline.role?.();
  };
  const api = teamWrites({
    api: data.api,
    mode,
    fetch: opts.fetch ?? globalThis.fetch.bind(globalThis),
    headers: opts.headers ?? {},
    cols: { runs, approvals },
    health,
    timeoutMs: opts.confirmTimeoutMs ?? 10_000,
    closed: () => data.closed,
    ...(offline.queue ? { queue: offline.queue } : {}),
    ...(offline.role || userId !== undefined ? { role } : {}),
  });
  const tasks = shapeCollection<ShapeNodeRow>({ id: id("nodes"), url: shapeUrl("nodes"), headers, health, toRow: nodeFromShape, getKey: (n) => runNodeKey({ runId: n.runId!, nodeId: n.nodeId!, iteration: n.iteration! }), ...cache });
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
    all: () => [runs, approvals, tasks, members, ...base.all().filter((c) => c !== base.runs && c !== base.approvals)],
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
function followTasks(nodes: LiveCollection<ShapeNodeRow>, base: CollectionSource): <C>(collection: C) => C {
  let following = false;
  return (collection) => {
    if (!following) {
      following = true;
      nodes.subscribeChanges((changes) => {
        const runIds = new Set(changes.map((c) => String(c.value.runId)));
        for (const runId of runIds) for (const c of base.perRun(runId).values()) void c.utils.refetch().catch(() => undefined);
      });
      void nodes.preload().catch(() => undefined);
    }
    return collection;
  };
}
