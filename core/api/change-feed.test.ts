import { describe, expect, it } from "vitest";
import { ChangeFeed } from "./change-feed.js";

describe("ChangeFeed", () => {
  it("resumes after an id within the window and resets a client that is too far behind or from another epoch", () => {
    let now = 1000;
    const feed = new ChangeFeed({ now: () => now, capacity: 3, epoch: "e1" });
    const seen: string[] = [];
    const stop = feed.subscribe((c) => seen.push(c.id));
    for (const runId of ["a", "b", "c", "d", "e"]) {
      now += 1;
      feed.publish({ collection: "runs", runId, reason: "RunStarted" });
    }
    stop();
    feed.publish({ collection: "crons", reason: "cronCreate" });
    expect(seen).toEqual(["e1.1", "e1.2", "e1.3", "e1.4", "e1.5"]);
    expect(feed.lastId).toBe("e1.6");
    // The window holds 4..6: resuming after 3 still sees everything since.
    expect(feed.since("e1.3")).toEqual({ kind: "changes", changes: [expect.objectContaining({ id: "e1.4", runId: "d", atMs: 1004 }), expect.objectContaining({ id: "e1.5" }), expect.objectContaining({ id: "e1.6", collection: "crons" })] });
    expect(feed.since("e1.6")).toEqual({ kind: "changes", changes: [] });
    expect(feed.since("e1.2")).toEqual({ kind: "reset" });
    expect(feed.since("e0.5")).toEqual({ kind: "reset" });
    expect(feed.since("e1.9")).toEqual({ kind: "reset" });
    expect(feed.since("garbage")).toEqual({ kind: "reset" });
  });
});
