import { Effect, Exit } from "effect";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryLayer, createMemoryStore, isFlowError, MemoryService, type MemoryStore } from "durable-flow";
import { testBackends } from "../../node/testing/backends.js";
import { counterIds, fakeClock, rejection } from "./testing.js";

const schemas = { output: z.object({ ok: z.boolean() }) };

describe.each(testBackends)("memory store on $name", (backend) => {
  async function open() {
    const clock = fakeClock();
    const { api, close } = await backend.open(schemas, { env: { clock, newId: counterIds("m") } });
    return { memory: createMemoryStore(api.db), clock, api, close };
  }

  describe("facts", () => {
    it("keeps the last write, its first creation time and the JSON value", async () => {
      const { memory, clock } = await open();
      const ns = { kind: "user", id: "alice" } as const;
      const first = await memory.setFact(ns, "theme", { color: "dark" });
      clock.advance(1000);
      await memory.setFact(ns, "theme", { color: "light", size: 2 });
      const fact = await memory.getFact(ns, "theme");
      expect(fact).toEqual({
        namespace: "user:alice",
        key: "theme",
        valueJson: JSON.stringify({ color: "light", size: 2 }),
        schemaSig: null,
        createdAtMs: first.createdAtMs,
        updatedAtMs: first.createdAtMs + 1000,
        ttlMs: null,
      });
      expect(await memory.getFact(ns, "missing")).toBeUndefined();
      expect(await memory.getFact({ kind: "user", id: "bob" }, "theme")).toBeUndefined();
    });

    it("treats a serialized namespace string and the structured form as the same namespace", async () => {
      const { memory } = await open();
      await memory.setFact("workflow:a%3Ab", "k", 1);
      expect((await memory.getFact({ kind: "workflow", id: "a:b" }, "k"))?.valueJson).toBe("1");
      await memory.setFact("plain", "k", 2);
      expect((await memory.getFact({ kind: "global", id: "plain" }, "k"))?.namespace).toBe("global:plain");
    });

    it("hides a fact once its TTL ran out and deleteExpiredFacts removes exactly the expired ones", async () => {
      const { memory, clock } = await open();
      const ns = { kind: "agent", id: "a1" } as const;
      await memory.setFact(ns, "short", "s", 1000);
      await memory.setFact(ns, "long", "l", 5000);
      await memory.setFact(ns, "forever", "f");
      clock.advance(999);
      expect((await memory.listFacts(ns)).map((f) => f.key)).toEqual(["forever", "long", "short"]);
      clock.advance(1);
      expect(await memory.getFact(ns, "short")).toBeUndefined();
      expect((await memory.listFacts(ns)).map((f) => f.key)).toEqual(["forever", "long"]);
      expect(await memory.deleteExpiredFacts()).toBe(1);
      expect(await memory.deleteExpiredFacts()).toBe(0);
      // A new write restarts the TTL from that write.
      clock.advance(3000);
      await memory.setFact(ns, "long", "l2", 5000);
      clock.advance(4000);
      expect((await memory.getFact(ns, "long"))?.valueJson).toBe('"l2"');
      expect((await memory.getFact(ns, "long"))?.ttlMs).toBe(5000);
    });

    it("lists facts of one namespace by key and of all namespaces, and deletes one", async () => {
      const { memory } = await open();
      await memory.setFact({ kind: "user", id: "u" }, "b", 2);
      await memory.setFact({ kind: "user", id: "u" }, "a", 1);
      await memory.setFact({ kind: "global", id: "g" }, "z", 3);
      expect((await memory.listFacts({ kind: "user", id: "u" })).map((f) => f.key)).toEqual(["a", "b"]);
      expect((await memory.listAllFacts()).map((f) => `${f.namespace}/${f.key}`)).toEqual(["global:g/z", "user:u/a", "user:u/b"]);
      await memory.deleteFact({ kind: "user", id: "u" }, "a");
      expect(await memory.getFact({ kind: "user", id: "u" }, "a")).toBeUndefined();
      expect((await memory.listAllFacts()).length).toBe(2);
    });

    it("rejects values that are not JSON-serializable and non-positive TTLs", async () => {
      const { memory } = await open();
      expect((await rejection(memory.setFact("user:u", "k", undefined))).code).toBe("INVALID_ARGUMENT");
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect((await rejection(memory.setFact("user:u", "k", cyclic))).code).toBe("INVALID_ARGUMENT");
      expect((await rejection(memory.setFact("user:u", "k", 1, 0))).code).toBe("INVALID_ARGUMENT");
      expect(await memory.listAllFacts()).toEqual([]);
    });
  });

  describe("threads and messages", () => {
    it("keeps messages in save order within one millisecond, and limit returns the newest, oldest first", async () => {
      const { memory } = await open();
      const thread = await memory.createThread({ kind: "user", id: "u" }, "Chat");
      expect(await memory.getThread(thread.threadId)).toEqual(thread);
      for (let i = 0; i < 5; i++) await memory.saveMessage({ threadId: thread.threadId, role: i % 2 ? "assistant" : "user", contentJson: JSON.stringify(`m${i}`) });
      const all = await memory.listMessages(thread.threadId);
      expect(all.map((m) => JSON.parse(m.contentJson))).toEqual(["m0", "m1", "m2", "m3", "m4"]);
      expect((await memory.listMessages(thread.threadId, 2)).map((m) => JSON.parse(m.contentJson))).toEqual(["m3", "m4"]);
      expect(await memory.countMessages(thread.threadId)).toBe(5);
      expect(all[0]).toMatchObject({ role: "user", runId: null, nodeId: null, threadId: thread.threadId });
    });

    it("orders by createdAtMs when given, defaults it to now, and keeps provenance", async () => {
      const { memory, clock } = await open();
      const { threadId } = await memory.createThread("user:u");
      await memory.saveMessage({ threadId, role: "user", contentJson: '"late"', createdAtMs: clock.now() + 50 });
      const early = await memory.saveMessage({ threadId, role: "user", contentJson: '"now"', runId: "r1", nodeId: "n1" });
      expect(early.createdAtMs).toBe(clock.now());
      expect((await memory.listMessages(threadId)).map((m) => m.contentJson)).toEqual(['"now"', '"late"']);
      expect((await memory.listMessages(threadId))[0]).toMatchObject({ runId: "r1", nodeId: "n1" });
    });

    it("saves a message id once, refuses unknown threads and marks the thread active", async () => {
      const { memory, clock } = await open();
      const a = await memory.createThread("user:u", "a");
      clock.advance(10);
      const b = await memory.createThread("user:u", "b");
      clock.advance(10);
      await memory.saveMessage({ id: "msg-1", threadId: a.threadId, role: "user", contentJson: '"hi"' });
      const again = await memory.saveMessage({ id: "msg-1", threadId: a.threadId, role: "user", contentJson: '"changed"' });
      expect(again.contentJson).toBe('"hi"');
      expect(await memory.countMessages(a.threadId)).toBe(1);
      expect((await memory.listThreads()).map((t) => t.title)).toEqual(["a", "b"]);
      expect((await memory.getThread(a.threadId))?.updatedAtMs).toBe(clock.now());
      expect((await rejection(memory.saveMessage({ threadId: "nope", role: "user", contentJson: "1" }))).code).toBe("THREAD_NOT_FOUND");
    });

    it("deletes chosen messages of a thread and counts only those that existed", async () => {
      const { memory } = await open();
      const t1 = await memory.createThread("user:u");
      const t2 = await memory.createThread("user:u");
      const m1 = await memory.saveMessage({ threadId: t1.threadId, role: "user", contentJson: "1" });
      const m2 = await memory.saveMessage({ threadId: t1.threadId, role: "user", contentJson: "2" });
      const other = await memory.saveMessage({ threadId: t2.threadId, role: "user", contentJson: "3" });
      expect(await memory.deleteMessages(t1.threadId, [m1.id, other.id, "missing"])).toBe(1);
      expect((await memory.listMessages(t1.threadId)).map((m) => m.id)).toEqual([m2.id]);
      expect(await memory.countMessages(t2.threadId)).toBe(1);
      expect(await memory.deleteMessages(t1.threadId, [])).toBe(0);
    });

    it("deleteThread removes the thread and all its messages and leaves other threads", async () => {
      const { memory } = await open();
      const t1 = await memory.createThread("user:u", "gone");
      const t2 = await memory.createThread("user:u", "kept");
      for (let i = 0; i < 3; i++) await memory.saveMessage({ threadId: t1.threadId, role: "user", contentJson: `${i}` });
      await memory.saveMessage({ threadId: t2.threadId, role: "user", contentJson: "x" });
      await memory.deleteThread(t1.threadId);
      expect(await memory.getThread(t1.threadId)).toBeUndefined();
      expect(await memory.countMessages(t1.threadId)).toBe(0);
      expect((await memory.listThreads()).map((t) => t.title)).toEqual(["kept"]);
      expect(await memory.countMessages(t2.threadId)).toBe(1);
      await memory.deleteThread("never-existed");
    });
  });

  describe("notes", () => {
    const ns = { kind: "workflow", id: "wf" } as const;

    it("saves a note with defaults and provenance, and re-saving its id is a no-op", async () => {
      const { memory, clock } = await open();
      const note = await memory.saveNote({ namespace: ns, body: "Use pnpm", kind: "decision", tags: ["build"], author: "agent-1", provenance: { runId: "r1", nodeId: "plan", iteration: 2 }, id: "n-1" });
      expect(note).toEqual({
        id: "n-1",
        namespace: "workflow:wf",
        body: "Use pnpm",
        kind: "decision",
        tagsJson: '["build"]',
        author: "agent-1",
        status: "accepted",
        statusChangedAtMs: null,
        createdAtMs: clock.now(),
        runId: "r1",
        nodeId: "plan",
        iteration: 2,
      });
      clock.advance(5);
      const again = await memory.saveNote({ namespace: ns, body: "Use npm", id: "n-1", status: "pending" });
      expect(again).toEqual(note);
      expect(await memory.getNote("n-1")).toEqual(note);
      expect(await memory.getNote("missing")).toBeUndefined();
      const bare = await memory.saveNote({ namespace: ns, body: "b" });
      expect(bare).toMatchObject({ kind: null, tagsJson: null, author: null, runId: null, nodeId: null, iteration: null, status: "accepted" });
    });

    it("lists oldest first under the read contract: an accepted superseder hides, a pending or rejected one does not", async () => {
      const { memory, clock } = await open();
      const old = await memory.saveNote({ namespace: ns, body: "old" });
      clock.advance(1);
      const pending = await memory.saveNote({ namespace: ns, body: "proposal", status: "pending", supersedes: [old.id] });
      clock.advance(1);
      const rejected = await memory.saveNote({ namespace: ns, body: "bad idea", status: "rejected", supersedes: [old.id] });
      clock.advance(1);
      const other = await memory.saveNote({ namespace: ns, body: "other" });
      expect((await memory.listNotes(ns)).map((n) => n.body)).toEqual(["old", "other"]);

      clock.advance(1);
      const accepted = await memory.setNoteStatus(pending.id, "accepted");
      expect(accepted.statusChangedAtMs).toBe(clock.now());
      expect(accepted.status).toBe("accepted");
      expect((await memory.listNotes(ns)).map((n) => n.body)).toEqual(["proposal", "other"]);

      expect((await memory.listNotes(ns, { includeSuperseded: true })).map((n) => n.body)).toEqual(["old", "proposal", "other"]);
      expect((await memory.listNotes(ns, { status: "any" })).map((n) => n.body)).toEqual(["proposal", "bad idea", "other"]);
      expect((await memory.listNotes(ns, { status: "any", includeSuperseded: true })).map((n) => n.id)).toEqual([old.id, pending.id, rejected.id, other.id]);
      expect((await memory.listNotes(ns, { status: ["rejected"] })).map((n) => n.body)).toEqual(["bad idea"]);
      expect(await memory.listNotes({ kind: "workflow", id: "other" })).toEqual([]);
    });

    it("filters by the kind label", async () => {
      const { memory } = await open();
      await memory.saveNote({ namespace: ns, body: "a", kind: "decision" });
      await memory.saveNote({ namespace: ns, body: "b", kind: "todo" });
      await memory.saveNote({ namespace: ns, body: "c" });
      expect((await memory.listNotes(ns, { kind: "decision" })).map((n) => n.body)).toEqual(["a"]);
    });

    it("writes a note and its supersedes edges atomically: an unknown target saves nothing", async () => {
      const { memory } = await open();
      const a = await memory.saveNote({ namespace: ns, body: "a" });
      const error = await rejection(memory.saveNote({ namespace: ns, body: "b", id: "b", supersedes: [a.id, "ghost"] }));
      expect(error.code).toBe("NOTE_NOT_FOUND");
      expect(error.details).toMatchObject({ missing: ["ghost"] });
      expect(await memory.getNote("b")).toBeUndefined();
      // No edge from the failed save survives: `a` is still visible.
      expect((await memory.listNotes(ns)).map((n) => n.id)).toEqual([a.id]);
      await memory.saveNote({ namespace: ns, body: "b", id: "b", supersedes: [a.id] });
      expect((await memory.listNotes(ns)).map((n) => n.id)).toEqual(["b"]);
    });

    it("supersedes across chains: only notes superseded by an accepted note are hidden", async () => {
      const { memory } = await open();
      const v1 = await memory.saveNote({ namespace: ns, body: "v1" });
      const v2 = await memory.saveNote({ namespace: ns, body: "v2", supersedes: [v1.id] });
      await memory.saveNote({ namespace: ns, body: "v3", supersedes: [v2.id], status: "pending" });
      expect((await memory.listNotes(ns)).map((n) => n.body)).toEqual(["v2"]);
      await memory.setNoteStatus(v2.id, "rejected");
      // v2 is no longer accepted: it neither shows nor hides v1.
      expect((await memory.listNotes(ns)).map((n) => n.body)).toEqual(["v1"]);
    });

    it("fails setNoteStatus on a missing note", async () => {
      const { memory } = await open();
      const error = await rejection(memory.setNoteStatus("nope", "accepted"));
      expect(error.code).toBe("NOTE_NOT_FOUND");
      expect(error.message).toContain("nope");
    });
  });

  describe("note search", () => {
    const nsA = { kind: "agent", id: "a" } as const;
    const nsB = { kind: "agent", id: "b" } as const;

    it("fails for a kind never enabled, instead of returning nothing", async () => {
      const { memory } = await open();
      await memory.saveNote({ namespace: nsA, body: "postgres tuning" });
      expect((await rejection(memory.searchNotes("agent", "postgres"))).code).toBe("NOTE_SEARCH_NOT_ENABLED");
      await memory.enableNoteSearch("user");
      expect((await rejection(memory.searchNotes("agent", "postgres"))).code).toBe("NOTE_SEARCH_NOT_ENABLED");
      expect((await rejection(memory.enableNoteSearch("team" as "user"))).code).toBe("INVALID_ARGUMENT");
    });

    it("backfills notes saved before enabling, indexes notes saved after, and is idempotent", async () => {
      const { memory } = await open();
      const before = await memory.saveNote({ namespace: nsA, body: "The database migration uses advisory locks" });
      await memory.saveNote({ namespace: { kind: "user", id: "a" }, body: "database of another kind" });
      await memory.enableNoteSearch("agent");
      await memory.enableNoteSearch("agent");
      const after = await memory.saveNote({ namespace: nsB, body: "Migrations are numbered; the database keeps a ledger" });
      const hits = await memory.searchNotes("agent", "database");
      expect(hits.map((n) => n.id).sort()).toEqual([before.id, after.id].sort());
      expect(await memory.searchNotes("agent", "kubernetes")).toEqual([]);
      expect(await memory.searchNotes("agent", "   ")).toEqual([]);
    });

    it("ranks the note matching more and rarer words first, and stems words", async () => {
      const { memory } = await open();
      await memory.enableNoteSearch("agent");
      const filler = ["The build is green", "Deploys run nightly", "The build cache is warm", "Retry the build later", "Tests run in parallel"];
      for (const body of filler) await memory.saveNote({ namespace: nsA, body });
      const best = await memory.saveNote({ namespace: nsA, body: "Flaky integration tests were caused by a shared temporary directory" });
      const partial = await memory.saveNote({ namespace: nsA, body: "The build uses a temporary workspace" });
      const hits = await memory.searchNotes("agent", "flaky temporary directories in the build", 3);
      expect(hits[0]!.id).toBe(best.id);
      expect(hits.map((n) => n.id)).toContain(partial.id);
      expect(hits.length).toBe(3);
    });

    it("spans every namespace of the kind unless filter.namespace is set", async () => {
      const { memory } = await open();
      await memory.enableNoteSearch("agent");
      const a = await memory.saveNote({ namespace: nsA, body: "cache invalidation strategy" });
      const b = await memory.saveNote({ namespace: nsB, body: "cache warmup strategy" });
      expect((await memory.searchNotes("agent", "cache strategy")).map((n) => n.id).sort()).toEqual([a.id, b.id].sort());
      expect((await memory.searchNotes("agent", "cache strategy", 10, { namespace: nsB })).map((n) => n.id)).toEqual([b.id]);
      expect((await memory.searchNotes("agent", "cache strategy", 10, { namespace: "agent:b" })).map((n) => n.id)).toEqual([b.id]);
    });

    it("applies the read contract to results and filters by status and kind label", async () => {
      const { memory } = await open();
      await memory.enableNoteSearch("agent");
      const old = await memory.saveNote({ namespace: nsA, body: "deploy with rsync" });
      const replaced = await memory.saveNote({ namespace: nsA, body: "deploy with containers", supersedes: [old.id], kind: "decision" });
      const pending = await memory.saveNote({ namespace: nsA, body: "deploy on fridays", status: "pending" });
      expect((await memory.searchNotes("agent", "deploy")).map((n) => n.id)).toEqual([replaced.id]);
      expect((await memory.searchNotes("agent", "deploy", 10, { status: "any" })).map((n) => n.id).sort()).toEqual([replaced.id, pending.id].sort());
      expect((await memory.searchNotes("agent", "deploy", 10, { includeSuperseded: true })).map((n) => n.id).sort()).toEqual([old.id, replaced.id].sort());
      expect((await memory.searchNotes("agent", "deploy", 10, { kind: "decision", status: "any" })).map((n) => n.id)).toEqual([replaced.id]);
    });

    it("applies the read contract only to the top limit*5 matches, so fewer than limit may return", async () => {
      const { memory } = await open();
      await memory.enableNoteSearch("agent");
      // Six rejected notes that rank above one accepted note (more occurrences of the word).
      for (let i = 0; i < 6; i++) await memory.saveNote({ namespace: nsA, body: `zebra zebra zebra zebra rejected ${i}`, status: "rejected" });
      const accepted = await memory.saveNote({ namespace: nsA, body: "zebra crossing near the long office building on the corner of the street" });
      expect(await memory.searchNotes("agent", "zebra", 1)).toEqual([]);
      expect((await memory.searchNotes("agent", "zebra", 2)).map((n) => n.id)).toEqual([accepted.id]);
    });
  });

  describe("Effect twins", () => {
    it("gives every method an ...Effect twin that succeeds with the same value or fails with a FlowError", async () => {
      const { memory } = await open();
      const methods = Object.keys(memory).filter((k) => !k.endsWith("Effect"));
      expect(methods.length).toBe(20);
      for (const m of methods) expect(typeof (memory as unknown as Record<string, unknown>)[`${m}Effect`]).toBe("function");
      await Effect.runPromise(memory.setFactEffect("user:u", "k", { v: 1 }));
      expect((await Effect.runPromise(memory.getFactEffect("user:u", "k")))?.valueJson).toBe('{"v":1}');
      const exit = await Effect.runPromiseExit(memory.setNoteStatusEffect("missing", "accepted"));
      expect(Exit.isFailure(exit)).toBe(true);
      const failure = await Effect.runPromise(Effect.flip(memory.setNoteStatusEffect("missing", "accepted")));
      expect(isFlowError(failure, "NOTE_NOT_FOUND")).toBe(true);
    });

    it("provides MemoryService from createMemoryLayer, with effect operations and the Promise store", async () => {
      const { api } = await open();
      const layer = createMemoryLayer({ db: api.db });
      const program = Effect.gen(function* () {
        const memory = yield* MemoryService;
        yield* memory.setFact({ kind: "user", id: "u1" }, "theme", "dark");
        const note = yield* memory.saveNote({ namespace: "user:u1", body: "likes dark mode" });
        const fact = yield* memory.getFact({ kind: "user", id: "u1" }, "theme");
        const viaStore = yield* Effect.promise(() => (memory.store as MemoryStore).getNote(note.id));
        return { fact, viaStore };
      });
      const { fact, viaStore } = await Effect.runPromise(Effect.provide(program, layer));
      expect(fact?.valueJson).toBe('"dark"');
      expect(viaStore?.body).toBe("likes dark mode");
      const search = Effect.gen(function* () {
        const memory = yield* MemoryService;
        return yield* memory.searchNotes("agent", "x");
      });
      const failed = await Effect.runPromise(Effect.provide(Effect.flip(search), layer));
      expect(failed.code).toBe("NOTE_SEARCH_NOT_ENABLED");
    });
  });
});
