import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  activeMemory,
  attachMemoryEngine,
  createLocalMemoryEngine,
  createMemoryStore,
  type FlowError,
  isFlowError,
  type MemoryEnginePort,
  memoryEngineOf,
  prepareTaskMemory,
  retainTaskMemory,
} from "durable-flow";
import { bindingOf } from "durable-flow/core";
import { testBackends } from "../../node/testing/backends.js";
import { counterIds, fakeClock } from "./testing.js";

function caught(fn: () => unknown): FlowError {
  try {
    fn();
  } catch (e) {
    if (isFlowError(e)) return e;
    throw e;
  }
  throw new Error("expected a FlowError");
}

describe("TaskMemoryConfig", () => {
  it("is inert without a bank, including every legacy object form", () => {
    expect(activeMemory(undefined, "t")).toBeNull();
    expect(activeMemory({}, "t")).toBeNull();
    expect(activeMemory({ namespace: "user:u", remember: { namespace: "user:u", key: "k" }, threadId: "th-1", recall: { topK: 3 } }, "t")).toBeNull();
  });

  it("applies the SPEC defaults to a bank selection", () => {
    expect(activeMemory({ bank: "agent:support" }, "t")).toMatchObject({ banks: ["agent:support"], budget: "mid", maxChars: 2048 * 4, primers: [], retain: false, tools: false, tags: [] });
    expect(activeMemory({ banks: ["a", "b", "a"], recall: false }, "t")).toMatchObject({ banks: ["a", "b"], query: null });
    // An object `recall` is legacy: recall is off, the bank still activates the rest.
    expect(activeMemory({ bank: "a", recall: { topK: 2 }, retain: "on-complete" }, "t")).toMatchObject({ query: null, retain: true });
  });

  it("rejects bank together with banks, bad budgets and bad maxTokens, naming the task", () => {
    const both = caught(() => activeMemory({ bank: "a", banks: ["b"] }, "plan"));
    expect(both.code).toBe("INVALID_ARGUMENT");
    expect(both.message).toContain('"plan"');
    expect(caught(() => activeMemory({ bank: "a", budget: "max" }, "t")).code).toBe("INVALID_ARGUMENT");
    expect(caught(() => activeMemory({ bank: "a", maxTokens: 0 }, "t")).code).toBe("INVALID_ARGUMENT");
  });
});

describe.each(testBackends)("task memory over the local engine on $name", (backend) => {
  async function open() {
    const clock = fakeClock();
    const { api } = await backend.open({ output: z.object({ ok: z.boolean() }) }, { env: { clock, newId: counterIds("t") } });
    const warnings: string[] = [];
    const ctx = { runId: "run-1", nodeId: "answer", iteration: 0, warn: (m: string) => void warnings.push(m) };
    return { api, memory: createMemoryStore(api.db), engine: memoryEngineOf(bindingOf(api.db)), ctx, warnings };
  }

  it("leaves the prompt alone, exposes no tools and retains nothing for inert configs", async () => {
    const { engine, ctx, memory } = await open();
    for (const config of [undefined, { namespace: "user:u", threadId: "t", remember: { key: "k" } }]) {
      expect(await prepareTaskMemory(engine, config, "Hello", ctx)).toEqual({ prompt: "Hello", block: "", tools: {} });
      await retainTaskMemory(engine, config, { prompt: "Hello", output: { ok: true } }, ctx);
    }
    expect(await memory.listAllFacts()).toEqual([]);
    expect(await memory.listThreads()).toEqual([]);
    expect(await memory.listNotes("user:u", { status: "any" })).toEqual([]);
  });

  it("recalls from the bank by the prompt, injects the block first and keeps it under maxTokens*4 characters", async () => {
    const { engine, ctx } = await open();
    await engine.retainMemory("agent:support", "The billing service retries failed card payments three times");
    await engine.retainMemory("agent:support", "Office plants are watered on Mondays");
    for (let i = 0; i < 40; i++) await engine.retainMemory("agent:support", `Billing note ${i}: invoices for card payments are sent monthly by the billing service`);
    const prepared = await prepareTaskMemory(engine, { bank: "agent:support", maxTokens: 64 }, "Why did the billing service retry my card payment?", ctx);
    expect(prepared.block.startsWith("<memory>\n## Recalled memories\n- The billing service retries failed card payments three times")).toBe(true);
    expect(prepared.block).not.toContain("plants");
    expect(prepared.block.length).toBeLessThanOrEqual(64 * 4);
    expect(prepared.block.endsWith("</memory>")).toBe(true);
    expect(prepared.prompt).toBe(`${prepared.block}\n\nWhy did the billing service retry my card payment?`);
  });

  it("recalls several banks, uses a string query, injects primers verbatim and honors recall: false", async () => {
    const { engine, ctx, memory } = await open();
    await engine.retainMemory("user:ada", "Ada prefers short answers");
    await engine.retainMemory("agent:support", "Short answers should still include the order number");
    const primer = await memory.saveNote({ namespace: "agent:support", body: "You are the support agent of Acme." });
    const both = await prepareTaskMemory(engine, { banks: ["user:ada", "agent:support"], recall: "short answers", primers: [primer.id] }, "Reply to the customer", ctx);
    expect(both.block).toBe(
      "<memory>\n## Primers\nYou are the support agent of Acme.\n## Recalled memories\n- Ada prefers short answers\n- Short answers should still include the order number\n</memory>",
    );
    const primersOnly = await prepareTaskMemory(engine, { bank: "agent:support", recall: false, primers: [primer.id] }, "Reply", ctx);
    expect(primersOnly.block).toBe("<memory>\n## Primers\nYou are the support agent of Acme.\n</memory>");
  });

  it("retains the prompt and output on completion in every bank, once per task iteration", async () => {
    const { engine, ctx, memory } = await open();
    const config = { banks: ["agent:support", "user:ada"], retain: "on-complete" as const, tags: ["support"] };
    await retainTaskMemory(engine, config, { prompt: "Summarize the ticket", output: { summary: "refund issued" } }, ctx);
    await retainTaskMemory(engine, config, { prompt: "Summarize the ticket", output: { summary: "refund issued" } }, ctx);
    for (const bank of ["agent:support", "user:ada"]) {
      const notes = await memory.listNotes(bank);
      expect(notes.length).toBe(1);
      expect(notes[0]!.body).toContain('{"summary":"refund issued"}');
      expect(notes[0]!.tagsJson).toBe('["support"]');
    }
    await retainTaskMemory(engine, { bank: "agent:other" }, { prompt: "x", output: {} }, ctx);
    expect(await memory.listNotes("agent:other")).toEqual([]);
  });

  it("gives remember and recall tools with tools: true, and remember is safe to retry", async () => {
    const { engine, ctx, memory } = await open();
    const { tools } = await prepareTaskMemory(engine, { bank: "agent:support", tools: true }, "Help", ctx);
    expect(Object.keys(tools).sort()).toEqual(["recall", "remember"]);
    expect(tools.remember!.sideEffect).toBe(true);
    const toolCtx = { idempotencyKey: "run-1:answer:0", seq: 1 };
    expect(await tools.remember!.execute({ content: "The VIP hotline is 555-0100" }, toolCtx)).toBe("remembered");
    await tools.remember!.execute({ content: "The VIP hotline is 555-0100" }, toolCtx);
    expect((await memory.listNotes("agent:support")).map((n) => n.body)).toEqual(["The VIP hotline is 555-0100"]);
    expect(await tools.recall!.execute({ query: "VIP hotline number" })).toBe("- The VIP hotline is 555-0100");
    expect(await tools.recall!.execute({ query: "unrelated topic" })).toBe("Nothing relevant is remembered.");
  });

  it("uses the engine attached to the store, and an engine failure is a warning, never a failed task", async () => {
    const { api, ctx, warnings } = await open();
    const down: MemoryEnginePort = {
      recallMemory: async () => Promise.reject(new Error("connection refused")),
      getPrimers: async () => Promise.reject(new Error("connection refused")),
      retainMemory: async () => Promise.reject(new Error("connection refused")),
    };
    attachMemoryEngine(api.db, down);
    const engine = memoryEngineOf(bindingOf(api.db));
    expect(engine).toBe(down);
    const prepared = await prepareTaskMemory(engine, { bank: "agent:a", primers: ["p"], retain: "on-complete" }, "Do it", ctx);
    expect(prepared).toEqual({ prompt: "Do it", block: "", tools: {} });
    await retainTaskMemory(engine, { bank: "agent:a", retain: "on-complete" }, { prompt: "Do it", output: {} }, ctx);
    expect(warnings.length).toBe(3);
    expect(warnings.every((w) => w.includes('"answer"') && w.includes("connection refused"))).toBe(true);
    attachMemoryEngine(api.db, createLocalMemoryEngine(createMemoryStore(api.db)));
  });
});
