import { describe, expect, it } from "vitest";
import type { GatewayRunEventRow } from "../../../core/data/index.js";
import { attemptSpend, inFlightSpend } from "./live-usage.js";

let seq = 0;
const ev = (e: Record<string, unknown>) => ({ runId: "r", iteration: 0, timestampMs: 0, seq: ++seq, ...e }) as unknown as GatewayRunEventRow;
const tokens = (inputTokens: number, outputTokens: number, costUsd?: number) => ({ usage: { inputTokens, outputTokens }, ...(costUsd !== undefined ? { costUsd } : {}) });
/** A call (generation) of `nodeId`'s attempt that ended, with what it spent in all. */
const call = (nodeId: string, attempt: number, generation: number, spent: ReturnType<typeof tokens>) =>
  ev({ type: "AgentGenerationFinished", nodeId, attempt, generation, ok: true, durationMs: 5, model: "m", provider: "p", ...spent });
/** A model step of a call, as it ended. */
const step = (nodeId: string, attempt: number, generation: number, spent: ReturnType<typeof tokens>) => ev({ type: "AgentStepUsage", nodeId, attempt, generation, ...spent });

describe("what a run's agents spent, live", () => {
  it("counts the calls and steps of attempts still running, not those of attempts that ended (the store has those)", () => {
    const events = [
      call("fix", 1, 1, tokens(1000, 100, 0.01)),
      ev({ type: "TaskFailed", nodeId: "fix", attempt: 1, error: { code: "TASK_TIMEOUT", message: "" }, willRetry: true, continueOnFail: false }),
      // Attempt 2: a call whose two steps its whole replaces, then a call still in its tool loop.
      step("fix", 2, 1, tokens(300, 20, 0.003)),
      step("fix", 2, 1, tokens(500, 30, 0.005)),
      call("fix", 2, 1, tokens(800, 50, 0.008)),
      step("fix", 2, 2, tokens(400, 25, 0.004)),
      step("fix", 2, 2, tokens(500, 35, 0.005)),
      call("review", 1, 1, tokens(100, 10)),
      ev({ type: "TaskFinished", nodeId: "review", attempt: 1, durationMs: 5 }),
      step("lint", 1, 1, tokens(10, 1)),
      // A cancel without an attempt ends every attempt of its task.
      ev({ type: "TaskCancelled", nodeId: "lint", reason: "run-cancelled" }),
    ];
    expect(inFlightSpend(events)).toEqual([{ inputTokens: 1700, outputTokens: 110, totalTokens: 1810, costUsd: 0.017 }]);
  });

  it("counts an attempt that ended after the store's total was asked, until the total counts it", () => {
    const events = [call("fix", 1, 1, tokens(1000, 100, 0.01)), ev({ type: "TaskFinished", nodeId: "fix", attempt: 1, durationMs: 5 })];
    const ended = events[1]!.seq;
    expect(inFlightSpend(events, ended - 1)).toEqual([{ inputTokens: 1000, outputTokens: 100, totalTokens: 1100, costUsd: 0.01 }]);
    expect(inFlightSpend(events, ended)).toEqual([]);
  });

  it("gives one attempt's spend so far: each call's whole where it ended, its steps where it runs", () => {
    const events = [
      call("fix", 1, 1, tokens(1000, 100, 0.01)),
      step("fix", 2, 1, tokens(300, 20, 0.003)),
      call("fix", 2, 1, tokens(800, 50, 0.008)),
      step("fix", 2, 2, tokens(400, 25, 0.004)),
      step("review", 2, 1, tokens(7, 7)),
      ev({ type: "AgentStepUsage", nodeId: "fix", iteration: 1, attempt: 2, generation: 1, ...tokens(9, 9) }),
    ];
    expect(attemptSpend(events, { nodeId: "fix", iteration: 0, attempt: 2 })).toEqual({ inputTokens: 1200, outputTokens: 75, totalTokens: 1275, costUsd: 0.012 });
    expect(attemptSpend(events, { nodeId: "fix", iteration: 0, attempt: 3 })).toBeUndefined();
    expect(attemptSpend(events, { nodeId: "fix", iteration: 1, attempt: 2 })).toEqual({ inputTokens: 9, outputTokens: 9, totalTokens: 18 });
  });

});
