/**
 * One `_flow_nodes`, `_flow_waits` or `_flow_events` row, one row on every path: the
 * Gateway's read model (the browser worker serves the same handler over PGlite), the data
 * layer's collections (which now take the API's rows as they are) and a team workspace's
 * Electric shapes give the same node, approval, prompt and event rows, keys included.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAppGateway } from "../scripts/app-gateway.js";
import { invokeRpc, runRow } from "../core/api/index.js";
import { runNodeKey } from "../core/api/internal.js";
import type { GatewayApprovalRow, GatewayPromptRow, GatewayRunEventRow } from "../core/data/index.js";
import { eventOf } from "../core/engine/internal.js";
import { TABLES } from "../core/protocol.js";
import { approvalFromShape, nodeFromShape } from "./shape-rows.js";
import { TEAM_SHAPES, type TeamShapeName } from "./team-shapes.js";

describe("node, approval, prompt and event rows on every path", () => {
  const gateway = createAppGateway({ dbPath: join(mkdtempSync(join(tmpdir(), "flow-node-rows-")), "flow.db") });
  afterAll(() => gateway.close());
  const host = gateway.host;
  const store = () => host.db.store;
  /** A stored row as its shape delivers it: the shape's columns, no others. */
  const shaped = (shape: TeamShapeName, row: Record<string, unknown>) => Object.fromEntries(TEAM_SHAPES[shape].columns.filter((c) => c !== "workspace_id").map((c) => [c, row[c] ?? null]));
  const rpc = <T>(method: string, params: unknown) => invokeRpc(host, method, params, null) as Promise<T>;

  it("are the same nodes and approvals from the read model and from the shapes", async () => {
    const { runId } = await host.startRun({ workflowKey: "release", input: { service: "api", shards: 1, workMs: 0 } });
    await host.activeRun(runId)?.done;
    const nodes = await store().query<Record<string, unknown>>(`SELECT * FROM ${TABLES.nodes} WHERE run_id = ? ORDER BY node_id, iteration`, [runId]);
    const run = await runRow(host, runId);
    expect(nodes.map((n) => n.node_id)).toContain("ship");
    for (const stored of nodes) {
      const fromGateway = run.nodes.find((n) => n.nodeId === stored.node_id && n.iteration === Number(stored.iteration))!;
      expect(fromGateway.key).toBe(`${String(stored.node_id)}#${Number(stored.iteration)}`);
      // The shape serves no attempts; every other field is the read model's.
      const { attempts: _attempts, ...served } = fromGateway;
      expect(nodeFromShape(shaped("nodes", stored))).toEqual({ ...served, runId });
    }

    const [wait] = await store().query<Record<string, unknown>>(`SELECT * FROM ${TABLES.waits} WHERE run_id = ? AND kind = 'approval'`, [runId]);
    const approvals = await rpc<GatewayApprovalRow[]>("listApprovals", { runId });
    expect(approvals).toHaveLength(1);
    // The API's row is the collection's row: keyed as the shape keys it.
    expect(approvals[0]).toEqual({ ...approvalFromShape(shaped("approvals", wait!)), key: runNodeKey({ runId, nodeId: "ship", iteration: 0 }) });
    expect(approvalFromShape(shaped("approvals", wait!))).toEqual(approvals[0]);
  }, 60_000);

  it("gives prompts and events with the keys the collections use", async () => {
    const { runId } = await host.startRun({ workflowKey: "newsletter", input: { topic: "otters", words: 10 } });
    await host.activeRun(runId)?.done;
    const prompts = await rpc<GatewayPromptRow[]>("listPrompts", { runId });
    expect(prompts.length).toBeGreaterThan(0);
    for (const p of prompts) expect(p.key).toBe(runNodeKey(p));

    const stored = await store().query<Record<string, unknown>>(`SELECT * FROM ${TABLES.events} WHERE run_id = ? ORDER BY seq`, [runId]);
    const events = (await host.db.listEvents(runId)) as GatewayRunEventRow[];
    expect(events.length).toBeGreaterThan(0);
    expect(events).toEqual(stored.map(eventOf));
    expect(events.every((e) => e.runId === runId && typeof e.seq === "number")).toBe(true);
  }, 60_000);
});
