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
