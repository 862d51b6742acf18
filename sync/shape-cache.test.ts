import { createCollection } from "@tanstack/db";
import { describe, expect, it } from "vitest";
import type { LastSeenStore } from "../core/data/index.js";
import { persistShape, type SavedShape } from "./shape-cache.js";

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

describe("persistShape", () => {
  it("reads the store when built, opens from the kept rows, and saves them again only when a transaction changes a row", async () => {
    const saved = new Map<string, SavedShape>();
    const saves: string[] = [];
    let loads = 0;
    const store: LastSeenStore = { save: (id, v) => void (saves.push(id), saved.set(id, structuredClone(v) as SavedShape)), load: async (id) => (loads++, saved.get(id)) };

    const online = kept(store);
    void online.col.preload();
    await settle();
    commit(online.stream(), Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, n: i })), "1_0");
    online.stream().markReady();
    await settle();
    expect(saves).toHaveLength(1);
    expect(saved.get("rows:shape")!.rows).toHaveLength(3);

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
    expect(saved.get("rows:shape")!.rows).toHaveLength(4);

    // A new handle (the shape was rotated) is saved even with no row.
    commit(reopened.stream(), [], "0_0", "h2");
    await settle();
    expect(saves).toHaveLength(3);
    expect(saved.get("rows:shape")).toMatchObject({ resume: { handle: "h2" } });
  });
});
