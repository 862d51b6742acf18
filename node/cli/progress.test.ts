import { describe, expect, it } from "vitest";
import type { FlowEvent } from "../../core/engine/index.js";
import { ProgressLines, RunTally } from "./progress.js";

const base = { runId: "r", nodeId: "poll", iteration: 0, timestampMs: Date.UTC(2026, 10, 29, 12, 0, 0), seq: 0 };
const started = (attempt: number) => ({ ...base, type: "TaskStarted", attempt }) as FlowEvent;
const failed = (attempt: number, message: string, willRetry = true) => ({ ...base, type: "TaskFailed", attempt, error: { code: "TASK_FAILED", message }, willRetry, retryInMs: 0, continueOnFail: false }) as FlowEvent;
const finished = (attempt: number) => ({ ...base, type: "TaskFinished", attempt, durationMs: 5 }) as FlowEvent;

describe("flow up's progress lines", () => {
  it("say a task's failure whole once, then one short line per attempt that fails the same way", () => {
    const lines = new ProgressLines(false);
    const printed = [started(1), failed(1, "503"), started(2), failed(2, "503"), started(3), failed(3, "503"), started(4), failed(4, "timeout"), started(5), finished(5), started(6)].map((e) => lines.format(e));
    expect(printed).toEqual([
      "▸ poll",
      "✗ poll TASK_FAILED: 503 — retrying now",
      "▸ poll (attempt 2)",
      "✗ poll attempt 2 failed the same way — retrying now",
      null,
      "✗ poll attempt 3 failed the same way — retrying now",
      // Another error: said whole again, and the next start shown.
      null,
      "✗ poll attempt 4 TASK_FAILED: timeout — retrying now",
      "▸ poll (attempt 5)",
      "✓ poll 5 ms",
      "▸ poll (attempt 6)",
    ]);
  });
});

describe("flow up's closing line", () => {
  const ref = (attempt: number, generation: number) => ({ ...base, attempt, generation });
  const generation = (attempt: number, n: number, usage: { inputTokens: number; outputTokens: number } | undefined, costUsd?: number) =>
    ({ ...ref(attempt, n), type: "AgentGenerationFinished", ok: usage !== undefined, durationMs: 5, model: "m", provider: "p", ...(usage ? { usage } : {}), ...(costUsd !== undefined ? { costUsd } : {}) }) as FlowEvent;
  const step = (attempt: number, n: number, inputTokens: number, outputTokens: number, costUsd: number) => ({ ...ref(attempt, n), type: "AgentStepUsage", usage: { inputTokens, outputTokens }, costUsd }) as FlowEvent;
  const result = { runId: "r1", status: "finished" } as Parameters<RunTally["summary"]>[0];

  it("adds what the agents' calls spent: a call's whole, else the model steps that ended before it was cut", () => {
    const tally = new RunTally();
    const events = [
      started(1),
      // A call of two steps, then its whole, which the steps do not add to.
      step(1, 1, 500, 10, 0.005),
      step(1, 1, 700, 30, 0.0075),
      generation(1, 1, { inputTokens: 1200, outputTokens: 40 }, 0.0125),
      // A call cut after one step: that step counts.
      step(1, 2, 300, 20, 0.0003),
      generation(1, 2, undefined),
      started(2),
      generation(2, 1, { inputTokens: 340, outputTokens: 4 }, 0.0004),
      finished(2),
    ];
    for (const e of events) tally.observe(e);
    expect(tally.summary(result, 1200)).toBe("Run r1 finished in 1.2 s: 1 task finished, 0 failed, 0 skipped; 2 attempts; agents: 1,840 in / 64 out tokens, $0.0132.");
  });

  it("says nothing of agents where none ran", () => {
    const tally = new RunTally();
    for (const e of [started(1), finished(1)]) tally.observe(e);
    expect(tally.summary(result, 5)).toBe("Run r1 finished in 5 ms: 1 task finished, 0 failed, 0 skipped; 1 attempt.");
  });
});
