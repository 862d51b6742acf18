import { describe, expect, it } from "vitest";
import type { FlowEvent } from "../../core/engine/index.js";
import { ProgressLines } from "./progress.js";

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
