/**
 * @module ui/views/run-detail/run-data
 * The live rows the run detail view reads, all from the workspace's collections
 * (core/data): the run, its nodes with attempts, the latest frame's tasks, the event log, its
 * pending approvals and its child runs; plus the frame's structure (the XML of Sequence,
 * Parallel, Loop, Branch...), fetched again whenever a new frame shows in the tree.
 */
import { eq, useLiveQuery } from "@tanstack/solid-db";
import { type Accessor, createMemo, createResource } from "solid-js";
import type { GatewayRunEventRow, GatewayRunNode, GatewayRunRow, GatewayRunTreeRow } from "../../../core/data/index.js";
import type { XmlNode } from "../../../core/jsx/index.js";
import { createRowsOf } from "../../components/collection-rows.js";
import { lastAnswer } from "../../components/last-answer.js";
import { useConnection } from "../../flow-context.js";

/** Everything the view shows of one run, live. */
export type RunData = ReturnType<typeof useRunData>;

/**
 * Live queries of one run.
 * @example
 * const data = useRunData(() => params.runId);
 * <Show when={data.run()}>{(run) => <RunHeader run={run()} />}</Show>
 */
export function useRunData(runId: Accessor<string>) {
  const conn = useConnection();
  const { cols } = conn;
  // The run's own collections are read as their rows (plain, not a live query's store): a live
  // run changes them at every task, and reconciling each change into a deep store was a fifth
  // of the page's time (docs/performance.md "A live run's timeline").
  const runRows = createRowsOf(() => cols.run(runId()));
  const nodeRows = createRowsOf(() => cols.nodes(runId()));
  const treeRows = createRowsOf(() => cols.runTree(runId()), (a, b) => a.ordinal - b.ordinal);
  const eventRows = createRowsOf(() => cols.runEvents(runId()), (a, b) => a.seq - b.seq);
  const approvalsQ = useLiveQuery((q) => q.from({ a: cols.approvals }).where(({ a }) => eq(a.runId, runId())));
  const childrenQ = useLiveQuery((q) => q.from({ r: cols.runs }).where(({ r }) => eq(r.parentRunId, runId())));
  const listedQ = useLiveQuery((q) => q.from({ r: cols.runs }).where(({ r }) => eq(r.runId, runId())));

  /**
   * No gateway answered for the run and this browser never opened it (core/data/last-seen.ts
   * `unseen`): its tasks and events are not here until the workspace answers again.
   */
  const unseen = () => conn.lastSeen?.isUnseen(cols.run(runId()).id) === true;
  /** The run row once loaded (undefined while loading or when it failed); unseen, the runs list's row of it. */
  const run = createMemo<GatewayRunRow | undefined>(() => {
    const rows = runRows();
    if (!rows?.isReady) return undefined;
    const row = rows()[0];
    if (row || !unseen()) return row;
    const listed = listedQ.isReady ? listedQ()[0] : undefined;
    return listed ? { ...listed, output: null, auth: null, nodes: [], frameNo: 0, lastSeq: 0 } : undefined;
  });
  const nodes = (): GatewayRunNode[] => nodeRows()?.() ?? [];
  const tasks = (): GatewayRunTreeRow[] => treeRows()?.() ?? [];
  const events = (): GatewayRunEventRow[] => eventRows()?.() ?? [];
  const frameNo = createMemo(() => tasks()[0]?.frameNo ?? 0);
  // Keyed by a string, so a refresh of the same frame does not fetch it again.
  const [structure] = createResource(
    () => (frameNo() > 0 ? `${frameNo()}\u0000${runId()}` : undefined),
    async (key): Promise<XmlNode | null> => {
      const [n, id] = key.split("\u0000") as [string, string];
      return (await cols.data.api.getFrame(id, Number(n))).xml;
    },
  );
  /** The error that kept the run from loading (RUN_NOT_FOUND, GATEWAY_UNAVAILABLE...). */
  const loadError = (): unknown => (runRows()?.isError ? (cols.run(runId()).utils.lastError ?? new Error(`Run ${runId()} could not be loaded.`)) : undefined);

  return {
    cols,
    runId,
    run,
    nodes,
    tasks,
    events,
    frameNo,
    /** The latest frame's XML (null while none is loaded or it failed: the tree then lists tasks flat). */
    structure: () => lastAnswer(structure) ?? null,
    approvals: () => (approvalsQ.isReady ? approvalsQ() : []),
    children: () => (childrenQ.isReady ? [...childrenQ()].sort((a, b) => a.createdAtMs - b.createdAtMs) : []),
    loading: () => !runRows()?.isReady && !runRows()?.isError,
    loadError,
    /** The workspace answered and has no such run (a link of another workspace, or a wrong one). */
    missing: () => runRows()?.isReady === true && runRows()!().length === 0 && !unseen(),
    unseen,
    /** This browser's engine is still opening its database (the run is looked for once it has). */
    opening: () => conn.engineReady !== undefined && !conn.engineReady(),
    eventsLoading: () => !eventRows()?.isReady && !eventRows()?.isError,
    treeLoading: () => !treeRows()?.isReady && !treeRows()?.isError,
  };
}
