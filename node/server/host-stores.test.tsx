/**
 * A host reads runs from one store (its `db`, or its first workflow's): a workflow registered on
 * another store runs, but its runs cannot be found through the host, so registering it says so.
 */
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlow, invokeRpc, isFlowError, LocalGatewayHost } from "durable-flow";
import { tempDir } from "../testing/backends.js";

const schemas = { out: z.object({ n: z.number() }) };

/** A one-task workflow on the SQLite store at `dbPath`, its warnings kept in `warnings`. */
function workflowOn(dbPath: string, warnings: string[]) {
  const api = createFlow(schemas, { dbPath, env: { warn: (m) => warnings.push(m) } });
  return api.flow(() => (
    <api.Workflow name="one">
      <api.Task id="t" output={api.outputs.out}>{{ n: 1 }}</api.Task>
    </api.Workflow>
  ));
}

describe("the store a host reads", () => {
  it("says when a workflow keeps its runs in another store than the host reads, and not when they share one", async () => {
    const dir = tempDir("flow-host-stores-");
    const [main, other] = [join(dir, "flow.db"), join(dir, "other.db")];
    const warnings: string[] = [];
    // Two workflow files on one store (two createFlow calls, one file): nothing to say.
    const host = new LocalGatewayHost({ workflows: { hello: workflowOn(main, warnings), review: workflowOn(main, warnings) } });
    expect(warnings).toEqual([]);
    host.register("elsewhere", workflowOn(other, warnings));
    expect(warnings).toEqual([
      `Workflow "elsewhere" keeps its runs in ${other}, but this host reads runs from ${main}: its runs would not be found through the host (its API, console and approvals). Give it the same store (the same dbPath, or openFlowBackend), or serve it from a host of its own.`,
    ]);
    // What it warns of: the run is launched and runs, and the host cannot find it.
    const { runId } = (await invokeRpc(host, "launchRun", { workflow: "elsewhere", input: {} }, null)) as { runId: string };
    expect((await host.activeRun(runId)?.done)?.status).toBe("finished");
    const read = await invokeRpc(host, "getRun", { runId }, null).then(() => null, (e: unknown) => e);
    expect(isFlowError(read, "RUN_NOT_FOUND")).toBe(true);
    // Two stores in memory are two stores.
    const memory: string[] = [];
    new LocalGatewayHost({ workflows: { a: workflowOn(":memory:", memory), b: workflowOn(":memory:", memory) } });
    expect(memory).toEqual([expect.stringMatching(/^Workflow "b" keeps its runs in SQLite in memory #\d+, but this host reads runs from SQLite in memory #\d+:/)]);
  });
});
