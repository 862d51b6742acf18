import { describe, expect, it } from "vitest";
import { type FileDiff, invokeRpc, LocalGatewayHost, type WorkspaceDiff } from "durable-flow";
import { sqliteBackend } from "../testing/backends.js";
import { editingSchemas, editingWorkflow } from "../time-travel/fixtures/editing-workflow.js";
import { tempRepo } from "../vcs/testing.js";

describe("getNodeDiff, getRunDiff and getFileDiff", () => {
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

  it("getFileDiff answers how an attempt changed one file, as a unified diff", async () => {
    const dir = tempRepo();
    const { api } = await sqliteBackend.open(editingSchemas, { env: { recordSnapshots: true } });
    const { wf } = editingWorkflow(api, dir);
    const host = new LocalGatewayHost({ workflows: { edit: wf }, runDefaults: { rootDir: dir } });
    const call = (params: Record<string, unknown>) => invokeRpc(host, "getFileDiff", params, null) as Promise<FileDiff>;
    const { runId } = (await invokeRpc(host, "launchRun", { workflow: "edit", input: {} }, null)) as { runId: string };
    expect(((await host.activeRun(runId)?.done) ?? (await host.db.requireRun(runId))).status).toBe("finished");
    const readme = await call({ runId, nodeId: "edit", path: "README.md" });
    expect(readme).toMatchObject({ runId, path: "README.md", truncated: false });
    expect(readme.patch).toContain("--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# repo\n+# edited 1\n");
    // The same file in the next attempt: deleted; a binary file: said so, not its bytes.
    expect((await call({ runId, nodeId: "chmod", path: "README.md" })).patch).toContain("deleted file mode 100644");
    expect((await call({ runId, nodeId: "edit", path: "data.bin" })).patch).toMatch(/Binary files \/dev\/null and b\/data\.bin differ/);
    // A file the attempt did not change: no patch; a name git would read as a pattern is a name.
    expect((await call({ runId, nodeId: "edit", path: "run.sh" })).patch).toBe("");
    expect((await call({ runId, nodeId: "edit", path: "*.md" })).patch).toBe("");
  });
});
