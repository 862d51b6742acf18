import { describe, expect, it } from "vitest";
import { createDomainHandler, LocalGatewayHost } from "../../core/api/index.js";
import { appWorkflows } from "../../examples/app-workflows.js";
import { bindBrowserWorkflows, createBrowserEnv } from "../create-browser-flow.js";
import { memoryStorePerTest } from "./fixtures/memory-store.js";
import type { BrowserPgliteStore } from "./pglite-browser.js";

// Write-backs counted, not timed (timings are bench/app.ts's): on IndexedDB each one walks every
// stored file, so a read that causes one costs as much as a write. The store in memory runs the
// same write-back policy as on IndexedDB (browser/store/write-back.ts).
const open = memoryStorePerTest();
const counts = (s: BrowserPgliteStore) => ({ asked: s.writeBacks.asked, written: s.writeBacks.written });

describe("browser store write-backs", () => {
  it("writes back after a statement that changed a file, never after a read", async () => {
    const s = await open();
    await s.executeScript(`CREATE TABLE t (id int PRIMARY KEY, v text)`);
    const before = counts(s);
    await s.query(`SELECT * FROM t`);
    await s.query(`SELECT count(*) AS n FROM pg_class`);
    expect(counts(s)).toEqual({ asked: before.asked + 2, written: before.written });
    await s.execute(`INSERT INTO t VALUES (?, ?)`, [1, "a"]);
    expect(counts(s).written).toBe(before.written + 1);
    // A transaction is written back once it committed, before it answers (PGlite asks only at its BEGIN).
    await s.transaction(async (tx) => {
      await tx.execute(`INSERT INTO t VALUES (?, ?)`, [2, "b"]);
      await tx.execute(`UPDATE t SET v = ? WHERE id = ?`, ["c", 1]);
    });
    expect(counts(s).written).toBe(before.written + 2);
    expect(await s.query(`SELECT id, v FROM t ORDER BY id`)).toEqual([
      { id: 1, v: "c" },
      { id: 2, v: "b" },
    ]);
  }, 60_000);

  it("a 20-task run watched by a polling page costs at most two write-backs per task", async () => {
    const s = await open();
    const { workflows } = await bindBrowserWorkflows(appWorkflows, s, createBrowserEnv("flow"));
    const host = new LocalGatewayHost({ workflows });
    const handler = createDomainHandler({ host });
    const tasks = 20;
    const before = counts(s);
    const { runId } = await host.startRun({ workflowKey: "pipeline", input: { tasks } });
    const done = host.activeRun(runId)!.done;
    let finished = false;
    void done.finally(() => (finished = true));
    // The page's poll and the list's refetch of a changed run (read model: row and usage).
    let polls = 0;
    while (!finished) {
      const res = await handler.fetch(new Request(`http://flow.worker/v1/api/runs/${runId}?view=summary`));
      expect(res.status).toBe(200);
      polls++;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await done).status).toBe("finished");
    const after = counts(s);
    expect(polls).toBeGreaterThan(0);
    expect(after.asked - before.asked).toBeGreaterThan(polls);
    expect(after.written - before.written).toBeLessThanOrEqual(2 * tasks);
    await host.close();
  }, 60_000);
});
