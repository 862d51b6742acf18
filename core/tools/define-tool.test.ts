import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createToolContextFactory, defineTool, getDefinedToolMetadata, isFlowError, TOOL_METADATA, type ToolCallRecord, type ToolContext } from "durable-flow/core";

afterEach(() => vi.restoreAllMocks());

const echo = defineTool({
  name: "echo",
  schema: z.object({ text: z.string().min(1), times: z.number().int().default(1) }),
  execute: ({ text, times }, ctx) => ({ text: text.repeat(times), seq: ctx.seq }),
});

describe("defineTool", () => {
  it("uses the name as description and read-only defaults when options are omitted", () => {
    expect(echo.description).toBe("echo");
    expect(echo.sideEffect).toBe(false);
    expect(echo.idempotent).toBe(true);
    expect(getDefinedToolMetadata(echo)).toEqual({ name: "echo", sideEffect: false, idempotent: true });
  });

  it("defaults idempotent to false for a side-effecting tool", () => {
    const t = defineTool({ name: "send", schema: z.object({}), sideEffect: true, execute: (_a, _ctx) => "sent" });
    expect(getDefinedToolMetadata(t)).toEqual({ name: "send", sideEffect: true, idempotent: false });
    const u = defineTool({ name: "put", schema: z.object({}), sideEffect: true, idempotent: true, execute: (_a, _ctx) => "ok" });
    expect(getDefinedToolMetadata(u)).toEqual({ name: "put", sideEffect: true, idempotent: true });
  });

  it("validates input against the schema before execute runs", async () => {
    const execute = vi.fn((_args: { n: number }, _ctx: ToolContext) => "ran");
    const t = defineTool({ name: "strict", schema: z.object({ n: z.number() }), execute });
    const error = await t.execute({ n: "not a number" } as never).catch((e: unknown) => e);
    expect(isFlowError(error, "TOOL_INPUT_INVALID")).toBe(true);
    expect((error as Error).message).toContain('Tool "strict"');
    expect(execute).not.toHaveBeenCalled();
  });

  it("passes parsed input (schema defaults applied) and a complete default context", async () => {
    const t = defineTool({ name: "ctx", schema: z.object({ n: z.number().default(7) }), execute: (args, ctx) => ({ args, ctx }) });
    const { args, ctx } = await t.execute({}, { rootDir: "/tmp/x" });
    expect(args).toEqual({ n: 7 });
    expect(ctx).toMatchObject({ toolName: "ctx", rootDir: "/tmp/x", allowNetwork: false, maxOutputBytes: 200000, timeoutMs: 60000, attempt: 1, seq: 1 });
    expect(ctx.idempotencyKey).toMatch(/^[0-9a-f]{64}$/);
    await expect(ctx.durabilitySnapshot("before", "call-1")).resolves.toBeUndefined();
  });

  it("exposes the input as JSON Schema for model APIs", () => {
    expect(echo.jsonSchema).toMatchObject({ type: "object", properties: { text: { type: "string", minLength: 1 }, times: { type: "integer", default: 1 } }, required: ["text"] });
  });

  it("logs a startup warning for a side-effecting, non-idempotent tool whose execute omits ctx", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    defineTool({ name: "charge", schema: z.object({}), sideEffect: true, execute: () => "charged" });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toContain('Tool "charge"');
    defineTool({ name: "charge2", schema: z.object({}), sideEffect: true, execute: (_a, ctx) => ctx.idempotencyKey });
    defineTool({ name: "charge3", schema: z.object({}), sideEffect: true, idempotent: true, execute: () => "ok" });
    defineTool({ name: "look", schema: z.object({}), execute: () => "ok" });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("rejects a definition without name, schema or execute", () => {
    expect(() => defineTool({ name: "", schema: z.object({}), execute: () => 1 })).toThrow(/name/);
    expect(() => defineTool({ name: "x", schema: { parse() {} } as never, execute: () => 1 })).toThrow(/schema/);
    expect(() => defineTool({ name: "x", schema: z.object({}) } as never)).toThrow(/execute/);
  });
});

describe("getDefinedToolMetadata", () => {
  it("returns null for plain tools and non-objects", () => {
    expect(getDefinedToolMetadata({ name: "plain", execute() {} })).toBeNull();
    expect(getDefinedToolMetadata(null)).toBeNull();
    expect(getDefinedToolMetadata("echo")).toBeNull();
    expect(getDefinedToolMetadata(42)).toBeNull();
  });

  it("reads the metadata under the symbol key flow.tool.metadata", () => {
    expect(TOOL_METADATA).toBe(Symbol.for("flow.tool.metadata"));
    const crafted = { [Symbol.for("flow.tool.metadata")]: { name: "x", sideEffect: true, idempotent: false } };
    expect(getDefinedToolMetadata(crafted)).toEqual({ name: "x", sideEffect: true, idempotent: false });
  });
});

describe("createToolContextFactory", () => {
  const write = defineTool({ name: "write", schema: z.object({ v: z.string() }), sideEffect: true, execute: (a, ctx) => ({ v: a.v, key: ctx.idempotencyKey, seq: ctx.seq }) });
  const scope = { runId: "run-1", nodeId: "fix", iteration: 0 };

  it("counts seq per attempt and gives the n-th call of a tool the same key in every attempt", async () => {
    const first = createToolContextFactory({ ...scope, attempt: 1 });
    const a1 = await first.callTool<{ key: string; seq: number }>(echo, { text: "r" });
    const w1 = await first.callTool<{ key: string; seq: number }>(write, { v: "a" });
    const w2 = await first.callTool<{ key: string; seq: number }>(write, { v: "b" });
    expect([a1.output.seq, w1.output.seq, w2.output.seq]).toEqual([1, 2, 3]);
    expect(w1.output.key).not.toBe(w2.output.key);

    // The retry calls write first: keys follow the per-tool call count, not seq.
    const second = createToolContextFactory({ ...scope, attempt: 2, priorCalls: first.calls, warn: () => undefined });
    const r1 = await second.callTool<{ key: string; seq: number }>(write, { v: "a" });
    const r2 = await second.callTool<{ key: string; seq: number }>(write, { v: "b" });
    expect(r1.output.seq).toBe(1);
    expect([r1.output.key, r2.output.key]).toEqual([w1.output.key, w2.output.key]);

    const otherIteration = createToolContextFactory({ ...scope, iteration: 1, attempt: 1 });
    expect((await otherIteration.callTool<{ key: string }>(write, { v: "a" })).output.key).not.toBe(w1.output.key);
  });

  it("records side-effecting calls before they run, and only those", async () => {
    const order: string[] = [];
    const tracked = defineTool({ name: "tracked", schema: z.object({}), sideEffect: true, execute: (_a, _ctx) => void order.push("execute") });
    const records: ToolCallRecord[] = [];
    const f = createToolContextFactory({ ...scope, attempt: 1, recordCall: async (c) => void (order.push("record"), records.push(c)) });
    await f.callTool(echo, { text: "x" });
    await f.callTool(tracked, {});
    expect(order).toEqual(["record", "execute"]);
    expect(records).toEqual([{ toolName: "tracked", attempt: 1, seq: 2, idempotencyKey: expect.stringMatching(/^[0-9a-f]{64}$/), sideEffect: true, idempotent: false }]);
    expect(f.calls).toEqual(records);
  });

  it("does not run the tool when its call cannot be recorded", async () => {
    const execute = vi.fn((_a: object, _ctx: ToolContext) => "ran");
    const t = defineTool({ name: "t", schema: z.object({}), sideEffect: true, execute });
    const f = createToolContextFactory({ ...scope, attempt: 1, recordCall: () => Promise.reject(new Error("disk full")) });
    await expect(f.callTool(t, {})).rejects.toMatchObject({ code: "TASK_FAILED" });
    expect(execute).not.toHaveBeenCalled();
  });

  it("warns the agent on retry of a sideEffect && !idempotent call, and not for replay-safe tools", async () => {
    const warn = vi.fn();
    const put = defineTool({ name: "put", schema: z.object({}), sideEffect: true, idempotent: true, execute: (_a, _ctx) => "ok" });
    const first = createToolContextFactory({ ...scope, attempt: 1, warn });
    await first.callTool(write, { v: "a" });
    await first.callTool(put, {});
    await first.callTool(echo, { text: "x" });
    expect(first.retryNotice).toBeUndefined();

    const second = createToolContextFactory({ ...scope, attempt: 2, priorCalls: first.calls, warn });
    expect(second.retryNotice).toContain('"write" (1 call)');
    expect(second.retryNotice).not.toContain('"put"');
    const w = await second.callTool(write, { v: "a" });
    expect(w.warning).toContain('Tool "write" was already called');
    expect(w.output).toMatchObject({ v: "a" });
    expect((await second.callTool(put, {})).warning).toBeUndefined();
    expect((await second.callTool(echo, { text: "x" })).warning).toBeUndefined();
    // A second write was never made before: no warning.
    expect((await second.callTool(write, { v: "b" })).warning).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("hands durabilitySnapshot to the engine handle and never fails the tool when it throws", async () => {
    const seen: unknown[] = [];
    const warn = vi.fn();
    const snap = defineTool({
      name: "snap",
      schema: z.object({}),
      sideEffect: true,
      execute: async (_a, ctx) => {
        await ctx.durabilitySnapshot("before-write", "toolu_1");
        await ctx.durabilitySnapshot("fails", "toolu_2");
        return "done";
      },
    });
    const f = createToolContextFactory({
      ...scope,
      attempt: 1,
      warn,
      durability: {
        snapshot(req) {
          if (req.name === "fails") throw new Error("vcs down");
          seen.push(req);
        },
      },
    });
    expect((await f.callTool(snap, {})).output).toBe("done");
    expect(seen).toEqual([expect.objectContaining({ name: "before-write", toolUseId: "toolu_1", toolName: "snap", runId: "run-1", nodeId: "fix", seq: 1 })]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('snapshot "fails"'), expect.anything());
  });

  it("caps timeoutMs at one hour and passes the run's sandbox options", async () => {
    const f = createToolContextFactory({ ...scope, attempt: 1, rootDir: "/srv", allowNetwork: true, maxOutputBytes: 10, timeoutMs: 10 * 3_600_000 });
    const ctx = f.next({ name: "x", sideEffect: false, idempotent: true });
    expect(ctx).toMatchObject({ rootDir: "/srv", allowNetwork: true, maxOutputBytes: 10, timeoutMs: 3_600_000, runId: "run-1", nodeId: "fix" });
  });
});
