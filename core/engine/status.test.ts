/**
 * The run lifecycle table (core/engine/status.ts), tested beside it: the moves the diagram
 * draws are legal, the others answer INVALID_TRANSITION naming both ends.
 */
import { describe, expect, it } from "vitest";
import { assertTransition, RUN_STATUSES, TERMINAL_STATUSES } from "./status.js";
import type { RunStatus } from "./types.js";

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
