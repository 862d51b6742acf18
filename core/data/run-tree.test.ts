import { describe, expect, it } from "vitest";
import type { GatewayRunRow } from "../api/read-model.js";
import type { GraphSnapshot } from "../engine/types.js";
import { runTreeRows, ticketRows } from "./run-tree.js";

const task = (nodeId: string) => ({ nodeId, ordinal: 0, iteration: 0, outputTable: "o", outputTableName: "o", needsApproval: false });
const el = (tag: string, id: string, children: GraphSnapshot["xml"][] = []) => ({ kind: "element" as const, tag, props: { id }, children: children as never });

describe("rows of a run's graph snapshot", () => {
  const snapshot: GraphSnapshot = {
    runId: "r1",
    frameNo: 4,
    xml: el("flow:workflow", "wf", [el("flow:sequence", "issues:group", [el("flow:parallel", "issues:board", [el("flow:sequence", "issues:T-1", [el("flow:task", "issues:T-1:triage"), el("flow:task", "issues:T-1:fix")])])]), el("flow:task", "report")]),
    tasks: [task("issues:T-1:triage"), task("issues:T-1:fix"), task("report")] as GraphSnapshot["tasks"],
  };
  const run = { runId: "r1", updatedAtMs: 5, nodes: [{ nodeId: "issues:T-1:triage", iteration: 0, state: "finished", updatedAtMs: 9 }] } as unknown as GatewayRunRow;

  it("keys each task by node and iteration, with the run and frame", () => {
    expect(runTreeRows(snapshot).map((r) => [r.key, r.runId, r.frameNo])).toEqual([
      ["issues:T-1:triage#0", "r1", 4],
      ["issues:T-1:fix#0", "r1", 4],
      ["report#0", "r1", 4],
    ]);
  });

  it("finds the Kanban boards' tickets per column, with each task's state", () => {
    expect(ticketRows(snapshot, run)).toEqual([
      { key: "r1/issues:T-1:triage#0", runId: "r1", nodeId: "issues:T-1:triage", iteration: 0, board: "issues", ticket: "T-1", column: "triage", state: "finished", updatedAtMs: 9 },
      { key: "r1/issues:T-1:fix#0", runId: "r1", nodeId: "issues:T-1:fix", iteration: 0, board: "issues", ticket: "T-1", column: "fix", state: "pending", updatedAtMs: 5 },
    ]);
    expect(ticketRows({ ...snapshot, xml: null }, run)).toEqual([]);
  });
});
