/**
 * `approve` through the live collections against a real Gateway: the approval leaves the inbox
 * at once, stays gone once the gateway confirms it, and the run goes on to finish.
 */
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { QueryClient } from "@tanstack/query-core";
import { expect, it, onTestFinished } from "vitest";
import { z } from "zod";
import { approvalDecisionSchema, createFlow } from "durable-flow";
import { createCollections } from "durable-flow/data";
import { tempDir } from "../testing/backends.js";
import { Gateway } from "../server/gateway.js";
import { until } from "./testing.js";

it("removes an approval from the inbox at once and confirms it through the change stream", async () => {
  const dir = tempDir("flow-client-approve-");
  const { flow, Workflow, Task, Approval, outputs } = createFlow({ decision: approvalDecisionSchema, shipped: z.object({ note: z.string() }) }, { dbPath: join(dir, "flow.db") });
  const gate = flow(() => (
    <Workflow name="gate">
      <Approval id="ok" output={outputs.decision} request={{ title: "Ship?" }} />
      <Task id="ship" output={outputs.shipped}>{{ note: "shipped" }}</Task>
    </Workflow>
  ));
  const gateway = new Gateway({ workspaceRoot: dir }).register("gate", gate);
  onTestFinished(() => gateway.close());
  const server = await gateway.listen({ port: 0, host: "127.0.0.1" });
  const cols = createCollections({ kind: "local", apiBaseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, new QueryClient());
  onTestFinished(() => cols.close());
  await cols.connect();
  await Promise.all([cols.runs.preload(), cols.approvals.preload()]);

  const { runId } = await cols.launch({ workflow: "gate" });
  const pending = await until(() => cols.approvals.toArray.find((a) => a.runId === runId), (a) => a !== undefined, "the approval in the inbox");
  expect(pending).toMatchObject({ nodeId: "ok", kind: "approval", request: { mode: "approve", request: { title: "Ship?" } }, key: `${runId}/ok#0` });

  const approving = cols.approve({ runId, nodeId: "ok", decision: "approve" });
  expect(cols.approvals.has(pending!.key)).toBe(false);
  expect(await approving).toMatchObject({ runId, nodeId: "ok", status: "accepted" });
  expect(cols.approvals.has(pending!.key)).toBe(false);
  await until(() => cols.runs.get(runId)?.status, (s) => s === "finished", "the run to finish");
  expect(await cols.approve({ runId, nodeId: "ok", decision: "approve" })).toMatchObject({ status: "duplicate" });
});
