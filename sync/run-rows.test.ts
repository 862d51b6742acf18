/**
 * One `_flow_runs` row, one run row: the Gateway's read model (over its store; the browser
 * worker serves the same handler) and a team workspace's Electric shape map the same columns
 * to the same row. A run no Gateway annotated (started by `flow up`) is known by the key of
 * the workflow of its name on both paths.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAppGateway } from "../scripts/app-gateway.js";
import { runSummary, workflowRow } from "../core/api/read-model.js";
import { runFromShape, shapeRowContext } from "./shape-rows.js";
import { TEAM_SHAPES } from "./team-shapes.js";

describe("run rows on every path", () => {
  const gateway = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-run-rows-")), "flow.db") });
  afterAll(() => gateway.close());

  it("are the same row from the read model and from the runs shape, annotated or not", async () => {
    const host = gateway.host;
    const { runId } = await host.startRun({ workflowKey: "hello", input: { name: "Ada" } });
    await host.activeRun(runId)?.done;
    const store = host.db.store;
    const [stored] = await store.query<Record<string, unknown>>(`SELECT * FROM _flow_runs WHERE run_id = ?`, [runId]);
    // The same run as another process would have stored it: no workflow annotation.
    const bare = `${runId}-bare`;
    const columns = Object.keys(stored!);
    await store.execute(`INSERT INTO _flow_runs (${columns.join(", ")}) SELECT ${columns.map((c) => (c === "run_id" ? "?" : c === "annotations_json" ? "NULL" : c)).join(", ")} FROM _flow_runs WHERE run_id = ?`, [bare, runId]);
    const workflows = host.listWorkflows().map(({ key, workflow }) => workflowRow(key, workflow));
    const ctx = shapeRowContext((name) => workflows.find((w) => w.name === name)?.key);
    for (const id of [runId, bare]) {
      const [row] = await store.query<Record<string, unknown>>(`SELECT * FROM _flow_runs WHERE run_id = ?`, [id]);
      const shaped = Object.fromEntries(TEAM_SHAPES.runs.columns.map((c) => [c, row![c] ?? null]));
      const fromGateway = await runSummary(host, id);
      expect(fromGateway.workflowKey).toBe("hello");
      expect(runFromShape(shaped, ctx)).toEqual(fromGateway);
    }
  }, 60_000);
});
