/**
 * The run page's actions come from the engine's run table (`RUN_MOVES`): for each status the
 * app offers what the table and the Gateway's stop check allow, and a table that moves
 * differently offers differently.
 */
import { describe, expect, it } from "vitest";
import { checkStop, RUN_MOVES, RUN_STATUSES, type RunMoves } from "../../../core/engine/internal.js";
import type { GatewayRunRow } from "../../../core/data/index.js";
import { type RunAction, runStatusRules, whyNot } from "./run-status-rules.js";

type Status = GatewayRunRow["status"];
const ACTIONS: RunAction[] = ["cancel", "pause", "resume"];

/** The actions the rules offer, per status. */
const offers = (moves: RunMoves) => {
  const rules = runStatusRules(moves);
  return Object.fromEntries(RUN_STATUSES.map((s) => [s, ACTIONS.filter((a) => rules.whyNot(a, s as Status) === undefined)]));
};

/** The table with `from`'s moves changed. */
const withMoves = (from: Status, to: readonly Status[]): RunMoves => ({ ...RUN_MOVES, [from]: to });

describe("the run status rules", () => {
  it("offer, for each status, what the engine's table allows", () => {
    expect(offers(RUN_MOVES)).toEqual({
      running: ["cancel", "pause"],
      "waiting-approval": ["cancel"],
      "waiting-event": ["cancel"],
      "waiting-timer": ["cancel"],
      "waiting-quota": ["cancel", "pause"],
      paused: ["cancel", "resume"],
      failed: [],
      cancelled: [],
      finished: [],
      continued: [],
    });
    // Cancel is offered exactly where the Gateway's stop check moves the run.
    for (const s of RUN_STATUSES) {
      const moves = (() => {
        try {
          return !checkStop("r1", s, "cancel");
        } catch {
          return false;
        }
      })();
      expect(whyNot("cancel", s as Status) === undefined, s).toBe(moves);
    }
  });

  it("change with the table", () => {
    const rules = runStatusRules(withMoves("paused", ["cancelled", "paused"]));
    expect(rules.whyNot("resume", "paused")).toMatch(/Only a paused run can be resumed/);
    expect(runStatusRules(withMoves("waiting-event", ["running", "paused"])).whyNot("cancel", "waiting-event")).toMatch(/already ended/);
    expect(runStatusRules(withMoves("waiting-event", ["running", "paused"])).isEnded("waiting-event")).toBe(true);
    // A run that can no longer finish from a status is not executed there: no pause, retry and rewind allowed.
    const idle = runStatusRules(withMoves("waiting-quota", ["running", "cancelled", "paused"]));
    expect(idle.whyNot("pause", "waiting-quota")).toMatch(/parked/);
    expect(idle.whyNotRetry("failed", "waiting-quota")).toBeUndefined();
    expect(idle.whyNotRewind("waiting-quota")).toBeUndefined();
    const live = runStatusRules(RUN_MOVES);
    expect(live.whyNotRetry("failed", "waiting-quota")).toMatch(/executing/);
    expect(live.whyNotRewind("waiting-quota")).toMatch(/executing/);
    // A parked status the table lets finish is executed there: it can be paused.
    expect(runStatusRules(withMoves("waiting-timer", [...RUN_MOVES["waiting-timer"], "finished"])).whyNot("pause", "waiting-timer")).toBeUndefined();
  });
});
