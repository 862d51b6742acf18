/**
 * The transcript recorder and the engine's per-flush batch: payload bounds, text deltas
 * merged per flush, tool calls with durations and refusal codes, cost from the price table.
 */
import { describe, expect, it } from "vitest";
import { costOf, priceOf } from "./prices.js";
import { AttemptTranscript } from "./transcript.js";
import { TranscriptBatch } from "../engine/transcript-batch.js";
import type { EventInit } from "../engine/events.js";

function fakeClock() {
  let t = 1000;
  const timers: { at: number; fn: () => void }[] = [];
  return {
    now: () => t,
    setTimeout: (fn: () => void, ms: number) => {
      const h = { at: t + ms, fn };
      timers.push(h);
      return h;
    },
    clearTimeout: (h: unknown) => void timers.splice(timers.indexOf(h as never), 1),
    /** Moves time forward, firing each due timer at its own time. */
    advance(ms: number) {
      const end = t + ms;
      for (let h = next(end); h; h = next(end)) {
        t = h.at;
        timers.splice(timers.indexOf(h), 1);
        h.fn();
      }
      t = end;
    },
    pending: () => timers.length,
  };
  function next(end: number) {
    return timers.filter((h) => h.at <= end).sort((a, b) => a.at - b.at)[0];
  }
}

describe("AttemptTranscript", () => {
  it("records prompt, tool call and result with duration, streamed text and cost", () => {
    const clock = fakeClock();
    const events: EventInit[] = [];
    const t = new AttemptTranscript({ nodeId: "fix", iteration: 0, attempt: 1, sink: { push: (e) => events.push(e) }, now: clock.now, maxBytes: 1000, prices: { "my-model": { input: 1, output: 2 } } });
    const gen = t.begin({ id: "a", generate: async () => "" }, 0, { prompt: "Fix it" });
    gen.onEvent({ type: "action", engine: "sdk", phase: "started", action: { id: "c1", kind: "tool", title: "read" }, input: { path: "../x" } });
    clock.advance(7);
    gen.onEvent({ type: "action", engine: "sdk", phase: "completed", ok: false, action: { id: "c1", kind: "tool", title: "read" }, error: { code: "TOOL_PATH_OUTSIDE_ROOT", message: "outside" } });
    gen.onEvent({ type: "text", engine: "sdk", delta: "Done." });
    gen.end({ ok: true, model: "my-model-2025", usage: { inputTokens: 1000, outputTokens: 500 } });
    expect(events.map((e) => e.type)).toEqual(["AgentGenerationStarted", "AgentToolCall", "AgentToolResult", "AgentTextDelta", "AgentGenerationFinished"]);
    expect(events[0]).toMatchObject({ nodeId: "fix", attempt: 1, generation: 1, agentId: "a", prompt: "Fix it" });
    expect(events[1]).toMatchObject({ callId: "c1", toolName: "read", input: { path: "../x" } });
    expect(events[2]).toMatchObject({ ok: false, error: { code: "TOOL_PATH_OUTSIDE_ROOT" }, durationMs: 7 });
    expect(events[4]).toMatchObject({ ok: true, model: "my-model-2025", costUsd: 0.002 });
  });

  it("cuts payloads and streamed text at maxBytes and says so", () => {
    const events: EventInit[] = [];
    const t = new AttemptTranscript({ nodeId: "n", iteration: 0, attempt: 1, sink: { push: (e) => events.push(e) }, now: () => 0, maxBytes: 10 });
    const gen = t.begin({ generate: async () => "" }, 0, { prompt: "a prompt longer than ten bytes" });
    gen.onEvent({ type: "action", engine: "x", phase: "started", action: { id: "1", kind: "tool", title: "bash" }, input: { command: "echo a long command" } });
    gen.onEvent({ type: "text", engine: "x", delta: "12345678" });
    gen.onEvent({ type: "text", engine: "x", delta: "éééé" });
    gen.onEvent({ type: "text", engine: "x", delta: "dropped" });
    expect(events[0]).toMatchObject({ prompt: "a prompt l", truncated: true });
    expect(events[1]).toMatchObject({ truncated: true, input: '{"command"' });
    expect(events.slice(2)).toEqual([expect.objectContaining({ text: "12345678" }), expect.objectContaining({ text: "é", truncated: true })]);
  });
});

describe("TranscriptBatch", () => {
  it("merges text deltas of one generation and wakes the loop once per flush interval", () => {
    const clock = fakeClock();
    let wakes = 0;
    const batch = new TranscriptBatch(clock, () => wakes++, 50);
    const ref = { nodeId: "n", iteration: 0, attempt: 1, generation: 1 };
    for (const w of ["It ", "is ", "21 C."]) batch.push({ type: "AgentTextDelta", ...ref, text: w });
    batch.push({ type: "AgentToolCall", ...ref, callId: "c", toolName: "t" });
    batch.push({ type: "AgentTextDelta", ...ref, text: "more" });
    expect(batch.size).toBe(3);
    expect(wakes).toBe(0);
    clock.advance(50);
    expect(wakes).toBe(1);
    const out: EventInit[] = [];
    batch.drain((e) => out.push(e));
    expect(out[0]).toMatchObject({ type: "AgentTextDelta", text: "It is 21 C." });
    expect(batch.size).toBe(0);
    expect(clock.pending()).toBe(0);
  });

  it("wakes the loop at once after a quiet spell and at most once per interval while text streams", () => {
    const clock = fakeClock();
    const wokeAt: number[] = [];
    const batch = new TranscriptBatch(clock, () => wokeAt.push(clock.now()), 50);
    const ref = { nodeId: "n", iteration: 0, attempt: 1, generation: 1 };
    const start = clock.now();
    // A token every 20 ms for 200 ms, then one after a pause.
    for (let t = 0; t <= 200; t += 20) {
      clock.advance(start + t - clock.now());
      batch.push({ type: "AgentTextDelta", ...ref, text: "w " });
    }
    clock.advance(start + 300 - clock.now());
    batch.push({ type: "AgentTextDelta", ...ref, text: "late" });
    clock.advance(0);
    expect(wokeAt.map((t) => t - start)).toEqual([0, 50, 100, 150, 200, 250, 300]);
  });
});

describe("prices", () => {
  it("matches by longest prefix after the provider, lets the user override, and prefers a reported cost", () => {
    expect(priceOf("openai/gpt-4o-mini-2024-07-18")).toMatchObject({ input: 0.15 });
    expect(priceOf("gpt-4o", { "gpt-4o": { input: 1, output: 1 } })).toEqual({ input: 1, output: 1 });
    expect(costOf("gpt-4o", { inputTokens: 1_000_000, outputTokens: 100_000 })).toBe(3.5);
    expect(costOf("claude-sonnet-4-5", { inputTokens: 2_000_000, cacheReadTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(3.3, 9);
    expect(costOf("gpt-4o", { inputTokens: 10, costUsd: 0.5 })).toBe(0.5);
    expect(costOf("unknown-model", { inputTokens: 10 })).toBeUndefined();
  });
});
