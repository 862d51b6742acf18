/**
 * The run lifecycle table (core/engine/status.ts), tested beside it: the moves the diagram
 * draws are legal, the others answer INVALID_TRANSITION naming both ends. The same for a
 * node's (task's) table, and for a stop request (cancel, pause) checked against the run's.
 */
import { describe, expect, it } from "vitest";
import { assertNodeTransition, assertTransition, checkStop, NODE_STATES, RUN_STATUSES, shownNodeState, TERMINAL_STATUSES } from "./status.js";
import type { NodeState, RunStatus } from "./types.js";

const WAITING: RunStatus[] = ["waiting-approval", "waiting-event", "waiting-timer", "waiting-quota"];

describe("run status transitions", () => {
  it("allows what the lifecycle draws", () => {
    const legal: Array<[RunStatus, RunStatus]> = [
      ["running", "finished"],
      ["running", "failed"],
      ["running", "cancelled"],
      ["running", "paused"],
      ["running", "continued"],
      ["running", "running"], // takeover of a dead owner's run
      ...WAITING.flatMap((w): Array<[RunStatus, RunStatus]> => [["running", w], [w, "running"], [w, "cancelled"], [w, "paused"]]),
      ["paused", "running"],
      ["failed", "running"],
      ["cancelled", "running"],
      ["finished", "running"], // retryTask
      ["finished", "paused"], // time travel
    ];
    for (const [from, to] of legal) expect(() => assertTransition("r1", from, to), `${from} -> ${to}`).not.toThrow();
  });

  it("refuses every other move with INVALID_TRANSITION naming the run and both ends", () => {
    expect(() => assertTransition("r1", "finished", "failed")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION", details: { runId: "r1", from: "finished", to: "failed" } }));
    expect(() => assertTransition("r1", "paused", "finished")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(() => assertTransition("r1", "waiting-approval", "finished")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    // a continued run never moves again
    for (const to of RUN_STATUSES) expect(() => assertTransition("r1", "continued", to), `continued -> ${to}`).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
  });

  it("holds exactly the moves the lifecycle draws, over every pair of statuses", () => {
    const ends: RunStatus[] = ["running", "finished", "failed", "cancelled", "paused", "continued", ...WAITING];
    // waiting-quota keeps the run in its process (a quota retry timer), so it ends as running does.
    const legal: Record<RunStatus, RunStatus[]> = {
      running: ends,
      "waiting-quota": ends,
      "waiting-approval": ["running", "cancelled", "paused"],
      "waiting-event": ["running", "cancelled", "paused"],
      "waiting-timer": ["running", "cancelled", "paused"],
      paused: ["running", "cancelled", "paused"],
      failed: ["running", "paused"],
      cancelled: ["running", "paused"],
      finished: ["running", "paused"],
      continued: [],
    };
    expect([...RUN_STATUSES].sort()).toEqual(Object.keys(legal).sort());
    const allowed = (from: RunStatus, to: RunStatus) => {
      try {
        assertTransition("r1", from, to);
        return true;
      } catch (e) {
        expect(e).toMatchObject({ code: "INVALID_TRANSITION", details: { runId: "r1", from, to } });
        return false;
      }
    };
    for (const from of RUN_STATUSES) expect(RUN_STATUSES.filter((to) => allowed(from, to)).sort(), `from ${from}`).toEqual([...legal[from]].sort());
  });

  it("lists every status once, and the terminal ones among them", () => {
    expect(new Set(RUN_STATUSES).size).toBe(RUN_STATUSES.length);
    expect(RUN_STATUSES).toEqual(expect.arrayContaining(["running", "paused", "finished", "failed", "cancelled", "continued", ...WAITING]));
    expect([...TERMINAL_STATUSES].sort()).toEqual(["continued", "finished"]);
  });
});

describe("node state transitions", () => {
  const node = { runId: "r1", nodeId: "a", iteration: 2 };
  const allowed = (from: NodeState | null, to: NodeState) => {
    try {
      assertNodeTransition(node, from, to);
      return true;
    } catch (e) {
      expect(e).toMatchObject({ code: "INVALID_TRANSITION", details: { runId: "r1", nodeId: "a", iteration: 2, from, to } });
      return false;
    }
  };

  it("holds exactly the moves the node lifecycle draws, over every pair of states", () => {
    const waiting: NodeState[] = ["waiting-approval", "waiting-event", "waiting-timer"];
    const fromWaiting: NodeState[] = ["pending", "in-progress", "finished", "skipped", "failed", "cancelled", ...waiting];
    const legal: Record<NodeState, NodeState[]> = {
      pending: ["pending", "in-progress", "finished", "skipped", "failed", "cancelled", ...waiting],
      "in-progress": ["pending", "finished", "failed", "cancelled"],
      "waiting-approval": fromWaiting,
      "waiting-event": fromWaiting,
      "waiting-timer": fromWaiting,
      // An ended task moves again only by a reset (resume, retryTask, time travel)...
      finished: ["pending"],
      failed: ["pending"],
      skipped: ["pending"],
      // ...but a cancelled one back in the tree is scheduled as a pending one (waits-reset: a reset Signal's child).
      cancelled: ["pending", "in-progress", "finished", "skipped", "failed", ...waiting],
    };
    expect([...NODE_STATES].sort()).toEqual(Object.keys(legal).sort());
    for (const from of NODE_STATES) expect(NODE_STATES.filter((to) => allowed(from, to)).sort(), `from ${from}`).toEqual([...legal[from]].sort());
    // A new row is a rendered task (pending) or a seeded or carried output (finished).
    expect(NODE_STATES.filter((to) => allowed(null, to)).sort()).toEqual(["finished", "pending"]);
  });

  it("refuses an ended task going anywhere but back to pending, naming the task", () => {
    expect(() => assertNodeTransition(node, "finished", "failed")).toThrow(/Task a \(iteration 2\) of run r1 cannot go from "finished" to "failed"/);
    expect(() => assertNodeTransition(node, "skipped", "in-progress")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(() => assertNodeTransition(node, "cancelled", "cancelled")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION" }));
    expect(() => assertNodeTransition(node, null, "in-progress")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION", details: expect.objectContaining({ from: null, to: "in-progress" }) }));
  });
});

describe("a stop request", () => {
  it("is answered as it is when the run already stopped that way, refused where the table has no move, else goes on", () => {
    expect(checkStop("r1", "cancelled", "cancel")).toBe(true);
    expect(checkStop("r1", "paused", "pause")).toBe(true);
    for (const from of ["running", "paused", "waiting-approval", "waiting-event", "waiting-timer", "waiting-quota"] as RunStatus[]) expect(checkStop("r1", from, "cancel"), from).toBe(false);
    for (const from of ["finished", "failed", "continued"] as RunStatus[]) {
      expect(() => checkStop("r1", from, "cancel"), from).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION", details: { runId: "r1", status: from, from, to: "cancelled" } }));
    }
    expect(() => checkStop("r1", "continued", "pause")).toThrow(expect.objectContaining({ code: "INVALID_TRANSITION", details: expect.objectContaining({ to: "paused" }) }));
    expect(() => checkStop("r1", "finished", "cancel")).toThrow(/already ended \(status finished\); there is nothing to cancel/);
  });
});

describe("a node's state as a console shows it", () => {
  it("reads a task its run ended before reaching as not run, and every other state as it is", () => {
    for (const ended of ["finished", "failed", "cancelled", "continued"]) expect(shownNodeState("pending", ended)).toBe("not run");
    // A run that can still move: its pending tasks may yet run.
    for (const live of ["running", "paused", ...WAITING]) expect(shownNodeState("pending", live)).toBe("pending");
    for (const state of NODE_STATES.filter((s) => s !== "pending")) expect(shownNodeState(state, "cancelled")).toBe(state);
  });
});
