import { createCollection } from "@tanstack/db";
import { describe, expect, it } from "vitest";
import type { LastSeenStore } from "../core/data/index.js";
import { persistShape, type SavedShape, savedRows } from "./shape-cache.js";

interface Row {
  id: string;
  n: number;
}
type Params = { begin: () => void; write: (m: { type: string; value: Row }) => void; commit: () => void; markReady: () => void; metadata: { collection: { set(k: string, v: unknown): void } } };

/** A collection whose stream is driven by the test (`stream()` is its sync params), kept in `store`. */
function kept(store: LastSeenStore) {
  let stream!: Params;
  const options = persistShape({ id: `rows-${Math.random()}`, getKey: (r: Row) => r.id, sync: { sync: (p: unknown) => void (stream = p as Params) } }, store, "rows:shape", (r) => (r as Row).id, 0);
  const col = createCollection(options as never) as unknown as { preload(): Promise<void>; size: number; get(k: string): Row | undefined };
  return { col, stream: () => stream };
}

function commit(p: Params, rows: Row[], offset: string, handle = "h1") {
  p.begin();
  for (const value of rows) p.write({ type: "insert", value });
  p.metadata.collection.set("electric:resume", { kind: "resume", offset, handle });
  p.commit();
}

const settle = () => new Promise((r) => setTimeout(r, 20));

/** A collection over `store` that synced `count` rows up to `offset` and turned ready. */
async function syncedOnline(store: LastSeenStore, count: number, offset: string) {
  const online = kept(store);
  void online.col.preload();
  await settle();
  commit(online.stream(), Array.from({ length: count }, (_, i) => ({ id: `r${i}`, n: i })), offset);
  online.stream().markReady();
  await settle();
  return online;
}

/**
 * Reopens a kept shape and reads the collection's size from a timer set before the seed: a
 * seed that yields between its transactions lets the timer run after the first of them.
 */
async function reopenTimed(store: LastSeenStore) {
  const reopened = kept(store);
  let firstSize = -1;
  const seen = new Promise<void>((resolve) => setTimeout(() => ((firstSize = reopened.col.size), resolve()), 0));
  await reopened.col.preload();
  await seen;
  return { reopened, firstSize };
}

describe("persistShape", () => {
  it("reads the store when built, opens from the kept rows, and saves them again only when a transaction changes a row", async () => {
    const saved = new Map<string, SavedShape>();
    const saves: string[] = [];
    let loads = 0;
    const store: LastSeenStore = { save: (id, v) => void (saves.push(id), saved.set(id, structuredClone(v) as SavedShape)), load: async (id) => (loads++, saved.get(id)) };

    await syncedOnline(store, 3, "1_0");
    expect(saves).toHaveLength(1);
    expect(savedRows(saved.get("rows:shape"))).toHaveLength(3);

    // Reopened: the store is read as the collection is built (before a view subscribes), once;
    // the kept rows at once; the stream's up-to-date (no row) saves nothing again.
    const reopened = kept(store);
    expect(loads).toBe(2);
    await reopened.col.preload();
    expect(loads).toBe(2);
    expect(reopened.col.size).toBe(3);
    await settle();
    commit(reopened.stream(), [], "1_0");
    await settle();
    expect(saves).toHaveLength(1);

    // A changed row is saved, with the resume point the stream reached meanwhile.
    commit(reopened.stream(), [{ id: "r3", n: 3 }], "2_0");
    await settle();
    expect(saves).toHaveLength(2);
    expect(saved.get("rows:shape")).toMatchObject({ resume: { offset: "2_0", handle: "h1" } });
    expect(savedRows(saved.get("rows:shape"))).toHaveLength(4);

    // A new handle (the shape was rotated) is saved even with no row.
    commit(reopened.stream(), [], "0_0", "h2");
    await settle();
    expect(saves).toHaveLength(3);
    expect(saved.get("rows:shape")).toMatchObject({ resume: { handle: "h2" } });
  });

  it("keeps a big shape as JSON parts of 250 rows and opens it one part per transaction, the page free between them, ready once all are in", async () => {
    const saved = new Map<string, SavedShape>();
    const store: LastSeenStore = { save: (id, v) => void saved.set(id, structuredClone(v) as SavedShape), load: async (id) => structuredClone(saved.get(id)) };
    await syncedOnline(store, 2600, "9_0");
    // Text, not 2,600 objects: reading it back is a copy of strings.
    const kept2600 = saved.get("rows:shape")!;
    expect(kept2600.count).toBe(2600);
    expect(kept2600.parts).toHaveLength(11);
    expect(kept2600.parts.every((p) => typeof p === "string")).toBe(true);
    expect(JSON.parse(kept2600.parts[10]!)).toHaveLength(100);

    const { reopened, firstSize } = await reopenTimed(store);
    expect(reopened.col.size).toBe(2600);
    expect(firstSize).toBeGreaterThan(0);
    expect(firstSize).toBeLessThanOrEqual(250);
    expect(reopened.col.get("r2599")).toMatchObject({ id: "r2599", n: 2599 });
  });

  it("opens a shape kept before parts (its rows as objects) the same way", async () => {
    const rows = Array.from({ length: 600 }, (_, i) => ({ id: `r${i}`, n: i }));
    const store: LastSeenStore = { save: () => undefined, load: async () => ({ rows, resume: { kind: "resume", offset: "9_0", handle: "h1" } }) };
    const { reopened, firstSize } = await reopenTimed(store);
    expect(reopened.col.size).toBe(600);
    expect(firstSize).toBeLessThan(600);
    expect(reopened.col.get("r599")).toMatchObject({ id: "r599", n: 599 });
  });
});
