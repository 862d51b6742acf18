import { createCollection, localOnlyCollectionOptions } from "@tanstack/db";
import { describe, expect, it } from "vitest";
import type { LiveCollection } from "../../core/data/index.js";
import { followRows } from "./collection-rows.js";

interface Run {
  runId: string;
  createdAtMs: number;
  status: string;
}
const newestFirst = (a: Run, b: Run) => b.createdAtMs - a.createdAtMs;
const runs = (initialData: Run[]) => createCollection(localOnlyCollectionOptions<Run, string>({ id: `runs-${Math.random()}`, getKey: (r) => r.runId, initialData })) as unknown as LiveCollection<Run>;
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("followRows", () => {
  it("reads a collection's rows sorted, then once per batch of changes, until stopped", async () => {
    const col = runs(Array.from({ length: 10_000 }, (_, i) => ({ runId: `r${i}`, createdAtMs: i, status: "finished" })));
    const seen: Run[][] = [];
    const statuses: string[] = [];
    const stop = followRows(col, newestFirst, (rows) => seen.push(rows), (s) => statuses.push(s));
    expect(statuses.at(-1)).toBe("ready");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.length).toBe(10_000);
    expect(seen[0]!.slice(0, 2).map((r) => r.runId)).toEqual(["r9999", "r9998"]);

    // Three changes in one task: one read, with all three.
    col.insert({ runId: "new", createdAtMs: 20_000, status: "running" });
    col.update("r9999", (d) => void (d.status = "failed"));
    col.delete("r0");
    await tick();
    expect(seen).toHaveLength(2);
    expect(seen[1]!.length).toBe(10_000);
    expect(seen[1]![0]).toMatchObject({ runId: "new", status: "running" });
    expect(seen[1]![1]).toMatchObject({ runId: "r9999", status: "failed" });
    expect(seen[1]!.some((r) => r.runId === "r0")).toBe(false);
    // The row that did not change is the same object (a view keyed by index keeps its row).
    expect(seen[1]![2]).toBe(seen[0]![1]);

    stop();
    col.insert({ runId: "after", createdAtMs: 30_000, status: "running" });
    await tick();
    expect(seen).toHaveLength(2);
  });

  it("waits for a collection that is not ready, then reads its rows", async () => {
    let sync!: { begin: () => void; write: (m: { type: "insert"; value: Run }) => void; commit: () => void; markReady: () => void };
    const col = createCollection<Run, string>({ id: `late-${Math.random()}`, getKey: (r) => r.runId, sync: { sync: (params) => void (sync = params as never) } }) as unknown as LiveCollection<Run>;
    const seen: Run[][] = [];
    const statuses: string[] = [];
    const order: string[] = [];
    followRows(col, newestFirst, (rows) => (seen.push(rows), order.push("rows")), (s) => (statuses.push(s), order.push(s)));
    expect(statuses.at(-1)).toBe("loading");
    // Two transactions while loading (kept rows open in chunks), then ready: one read, of both.
    sync.begin();
    sync.write({ type: "insert", value: { runId: "a", createdAtMs: 1, status: "running" } });
    sync.commit();
    await tick();
    sync.begin();
    sync.write({ type: "insert", value: { runId: "b", createdAtMs: 2, status: "running" } });
    sync.commit();
    sync.markReady();
    await tick();
    expect(statuses.at(-1)).toBe("ready");
    expect(seen.at(-1)!.map((r) => r.runId)).toEqual(["b", "a"]);
    expect(seen).toHaveLength(1);
    // "ready" is told with the rows, never before them (a view would show an empty list).
    expect(order.slice(-2)).toEqual(["rows", "ready"]);
  });

  it("reads the rows in the collection's order when no order is given (a count)", async () => {
    const col = runs([
      { runId: "b", createdAtMs: 1, status: "waiting" },
      { runId: "a", createdAtMs: 2, status: "waiting" },
    ]);
    const seen: Run[][] = [];
    followRows(col, undefined, (rows) => seen.push(rows));
    expect(seen.at(-1)!.map((r) => r.runId)).toEqual([...col.values()].map((r) => r.runId));
    // A batch of deletes alone is read too (an approval decided leaves the badge's collection).
    col.delete("b");
    await tick();
    expect(seen.at(-1)!.map((r) => r.runId)).toEqual(["a"]);
  });
});
