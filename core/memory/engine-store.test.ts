import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createEngineMemoryStore, createMemoryStore, prepareTaskMemory, retainTaskMemory } from "durable-flow";
import { testBackends } from "../../node/testing/backends.js";
import { counterIds, fakeClock, rejection } from "./testing.js";
// A memory engine on loopback that speaks the Hindsight HTTP API routes Flow uses (retain
// `POST /v1/default/banks/{bank}/memories` with `{ items, async }`, recall `POST .../memories/recall`
// with `{ query, budget, max_tokens, tags }` answering `{ results: [{ id, text, type }] }`, and
// `GET .../mental-models/{id}` answering `{ id, bank_id, name, content }`, bearer auth). The hosted
// engine cannot run here; its recall is plain word overlap, enough to tell memories apart.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

interface StoredMemory {
  id: string;
  bank: string;
  content: string;
  context?: string;
  tags?: string[];
  document_id?: string;
  timestamp?: string;
  metadata?: Record<string, string>;
}

interface EngineServer {
  url: string;
  memories: StoredMemory[];
  /** Recall requests as received. */
  recalls: Array<{ bank: string; body: Record<string, unknown> }>;
  mentalModels: Map<string, { name: string; content: string }>;
  /** Authorization headers seen. */
  auth: string[];
  /** While set, every request is answered with this status. */
  failWith: number | null;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return chunks.length ? (JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>) : {};
}

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

async function startEngineServer(): Promise<EngineServer> {
  let n = 0;
  const state: Omit<EngineServer, "url" | "close"> = { memories: [], recalls: [], mentalModels: new Map(), auth: [], failWith: null };
  const server: Server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    state.auth.push(String(req.headers.authorization ?? ""));
    if (state.failWith !== null) return send(state.failWith, { detail: "engine unavailable" });
    const m = /^\/v1\/default\/banks\/([^/]+)\/(memories|memories\/recall|mental-models\/([^/]+))$/.exec(req.url ?? "");
    if (!m) return send(404, { detail: "Not Found" });
    const bank = decodeURIComponent(m[1]!);
    if (req.method === "POST" && m[2] === "memories") {
      const body = await bodyOf(req);
      for (const item of body.items as Array<Omit<StoredMemory, "id" | "bank">>) {
        const same = state.memories.findIndex((x) => x.bank === bank && item.document_id !== undefined && x.document_id === item.document_id);
        const stored = { id: `mem-${++n}`, bank, ...item };
        if (same >= 0) state.memories[same] = stored;
        else state.memories.push(stored);
      }
      return send(200, { success: true, bank_id: bank, items_count: (body.items as unknown[]).length, async: body.async === true });
    }
    if (req.method === "POST" && m[2] === "memories/recall") {
      const body = await bodyOf(req);
      state.recalls.push({ bank, body });
      const q = words(String(body.query));
      const tags = (body.tags as string[] | undefined) ?? [];
      const results = state.memories
        .filter((x) => x.bank === bank && tags.every((t) => x.tags?.includes(t)))
        .map((x) => ({ x, overlap: [...words(x.content)].filter((w) => q.has(w)).length }))
        .filter((s) => s.overlap > 0)
        .sort((a, b) => b.overlap - a.overlap)
        .map(({ x }) => ({ id: x.id, text: x.content, type: "world", context: x.context ?? null, tags: x.tags ?? [] }));
      return send(200, { results });
    }
    if (req.method === "GET" && m[3]) {
      const model = state.mentalModels.get(`${bank}/${decodeURIComponent(m[3])}`);
      return model ? send(200, { id: m[3], bank_id: bank, name: model.name, source_query: "", content: model.content }) : send(404, { detail: "Mental model not found" });
    }
    return send(405, { detail: "Method Not Allowed" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as EngineServer;
}

describe.each(testBackends)("engine memory store on $name", (backend) => {
  let server: EngineServer;
  beforeAll(async () => {
    server = await startEngineServer();
  });
  afterAll(() => server.close());

  async function open() {
    server.memories.length = 0;
    server.recalls.length = 0;
    server.auth.length = 0;
    server.failWith = null;
    const clock = fakeClock();
    const { api } = await backend.open({ output: z.object({ ok: z.boolean() }) }, { env: { clock, newId: counterIds("e") } });
    const logs: string[] = [];
    const memory = createEngineMemoryStore({
      baseUrl: `${server.url}/`,
      contractStore: createMemoryStore(api.db),
      apiKey: "secret-key",
      clock,
      retryDelayMs: 500,
      log: (message) => void logs.push(message),
    });
    return { memory, clock, logs, local: createMemoryStore(api.db) };
  }

  it("writes to the local store first and projects facts, messages and notes to the bank of their namespace", async () => {
    const { memory, local } = await open();
    const fact = await memory.setFact({ kind: "user", id: "alice" }, "timezone", "Europe/Paris");
    const thread = await memory.createThread({ kind: "user", id: "alice" }, "chat");
    const msg = await memory.saveMessage({ threadId: thread.threadId, role: "user", contentJson: '"I moved to Paris"' });
    const note = await memory.saveNote({ namespace: { kind: "agent", id: "support" }, body: "Refunds need a ticket id", kind: "policy", tags: ["refunds"] });
    await memory.flushProjections();
    expect(await local.getFact({ kind: "user", id: "alice" }, "timezone")).toEqual(fact);
    expect(await local.getNote(note.id)).toEqual(note);
    expect(server.memories.map((m) => [m.bank, m.document_id, m.content])).toEqual([
      ["user:alice", "fact:user:alice:timezone", 'timezone: "Europe/Paris"'],
      ["user:alice", `message:${msg.id}`, '"I moved to Paris"'],
      ["agent:support", `note:${note.id}`, "Refunds need a ticket id"],
    ]);
    expect(server.memories[2]).toMatchObject({ context: "note:policy", tags: ["refunds"] });
    expect(server.auth.every((h) => h === "Bearer secret-key")).toBe(true);
    // Writing the same fact again replaces its projection (same document id).
    await memory.setFact({ kind: "user", id: "alice" }, "timezone", "Asia/Tokyo");
    await memory.flushProjections();
    expect(server.memories.filter((m) => m.document_id === "fact:user:alice:timezone").map((m) => m.content)).toEqual(['timezone: "Asia/Tokyo"']);
    expect(await memory.pendingProjections()).toBe(0);
  });

  it("never rejects a committed write when the engine is down: logs, queues and retries with backoff", async () => {
    const { memory, clock, logs, local } = await open();
    server.failWith = 503;
    const note = await memory.saveNote({ namespace: "agent:support", body: "Escalate outages to on-call" });
    await memory.flushProjections();
    expect(await local.getNote(note.id)).toEqual(note);
    expect(await memory.pendingProjections()).toBe(1);
    expect(logs.some((l) => l.includes(`note:${note.id}`))).toBe(true);
    // Still down at the first timed retry: queued again with a longer delay.
    clock.advance(1000);
    await memory.flushProjections();
    expect(await memory.pendingProjections()).toBe(1);
    server.failWith = null;
    clock.advance(60_000);
    // The timed retry delivers it, without a flush.
    await vi.waitFor(() => expect(server.memories.length).toBe(1));
    expect(await memory.pendingProjections()).toBe(0);
    expect(server.memories.map((m) => m.content)).toEqual(["Escalate outages to on-call"]);
  });

  it("recalls with budget, max_tokens and tags, reads primers, and retains on request", async () => {
    const { memory } = await open();
    await memory.retainMemory("agent:support", "Refund requests need the order number", { tags: ["refunds"], documentId: "doc-1", context: "policy" });
    await memory.retainMemory("agent:support", "Shipping takes five days", { tags: ["shipping"] });
    const hits = await memory.recallMemory("agent:support", "how do refund requests work", { budget: "high", maxTokens: 512, tags: ["refunds"] });
    expect(hits.map((h) => h.text)).toEqual(["Refund requests need the order number"]);
    expect(hits[0]!.type).toBe("world");
    expect(server.recalls.at(-1)).toEqual({ bank: "agent:support", body: { query: "how do refund requests work", budget: "high", max_tokens: 512, tags: ["refunds"] } });
    server.mentalModels.set("agent:support/tone", { name: "Tone", content: "Always answer politely." });
    expect(await memory.getPrimers("agent:support", ["tone", "missing"])).toEqual([{ id: "tone", name: "Tone", content: "Always answer politely." }]);
    expect(await Effect.runPromise(memory.recallMemoryEffect("agent:support", "shipping days"))).toHaveLength(1);
    server.failWith = 500;
    expect((await rejection(memory.retainMemory("agent:support", "x"))).code).toBe("MEMORY_ENGINE_FAILED");
    expect((await rejection(memory.recallMemory("agent:support", "x"))).code).toBe("MEMORY_ENGINE_FAILED");
    const failed = await Effect.runPromise(Effect.flip(memory.getPrimersEffect("agent:support", ["tone"])));
    expect(failed.code).toBe("MEMORY_ENGINE_FAILED");
  });

  it("serves task memory: recall and primers in the prompt, retention on completion", async () => {
    const { memory } = await open();
    await memory.retainMemory("agent:support", "Customer Ada prefers email over phone");
    server.mentalModels.set("agent:support/style", { name: "Style", content: "Keep answers under 100 words." });
    const warnings: string[] = [];
    const ctx = { runId: "run-1", nodeId: "reply", iteration: 0, warn: (m: string) => void warnings.push(m) };
    const config = { bank: "agent:support", primers: ["style"], retain: "on-complete" as const };
    const prepared = await prepareTaskMemory(memory, config, "Write to customer Ada about her order", ctx);
    expect(prepared.block).toBe("<memory>\n## Primers\nKeep answers under 100 words.\n## Recalled memories\n- Customer Ada prefers email over phone\n</memory>");
    expect(prepared.prompt).toBe(`${prepared.block}\n\nWrite to customer Ada about her order`);
    await retainTaskMemory(memory, config, { prompt: "Write to customer Ada", output: { channel: "email" } }, ctx);
    expect(server.memories.find((m) => m.document_id === "task:run-1:reply:0")?.content).toContain('{"channel":"email"}');
    server.failWith = 503;
    const degraded = await prepareTaskMemory(memory, config, "Write to Ada", ctx);
    expect(degraded.prompt).toBe("Write to Ada");
    await retainTaskMemory(memory, config, { prompt: "p", output: {} }, ctx);
    expect(warnings.length).toBe(3);
  });
});
