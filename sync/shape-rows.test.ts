/**
 * Shape rows go through the mappers the domain API reads its store with: a run row's
 * workflow key falls back to the workflow's name as a Gateway's does, `owner` is judged from
 * the served claim columns, and approvals are keyed as the data layer keys them.
 */
import { describe, expect, it } from "vitest";
import { runRowOf } from "../core/api/run-rows.js";
import { createDefaultEnv } from "../core/engine/world.js";
import { approvalFromShape, runFromShape, shapeRowContext } from "./shape-rows.js";
import { TEAM_SHAPES } from "./team-shapes.js";

/** A whole `_flow_runs` row as the `runs` shape serves it (only its columns, int8 as numbers). */
function shapeRun(over: Record<string, unknown> = {}): Record<string, unknown> {
  const all: Record<string, unknown> = {
    run_id: "r1",
    workspace_id: "acme",
    parent_run_id: null,
    workflow_name: "release",
    status: "running",
    pause_reason: null,
    input_json: '{"service":"api"}',
    error_json: null,
    annotations_json: '{"team":"core"}',
    auth_json: '{"triggeredBy":"ana"}',
    owner_id: "gw-a:4242:x",
    heartbeat_at_ms: Date.now(),
    next_run_id: null,
    created_at_ms: 1,
    updated_at_ms: 2,
    finished_at_ms: null,
    ...over,
  };
  return Object.fromEntries(TEAM_SHAPES.runs.columns.map((c) => [c, all[c]]));
}

describe("shape rows", () => {
  it("gives a run no Gateway annotated the key of the workflow of its name, as a Gateway's read model does", () => {
    const ctx = shapeRowContext((name) => (name === "release" ? "release.tsx" : undefined));
    const row = runFromShape(shapeRun(), ctx);
    expect(row.workflowKey).toBe("release.tsx");
    // The same columns read by a Gateway that serves the workflow give the same row.
    const gateway = runRowOf(shapeRun() as never, { workflowKeyOf: (run) => (run.workflowName === "release" ? "release.tsx" : undefined), env: createDefaultEnv() });
    expect(row).toEqual(gateway);
    expect(runFromShape(shapeRun({ annotations_json: '{"flow:workflow":"ship"}' }), ctx)).toMatchObject({ workflowKey: "ship", annotations: {} });
  });

  it("says a running run's owner is gone when its heartbeat is stale, and has no owner once it stopped", () => {
    expect(runFromShape(shapeRun()).owner).toBe("live");
    expect(runFromShape(shapeRun({ heartbeat_at_ms: Date.now() - 60_000 })).owner).toBe("gone");
    expect(runFromShape(shapeRun({ status: "paused", pause_reason: "person", owner_id: null, heartbeat_at_ms: null }))).toMatchObject({ owner: null, pauseReason: "person", triggeredBy: "ana", input: { service: "api" } });
  });

  it("keys an approval <runId>/<nodeId>#<iteration> with its request parsed", () => {
    const approval = approvalFromShape({ run_id: "r1", node_id: "ship", iteration: 0, workspace_id: "acme", kind: "approval", status: "pending", request_json: '{"request":"ok?"}', deadline_ms: null, created_at_ms: 5 });
    expect(approval).toEqual({ key: "r1/ship#0", runId: "r1", nodeId: "ship", iteration: 0, kind: "approval", request: { request: "ok?" }, createdAtMs: 5, deadlineMs: null });
  });
});
