/**
 * What a person reads about a queued write the workspace refused (sync/write-queue.ts
 * `describeRefusal`): a human-task answer that arrived after someone else answered says who
 * and how long before, as a decision on an approval does. The refusal is the engine's
 * APPROVAL_ALREADY_DECIDED (core/engine/waits/deliver.ts: `decidedBy`, `decision` (the
 * winning resolution: `{ value }` for a human task), `decidedAt`), kept by a real queue.
 */
import { describe, expect, it } from "vitest";
import { FlowError } from "../core/errors.js";
import { describeRefusal, type QueuedWrite, WriteQueue } from "./write-queue.js";

function mapStore() {
  const kept = new Map<string, QueuedWrite>();
  return { list: async (q: string) => [...kept.values()].filter((w) => w.queue === q), put: async (w: QueuedWrite) => void kept.set(w.writeId, structuredClone(w)), delete: async (id: string) => void kept.delete(id) };
}

/** Queues `kind`, delivers it into the refusal `ana` answered/decided `minutesBefore` minutes before it arrived. */
async function refusedAfter(kind: "humanTask" | "approve", params: Record<string, unknown>, decision: Record<string, unknown>, minutesBefore: number): Promise<QueuedWrite> {
  const queue = new WriteQueue(mapStore(), `q-${kind}`);
  await queue.add(kind, { runId: "r1", nodeId: "edit", ...params }, "label");
  const decidedAt = new Date(Date.now() - minutesBefore * 60_000).toISOString();
  await queue.deliver(async () => {
    throw new FlowError("APPROVAL_ALREADY_DECIDED", `"edit" of run r1 was already decided by ana (submitted) at ${decidedAt}; that decision stands.`, { runId: "r1", nodeId: "edit", decidedBy: "ana", decision, decidedAt });
  });
  return queue.all[0]!;
}

describe("describeRefusal", () => {
  it("says who answered a human task and how long before the queued answer arrived", async () => {
    const refused = await refusedAfter("humanTask", { value: { headline: "Mine" }, askedAtMs: 1 }, { value: { headline: "Ana's" } }, 3);
    expect(refused.state).toBe("refused");
    expect(describeRefusal(refused)).toBe("ana answered this 3 min before your answer arrived.");
  });

  it("keeps the approval wording: who approved and how long before the denial arrived", async () => {
    const refused = await refusedAfter("approve", { decision: "deny" }, { approved: true, decidedAt: null }, 2);
    expect(describeRefusal(refused)).toBe("ana approved this 2 min before your denial arrived.");
  });
});

/** A `send` that holds each write until `answer(runId)` is called, noting the order writes were sent in. */
function heldSend() {
  const sent: string[] = [];
  const held = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  const send = (w: QueuedWrite) =>
    new Promise<void>((resolve, reject) => {
      const id = `${w.kind}:${String(w.params.runId)}`;
      sent.push(id);
      held.set(id, { resolve, reject });
    });
  const settle = async (id: string, error?: unknown) => {
    await until(() => held.has(id), `${id} to be sent`);
    const h = held.get(id)!;
    held.delete(id);
    if (error) h.reject(error);
    else h.resolve();
  };
  return { sent, send, answer: (id: string) => settle(id), fail: (id: string, error: unknown) => settle(id, error) };
}

async function until(ok: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 2000;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

describe("WriteQueue.deliver", () => {
  it("sends the first write alone, then writes on different runs together in the order made, and a write on the same run only once the earlier one was answered", async () => {
    const queue = new WriteQueue(mapStore(), "q-order");
    await queue.add("launch", { runId: "r0", workflow: "release" }, "l0");
    await queue.add("approve", { runId: "r1", nodeId: "ship", decision: "approve" }, "a1");
    await queue.add("launch", { runId: "r2", workflow: "release" }, "l2");
    await queue.add("signal", { runId: "r1", name: "go" }, "s1");
    await queue.add("launch", { runId: "r3", workflow: "release" }, "l3");
    const h = heldSend();
    const delivered = queue.deliver(h.send);
    await until(() => h.sent.length === 1, "the first write in flight");
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toEqual(["launch:r0"]);
    await h.answer("launch:r0");
    // r2 and r3 do not wait for r1's approval; r1's signal does.
    await until(() => h.sent.length === 4, "three writes in flight");
    expect(h.sent).toEqual(["launch:r0", "approve:r1", "launch:r2", "launch:r3"]);
    await h.answer("launch:r3");
    await h.answer("launch:r2");
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toHaveLength(4);
    await h.answer("approve:r1");
    await h.answer("signal:r1");
    await delivered;
    expect(h.sent).toEqual(["launch:r0", "approve:r1", "launch:r2", "launch:r3", "signal:r1"]);
    expect(queue.all).toEqual([]);
  });

  it("sends a cancel after every earlier write was answered, and later writes after the cancel", async () => {
    const queue = new WriteQueue(mapStore(), "q-cancel");
    await queue.add("launch", { runId: "r1", workflow: "release" }, "l1");
    await queue.add("cancel", { runId: "r2" }, "c2");
    await queue.add("launch", { runId: "r3", workflow: "release" }, "l3");
    const h = heldSend();
    const delivered = queue.deliver(h.send);
    await until(() => h.sent.length === 1, "the first write in flight");
    await new Promise((r) => setTimeout(r, 20));
    expect(h.sent).toEqual(["launch:r1"]);
    await h.answer("launch:r1");
    await h.answer("cancel:r2");
    await h.answer("launch:r3");
    await delivered;
    expect(h.sent).toEqual(["launch:r1", "cancel:r2", "launch:r3"]);
  });

  it("stops at a write that does not reach the Gateway: it and the writes on its run stay queued in order, a refused write is kept", async () => {
    const store = mapStore();
    const queue = new WriteQueue(store, "q-stop");
    await queue.add("launch", { runId: "r0", workflow: "release" }, "l0");
    await queue.add("approve", { runId: "r1", nodeId: "ship", decision: "approve" }, "a1");
    await queue.add("approve", { runId: "r2", nodeId: "ship", decision: "deny" }, "d2");
    await queue.add("signal", { runId: "r1", name: "go" }, "s1");
    const h = heldSend();
    const delivered = queue.deliver(h.send);
    await h.answer("launch:r0");
    await until(() => h.sent.length === 3, "two writes in flight");
    await h.fail("approve:r2", new FlowError("APPROVAL_ALREADY_DECIDED", "decided", { decidedBy: "ana" }));
    await h.fail("approve:r1", new TypeError("Failed to fetch"));
    await delivered;
    expect(h.sent).toEqual(["launch:r0", "approve:r1", "approve:r2"]);
    expect(queue.all.map((w) => `${w.label}:${w.state}`)).toEqual(["a1:waiting", "d2:refused", "s1:waiting"]);
    expect((await store.list("q-stop")).length).toBe(3);
    // Not reached first: nothing else is sent.
    const offline = heldSend();
    const tried = queue.deliver(offline.send);
    await offline.fail("approve:r1", new TypeError("Failed to fetch"));
    await tried;
    expect(offline.sent).toEqual(["approve:r1"]);
    // Back: the approval first, then the signal on its run.
    const again = heldSend();
    const second = queue.deliver(again.send);
    await again.answer("approve:r1");
    await again.answer("signal:r1");
    await second;
    expect(again.sent).toEqual(["approve:r1", "signal:r1"]);
    expect(queue.all.map((w) => w.label)).toEqual(["d2"]);
  });
});

describe("a delivered write", () => {
  it("is listed as sent, no longer waiting nor stored, until its change reached the shapes; then it goes", async () => {
    const store = mapStore();
    const queue = new WriteQueue(store, "q-sent");
    const { writeId } = await queue.add("approve", { runId: "r1", nodeId: "ship", decision: "approve" }, 'Approving "ship" of run r1');
    let arrived!: () => void;
    const txid = new Promise<void>((resolve) => (arrived = resolve));
    const confirmedWith: unknown[] = [];
    await queue.deliver(
      async () => ({ ok: true, txids: { approvals: [7] } }),
      (write, answer) => (confirmedWith.push(write.writeId, answer), txid),
    );
    expect(queue.all.map((w) => [w.writeId, w.state])).toEqual([[writeId, "sent"]]);
    expect(queue.waiting).toBe(0);
    expect(await store.list("q-sent")).toEqual([]);
    expect(confirmedWith).toEqual([writeId, { ok: true, txids: { approvals: [7] } }]);
    // Delivering again sends nothing: a sent write is never sent twice.
    let sent = 0;
    await queue.deliver(async () => void sent++);
    expect(sent).toBe(0);
    arrived();
    await txid;
    await new Promise((r) => setTimeout(r, 0));
    expect(queue.all).toEqual([]);
  });
});
