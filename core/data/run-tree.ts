/**
 * @module core/data/run-tree
 * Rows derived from a run's latest graph snapshot: the run tree (one row per task) and the
 * tickets of its `Kanban` boards (tasks `<board>:<ticket>:<column>` under the board's
 * `<board>:board` group, docs/components.md "Kanban"), with each task's node state.
 */
import type { GatewayRunRow } from "../api/index.js";
import type { GraphSnapshot } from "../engine/index.js";
import type { XmlNode } from "../jsx/index.js";
import { type GatewayRunTreeRow, type GatewayTicketRow, nodeKey, runNodeKey } from "./rows.js";

/**
 * The tasks of a snapshot as run-tree rows.
 * @example
 * const rows = runTreeRows(await api.getFrame(runId));
 */
export function runTreeRows(snapshot: GraphSnapshot): GatewayRunTreeRow[] {
  return snapshot.tasks.map((t) => ({ ...t, key: nodeKey(t), runId: snapshot.runId, frameNo: snapshot.frameNo }));
}

/**
 * The Kanban tickets of a run: one row per (ticket, column) task, with the task's state.
 * @example
 * const rows = ticketRows(await api.getFrame(runId), await api.getRun(runId));
 */
export function ticketRows(snapshot: GraphSnapshot, run: GatewayRunRow): GatewayTicketRow[] {
  const latest = new Map<string, GatewayRunRow["nodes"][number]>();
  for (const n of run.nodes) if ((latest.get(n.nodeId)?.iteration ?? -1) < n.iteration) latest.set(n.nodeId, n);
  const boards = new Set<string>();
  const visit = (node: XmlNode): void => {
    if (node.kind !== "element") return;
    if (node.props.id?.endsWith(":board")) boards.add(node.props.id.slice(0, -":board".length));
    node.children.forEach(visit);
  };
  if (snapshot.xml) visit(snapshot.xml);
  const rows: GatewayTicketRow[] = [];
  for (const task of snapshot.tasks) {
    const board = [...boards].find((b) => task.nodeId.startsWith(`${b}:`));
    if (board === undefined) continue;
    const rest = task.nodeId.slice(board.length + 1);
    const cut = rest.lastIndexOf(":");
    if (cut < 1) continue;
    const node = latest.get(task.nodeId);
    rows.push({
      key: runNodeKey({ runId: run.runId, nodeId: task.nodeId, iteration: task.iteration }),
      runId: run.runId,
      nodeId: task.nodeId,
      iteration: task.iteration,
      board,
      ticket: rest.slice(0, cut),
      column: rest.slice(cut + 1),
      state: node?.state ?? "pending",
      updatedAtMs: node?.updatedAtMs ?? run.updatedAtMs,
    });
  }
  return rows;
}
