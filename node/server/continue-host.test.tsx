/**
 * Continue-as-new on a host (a Gateway, the app's engine): the next run is written without an
 * owner, and the host whose run continued takes it at once. Before, it waited for the host's
 * next pick-up poll (up to 15 s on a Gateway), listed meanwhile as "running · owner gone".
 * Here no poll ever runs: only the host's own follow-up can start the next runs.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, LocalGatewayHost } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = { input: z.object({ generation: z.number().int() }), step: z.object({ value: z.number() }) };

describe.each(testBackends.filter((b) => b.name !== "pglite"))("continue-as-new on a host, $name", (backend) => {
  it("runs the chain's next runs at once, with no pick-up, to the last one's end", async () => {
    const { api } = await backend.open(schemas);
    const chain = api.flow((ctx) => (
      <api.Workflow name="chain">
        <api.Task id="count" output={api.outputs.step}>{() => ({ value: ctx.input.generation + 1 })}</api.Task>
        {ctx.input.generation < 2 ? <api.ContinueAsNew input={{ generation: ctx.input.generation + 1 }} /> : null}
      </api.Workflow>
    ));
    const host = new LocalGatewayHost({ workflows: { chain } });
    const db = new FlowDb(api.db);
    const { runId } = await host.startRun({ workflowKey: "chain", input: { generation: 0 } });

    const ids = [runId];
    for (let i = 0; i < 3; i++) {
      const id = ids.at(-1)!;
      await expect.poll(async () => (await db.requireRun(id)).status, { timeout: 10_000 }).toMatch(i < 2 ? "continued" : "finished");
      const run = await db.requireRun(id);
      if (i < 2) ids.push(run.nextRunId!);
    }
    expect(ids).toHaveLength(3);
    for (const [i, id] of ids.entries()) expect((await db.listOutputs(id, "step")).map((r) => r.value)).toEqual([i + 1]);
    await host.close();
  });
});
