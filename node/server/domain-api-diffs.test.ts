import { describe, expect, it } from "vitest";
import { invokeRpc, LocalGatewayHost, type WorkspaceDiff } from "durable-flow";
import { sqliteBackend } from "../testing/backends.js";
import { editingSchemas, editingWorkflow } from "../time-travel/fixtures/editing-workflow.js";
import { tempRepo } from "../vcs/testing.js";

describe("getNodeDiff and getRunDiff", () => {
  it("answer what an attempt and a whole run changed in the run's repository, from its snapshots", async () => {
    const dir = tempRepo();
    const { api } = await sqliteBackend.open(editingSchemas, { env: { recordSnapshots: true } });
    const { wf } = editingWorkflow(api, dir);
    const host = new LocalGatewayHost({ workflows: { edit: wf }, runDefaults: { rootDir: dir } });
    const call = (method: string, params: unknown) => invokeRpc(host, method, params, null) as Promise<WorkspaceDiff>;
    const { runId } = (await invokeRpc(host, "launchRun", { workflow: "edit", input: {} }, null)) as { runId: string };
    expect(((await host.activeRun(runId)?.done) ?? (await host.db.requireRun(runId))).status).toBe("finished");
    const files = (d: WorkspaceDiff) => d.files.map((f) => `${f.status} ${f.path}`);
    expect(files(await call("getNodeDiff", { runId, nodeId: "chmod" }))).toEqual(["deleted README.md", "added run.sh"]);
    expect(files(await call("getRunDiff", { runId }))).toEqual(["deleted README.md", "added data.bin", "added new.txt", "added run.sh"]);
  });
});
