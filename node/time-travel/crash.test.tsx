import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FlowDb, runWorkflow, timeTravel } from "durable-flow";
import { postgresBackend, sqliteBackend } from "../testing/backends.js";
import { tempRepo, treePicture } from "../vcs/testing.js";
import { EDIT_ORDER, editingSchemas, editingWorkflow, skipFlowDir } from "./fixtures/editing-workflow.js";

const CHILD = fileURLToPath(new URL("./fixtures/rewind-child.ts", import.meta.url));

/** Rewinds in a child process that SIGKILLs itself at `killAt`. */
function rewindAndDie(store: string, runId: string, nodeId: string, killAt: string) {
  const child = spawnSync(process.execPath, ["--import", "tsx", CHILD, store, runId, nodeId, killAt], { encoding: "utf8", env: { ...process.env, FLOW_SNAPSHOTS: "on" } });
  expect(child.signal, child.stderr).toBe("SIGKILL");
}

// Each process opens the same store, as separate processes do in production (PGlite is
// single-process, so its file cannot be shared with the child).
// Every step on SQLite; on PostgreSQL the step where files moved and rows did not.
describe.each([
  { backend: sqliteBackend, steps: ["intent-written", "files-restored", "committed"] },
  { backend: postgresBackend, steps: ["files-restored"] },
])("a rewind killed at each step on $backend.name", ({ backend, steps }) => {
  it.each(steps)("leaves files and rows of one point after a SIGKILL at %s", async (killAt) => {
    const dir = tempRepo();
    const { api, location } = await backend.open(editingSchemas, { env: { recordSnapshots: true } });
    const { wf, runs, seen } = editingWorkflow(api, dir);
    const { runId } = await runWorkflow(wf, { input: {}, rootDir: dir });
    const finalTree = treePicture(dir, skipFlowDir);
    const db = new FlowDb(api.db);

    rewindAndDie(location.location, runId, "chmod", killAt);
    const [intent] = await db.store.query<{ status: string }>(`SELECT status FROM _flow_time_travel WHERE run_id = ?`, [runId]);
    expect(intent?.status).toBe(killAt === "committed" ? "done" : "pending");

    if (killAt === "files-restored") {
      // Files moved, rows did not: resuming finishes the rewind first, then re-runs what it reset.
      expect(treePicture(dir, skipFlowDir)).toEqual(seen["chmod"]);
      expect((await db.getRun(runId))?.status).toBe("finished");
      runs.length = 0;
      const resumed = await runWorkflow(wf, { runId, resume: true, rootDir: dir });
      expect(resumed.status).toBe("finished");
      expect(runs).toEqual(["chmod", "create"]);
      expect(Object.keys(treePicture(dir, skipFlowDir)).sort()).toEqual(Object.keys(finalTree).sort());
    } else {
      // The next timeTravel completes the interrupted one before its own (same target here).
      const again = await timeTravel(db, { runId, nodeId: "chmod" });
      expect(again).toMatchObject({ success: true, vcsRestored: true, resetNodes: ["chmod", "create"] });
      expect(treePicture(dir, skipFlowDir)).toEqual(seen["chmod"]);
      const nodes = await db.listNodes(runId);
      expect(nodes.map((n) => `${n.nodeId}:${n.state}`).sort()).toEqual(["chmod:pending", "create:pending", "edit:finished"]);
      expect((await db.listOutputs(runId, "step")).map((r) => r.nodeId)).toEqual(["edit"]);
    }
    const intents = await db.store.query<{ status: string }>(`SELECT status FROM _flow_time_travel WHERE run_id = ?`, [runId]);
    expect(intents.every((i) => i.status === "done")).toBe(true);
    expect(EDIT_ORDER).toContain("chmod");
  });
});
