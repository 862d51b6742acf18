import { join } from "node:path";
import { EventSource } from "eventsource";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, createFlow, createServeApp, FlowDb, runWorkflow } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { listenForTest } from "./testing.js";

function served(opts: { authToken?: string; metrics?: boolean } = {}) {
  const api = createFlow({ gate: approvalDecisionSchema, shipped: z.object({ env: z.string() }) }, { dbPath: join(tempDir(), "flow.db") });
  const workflow = api.flow(() => (
    <api.Workflow name="ship">
      <api.Approval id="gate" output={api.outputs.gate} request={{ title: "Ship?" }} />
      <api.Signal id="deployed" schema={z.object({ env: z.string() })}>
        {(d) => <api.Task id="done" output={api.outputs.shipped}>{{ env: d.env }}</api.Task>}
      </api.Signal>
    </api.Workflow>
  ));
  const abort = new AbortController();
  const app = createServeApp({ workflow, adapter: new FlowDb(workflow.db), runId: "r1", abort, ...opts });
  const result = runWorkflow(workflow, { runId: "r1", input: {}, signal: abort.signal, stayWhileWaiting: true, waitPollMs: 50 });
  return { app, abort, result };
}

describe("createServeApp", () => {
  it("serves one run: status, approvals, signals and its events as SSE, behind a bearer token or x-flow-key", async () => {
    const { app, result } = served({ authToken: "k" });
    const { url } = await listenForTest(app.fetch);
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/run`)).status).toBe(401);
    expect((await fetch(`${url}/run`, { headers: { "x-flow-key": "nope" } })).status).toBe(401);
    const key = { "x-flow-key": "k" };
    const bearer = { authorization: "Bearer k" };

    const types: string[] = [];
    const es = new EventSource(`${url}/events`, { fetch: (u, init) => fetch(u, { ...init, headers: { ...init?.headers, ...bearer } }) });
    const ended = new Promise<void>((resolve) => es.addEventListener("end", () => resolve()));
    const parked = new Promise<void>((resolve) =>
      es.addEventListener("run.event", (m) => {
        types.push((JSON.parse(m.data) as { type: string }).type);
        if (types.includes("ApprovalRequested")) resolve();
      }),
    );
    await parked;
    expect(((await (await fetch(`${url}/run`, { headers: key })).json()) as any).result).toMatchObject({ runId: "r1", status: "running" });
    expect(((await (await fetch(`${url}/approvals`, { headers: key })).json()) as any).result).toEqual([expect.objectContaining({ nodeId: "gate", kind: "approval" })]);
    const approved = await fetch(`${url}/approvals/gate`, { method: "POST", headers: key, body: JSON.stringify({ decision: "approve" }) });
    expect(((await approved.json()) as any).result).toMatchObject({ runId: "r1", nodeId: "gate", status: "accepted" });
    const signalled = await fetch(`${url}/signals/deployed`, { method: "POST", headers: bearer, body: JSON.stringify({ payload: { env: "prod" }, deliveryId: "d1" }) });
    expect(((await signalled.json()) as any).result).toEqual({ deliveryId: "d1", status: "accepted" });
    expect((await result).status).toBe("finished");
    await ended;
    es.close();
    expect(types).toEqual(expect.arrayContaining(["RunStarted", "ApprovalDecided", "SignalReceived", "TaskFinished", "RunFinished"]));
    expect(((await (await fetch(`${url}/frames`, { headers: key })).json()) as any).result.tasks.map((t: { nodeId: string }) => t.nodeId)).toContain("done");
    expect((await fetch(`${url}/metrics`, { headers: key })).status).toBe(200);
  });

  it("cancels the run through the shared abort controller, and hides /metrics when metrics is false", async () => {
    const { app, abort, result } = served({ metrics: false });
    const { url } = await listenForTest(app.fetch);
    const cancelled = await fetch(`${url}/cancel`, { method: "POST" });
    expect(((await cancelled.json()) as any).result).toEqual({ runId: "r1", status: "cancelling" });
    expect(abort.signal.aborted).toBe(true);
    expect((await result).status).toBe("cancelled");
    expect(((await (await fetch(`${url}/run`)).json()) as any).result.status).toBe("cancelled");
    const metrics = await fetch(`${url}/metrics`);
    expect([metrics.status, ((await metrics.json()) as any).error.code]).toEqual([404, "ROUTE_NOT_FOUND"]);
  });
});
