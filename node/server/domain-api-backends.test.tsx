import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, invokeRpc, LocalGatewayHost } from "durable-flow";
import { pgliteBackend, postgresBackend } from "../testing/backends.js";

// The domain API's own SQL (run lists with filters and cursors, cron rows, the change feed's
// run reads) on the PostgreSQL dialect; SQLite is covered over HTTP in domain-api.test.tsx.
describe.each([pgliteBackend, postgresBackend])("the domain API's SQL on $name", (backend) => {
  it("pages and filters runs, reads a run, and stores, fires and deletes crons", async () => {
    const { api } = await backend.open({ input: z.object({ n: z.number() }), pageOut: z.object({ n: z.number() }) });
    const wf = api.flow((ctx) => (
      <api.Workflow name="paged">
        <api.Task id="t" output={api.outputs.pageOut}>{() => ({ n: ctx.input.n })}</api.Task>
      </api.Workflow>
    ));
    const host = new LocalGatewayHost({ workflows: { "paged_%": wf } });
    const call = (method: string, params: unknown) => invokeRpc(host, method, params, null) as Promise<any>;
    const settle = async (runId: string) => (await host.activeRun(runId)?.done) ?? { status: (await host.db.requireRun(runId)).status };
    for (const n of [1, 2, 3]) {
      const { runId } = await call("launchRun", { workflow: "paged_%", input: { n }, runId: `r${n}` });
      await settle(runId);
    }
    const first = await call("listRuns", { workflow: "paged_%", limit: 2 });
    const second = await call("listRuns", { workflow: "paged_%", limit: 2, cursor: first.nextCursor });
    expect([...first.runs, ...second.runs].map((r: { runId: string }) => r.runId).sort()).toEqual(["r1", "r2", "r3"]);
    expect(second.nextCursor).toBeNull();
    expect((await call("listRuns", { workflow: "paged_x" })).runs).toEqual([]);
    expect((await call("listRuns", { status: "finished" })).runs).toHaveLength(3);
    const run = await call("getRun", { runId: "r2" });
    expect(run).toMatchObject({ status: "finished", workflowKey: "paged_%", input: { n: 2 }, nodes: [expect.objectContaining({ nodeId: "t", state: "finished" })] });
    expect((await call("getNodeOutput", { runId: "r2", nodeId: "t" })).row).toMatchObject({ n: 2 });

    const cron = await call("cronCreate", { cronId: "c1", workflow: "paged_%", schedule: "*/5 * * * *", input: { n: 9 }, enabled: false });
    expect(cron).toMatchObject({ cronId: "c1", enabled: false, nextFireAtMs: null, input: { n: 9 } });
    const fired = await call("cronRun", { cronId: "c1" });
    expect((await settle(fired.runId)).status).toBe("finished");
    expect(await call("cronList", {})).toEqual([expect.objectContaining({ cronId: "c1", lastRunId: fired.runId, createdBy: null })]);
    expect(await call("cronDelete", { cronId: "c1" })).toEqual({ cronId: "c1", deleted: true });
    expect(await new FlowDb(api.db).store.query(`SELECT cron_id FROM _flow_crons`)).toEqual([]);
  });
});
