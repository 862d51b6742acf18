/**
 * The memory example end to end on a real SQLite store: a second run recalls the first run's
 * note through note search, and batch scoring grades both runs' summaries.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { aggregateScores, createFlow, createMemoryStore, FlowDb, listScores, runWorkflow, scoreRuns } from "durable-flow";

describe("examples/memory.tsx", () => {
  it("remembers updates across runs, recalls related ones, and scores the summaries", async () => {
    const dir = mkdtempSync(join(tmpdir(), "flow-memory-example-"));
    const cwd = process.cwd();
    onTestFinished(() => process.chdir(cwd)); // other files share this process (vite.config.ts)
    process.chdir(dir); // the module's default export opens .flow/flow.db in the working directory
    const { schemas, standupWorkflow, continuity } = await import("./memory.js");
    const api = createFlow(schemas, { dbPath: join(dir, "flow.db") });
    const wf = standupWorkflow(api);

    const first = await runWorkflow(wf, { input: { team: "core", update: "Shipped the parser fix for empty input" } });
    expect(first.status).toBe("finished");
    expect(first.output).toMatchObject({ related: 0 });
    const other = await runWorkflow(wf, { input: { team: "web", update: "The parser dashboard is live" } });
    const second = await runWorkflow(wf, { input: { team: "core", update: "The parser fix broke the nightly build" } });
    expect(second.output).toMatchObject({ related: 1 });

    const db = new FlowDb(api.db);
    const [summary] = await db.listOutputs(second.runId, "summary");
    expect(summary).toMatchObject({ mentionsEarlier: true, text: "The parser fix broke the nightly build (earlier: Shipped the parser fix for empty input)" });

    const memory = createMemoryStore(api.db);
    expect((await memory.listNotes("workflow:standup-core")).map((n) => [n.body, n.runId])).toEqual([
      ["Shipped the parser fix for empty input", first.runId],
      ["The parser fix broke the nightly build", second.runId],
    ]);
    expect(await memory.getFact("workflow:standup-core", "lastUpdateAt")).toBeDefined();

    const { rows } = await scoreRuns(api.db, {
      scorers: [continuity],
      runIds: [first.runId, other.runId, second.runId],
      nodeIds: ["summarize"],
      groundTruth: (t) => t.runId === second.runId,
    });
    expect(rows.map((r) => r.score)).toEqual([1, 1, 1]);
    // The task's scorers also graded each attempt live, without ground truth (so 0 here); batch
    // scoring against ground truth added its own rows.
    const all = await listScores(api.db, { scorerId: "continuity" });
    expect(all.filter((r) => r.source === "live").map((r) => r.score)).toEqual([0, 0, 0]);
    expect(all.filter((r) => r.source === "batch").map((r) => r.score)).toEqual([1, 1, 1]);
    expect(await aggregateScores(api.db, { runId: second.runId, scorerId: "continuity" })).toEqual([
      { scorerId: "continuity", scorerName: "Continuity", count: 2, mean: 0.5, min: 0, max: 1, p50: 0.5, stddev: 0.5 },
    ]);
  });
});
