import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryStore, isFlowError, processorsFromConfig, Summarizer, TokenLimiter, TtlGarbageCollector } from "durable-flow";
import { testBackends } from "../../node/testing/backends.js";
import { counterIds, fakeClock } from "./testing.js";

describe.each(testBackends)("memory processors on $name", (backend) => {
  async function open() {
    const clock = fakeClock();
    const { api } = await backend.open({ output: z.object({ ok: z.boolean() }) }, { env: { clock, newId: counterIds("p") } });
    const memory = createMemoryStore(api.db);
    const thread = async (n: number, size = 10) => {
      const t = await memory.createThread("user:u");
      for (let i = 0; i < n; i++) {
        clock.advance(1);
        await memory.saveMessage({ threadId: t.threadId, role: i % 2 ? "assistant" : "user", contentJson: JSON.stringify(`${i}`.padEnd(size - 2, ".")) });
      }
      return t.threadId;
    };
    return { memory, clock, thread };
  }

  it("Summarizer replaces older messages with one system summary and keeps the two most recent", async () => {
    const { memory, thread } = await open();
    const long = await thread(6);
    const short = await thread(2);
    const prompts: string[] = [];
    const summarizer = Summarizer({ run: async (prompt) => (prompts.push(prompt), "The user counted from 0 to 3.") });
    expect(summarizer.name).toBe("summarizer");
    expect(await summarizer.process(memory)).toEqual({ changed: 1, removed: 4 });
    const after = await memory.listMessages(long);
    expect(after.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(JSON.parse(after[0]!.contentJson)).toBe("The user counted from 0 to 3.");
    expect(after.slice(1).map((m) => JSON.parse(m.contentJson).slice(0, 1))).toEqual(["4", "5"]);
    expect(prompts.length).toBe(1);
    expect(prompts[0]).toContain("user: 0");
    expect(prompts[0]).toContain("assistant: 3");
    expect(prompts[0]).not.toContain("user: 4");
    expect(await memory.countMessages(short)).toBe(2);
  });

  it("TokenLimiter deletes the oldest messages until a thread fits in maxTokens*4 characters", async () => {
    const { memory, thread } = await open();
    const id = await thread(10, 12); // contentJson of 12 characters each
    expect(await TokenLimiter(10).process(memory)).toEqual({ changed: 1, removed: 7 }); // 40 chars: 3 messages
    const kept = await memory.listMessages(id);
    expect(kept.map((m) => JSON.parse(m.contentJson).slice(0, 1))).toEqual(["7", "8", "9"]);
    expect(await TokenLimiter(10).process(memory)).toEqual({ changed: 0, removed: 0 });
    // The newest message stays even when it alone is over the budget.
    const big = await thread(2, 100);
    await TokenLimiter(1).processEffect(memory).pipe(Effect.runPromise);
    expect((await memory.listMessages(big)).length).toBe(1);
  });

  it("TtlGarbageCollector deletes expired facts, also when built from a processor config", async () => {
    const { memory, clock } = await open();
    await memory.setFact("user:u", "a", 1, 100);
    await memory.setFact("user:u", "b", 2);
    clock.advance(100);
    const [gc] = processorsFromConfig({ processors: ["ttl-garbage-collector"] });
    expect(await Effect.runPromise(gc!.processEffect(memory))).toEqual({ changed: 1, removed: 1 });
    expect(await TtlGarbageCollector().process(memory)).toEqual({ changed: 0, removed: 0 });
    expect((await memory.listAllFacts()).map((f) => f.key)).toEqual(["b"]);
  });

  it("builds processors by name and rejects unknown names or a summarizer without an agent", () => {
    expect(processorsFromConfig({ processors: ["token-limiter", "summarizer"] }, { agent: { run: async () => "s" }, maxTokens: 5 }).map((p) => p.name)).toEqual(["token-limiter", "summarizer"]);
    expect(processorsFromConfig({})).toEqual([]);
    for (const bad of [() => processorsFromConfig({ processors: ["compactor"] }), () => processorsFromConfig({ processors: ["summarizer"] }), () => TokenLimiter(0)]) {
      let error: unknown;
      try {
        bad();
      } catch (e) {
        error = e;
      }
      expect(isFlowError(error, "INVALID_ARGUMENT")).toBe(true);
    }
  });
});
