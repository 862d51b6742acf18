import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { attemptDiff, FlowDb, type FlowEvent, revertToAttempt, runDiff, runWorkflow, timeTravel } from "durable-flow";
import { testBackends } from "../testing/backends.js";
import { gitIn, tempRepo, treePicture, userGitState } from "../vcs/testing.js";
import { EDIT_ORDER, editingSchemas, editingWorkflow, skipFlowDir as skip } from "./fixtures/editing-workflow.js";

describe.each(testBackends)("time travel on $name", (backend) => {
  /** A run whose tasks edit, create, delete and chmod files (text and binary) in a real repository. */
  async function editingRun(rootDir: string, warnings: string[] = []) {
    const opened = await backend.open(editingSchemas, { env: { recordSnapshots: true, warn: (message) => void warnings.push(message) } });
    const { wf, runs, seen } = editingWorkflow(opened.api, rootDir);
    const result = await runWorkflow(wf, { input: {}, rootDir });
    expect(result.status).toBe("finished");
    return { wf, runs, seen, runId: result.runId, db: new FlowDb(opened.api.db), final: treePicture(rootDir, skip) };
  }

  it("rewinds to each attempt byte for byte, leaves the user's git state alone, and resumes only what was reset", async () => {
    const dir = tempRepo();
    writeFileSync(join(dir, "wip.txt"), "uncommitted work\n"); // untracked, in the snapshots too
    gitIn(dir, "stash", "push", "-q", "--include-untracked", "-m", "mine", "--", "wip.txt");
    writeFileSync(join(dir, "wip.txt"), "uncommitted work\n");
    const user = userGitState(dir);
    const { wf, runs, seen, runId, db, final } = await editingRun(dir);
    const attempts = await db.listAttempts(runId);
    expect(attempts.every((a) => a.vcsPointer !== null)).toBe(true);

    // Every attempt on SQLite; the row changes are the same SQL on the others, so one target there.
    for (const nodeId of backend.name === "sqlite" ? ["create", "chmod", "edit"] : ["chmod"]) {
      runs.length = 0;
      const events: FlowEvent[] = [];
      const r = await timeTravel(db, { runId, nodeId, onProgress: (e) => events.push(e) });
      expect(r).toMatchObject({ success: true, vcsRestored: true });
      expect(r.vcsPointer).toMatch(/^[0-9a-f]{40}$/);
      expect(treePicture(dir, skip), `tree at the start of ${nodeId}`).toEqual(seen[nodeId]);
      expect(userGitState(dir)).toEqual(user);
      const order: readonly string[] = EDIT_ORDER;
      const expected = order.slice(order.indexOf(nodeId));
      expect(r.resetNodes.sort()).toEqual([...expected].sort());
      expect(events.map((e) => e.type)).toEqual(["TimeTravelStarted", ...expected.map(() => "TaskReset"), "TimeTravelFinished"]);
      // Paused for a person: no Gateway or worker picks a rewound run up (issue 23).
      expect(await db.getRun(runId)).toMatchObject({ status: "paused", pauseReason: "rewind", ownerId: null });
      expect((await db.listNodes(runId)).filter((n) => n.state === "pending").map((n) => n.nodeId).sort()).toEqual([...expected].sort());
      expect((await db.listOutputs(runId, "step")).map((o) => o.nodeId).sort()).toEqual(order.filter((n) => !expected.includes(n)).sort());

      const resumed = await runWorkflow(wf, { runId, resume: true, rootDir: dir });
      expect(resumed.status).toBe("finished");
      expect(runs).toEqual(expected);
      expect(treePicture(dir, skip)["new.txt"]).toBeDefined();
    }
    expect(Object.keys(treePicture(dir, skip)).sort()).toEqual(Object.keys(final).sort());
    // Cancelled later attempts are kept as history; every node has one live finished attempt.
    expect((await db.listAttempts(runId)).filter((a) => a.state === "finished").length).toBeGreaterThanOrEqual(3);
    expect(userGitState(dir)).toEqual(user);
  });

  it("reverts the files of an attempt without touching nodes or status; a missing attempt or pointer fails with an error", async () => {
    const dir = tempRepo();
    const { runId, db, seen } = await editingRun(dir);
    // What an attempt and the run changed, from the snapshots.
    expect((await attemptDiff(db, { runId, nodeId: "chmod" })).files.map((f) => `${f.status} ${f.path}`)).toEqual(["deleted README.md", "added run.sh"]);
    expect((await runDiff(db, { runId })).files.map((f) => `${f.status} ${f.path}`)).toEqual(["deleted README.md", "added data.bin", "added new.txt", "added run.sh"]);
    const nodesBefore = await db.listNodes(runId);
    const edit = (await db.listAttempts(runId, "edit"))[0]!;
    const events: FlowEvent[] = [];
    const r = await revertToAttempt(db, { runId, nodeId: "edit", iteration: 0, attempt: edit.attempt, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ success: true, vcsPointer: edit.vcsPointer, effectBoundary: { blocking: [], revertible: [], warnings: [] } });
    expect(treePicture(dir, skip)).toEqual(seen["chmod"]); // the tree right after "edit"
    expect(events.map((e) => e.type)).toEqual(["RevertStarted", "RevertFinished"]);
    expect((await db.getRun(runId))?.status).toBe("finished");
    expect((await db.listNodes(runId)).map((n) => [n.nodeId, n.state])).toEqual(nodesBefore.map((n) => [n.nodeId, n.state]));

    const missing = await timeTravel(db, { runId, nodeId: "edit", attempt: 7 });
    expect(missing).toMatchObject({ success: false, vcsRestored: false, resetNodes: [] });
    expect(missing.error).toContain("no attempt of edit");
    expect((await revertToAttempt(db, { runId, nodeId: "nope", iteration: 0, attempt: 1 })).success).toBe(false);
    expect((await timeTravel(db, { runId: "no-such-run", nodeId: "edit" })).error).toContain("does not exist");

    // A run outside any repository records no pointers: restoring fails, a rows-only rewind works.
    const plain = mkdtempSync(join(tmpdir(), "flow-plain-"));
    const warnings: string[] = [];
    const other = await editingRun(plain, warnings);
    expect((await other.db.listAttempts(other.runId)).every((a) => a.vcsPointer === null)).toBe(true);
    const noPointer = await timeTravel(other.db, { runId: other.runId, nodeId: "chmod" });
    expect(noPointer.success).toBe(false);
    expect(noPointer.error).toContain("no snapshot");
    expect(existsSync(join(plain, "new.txt"))).toBe(true);
    const rowsOnly = await timeTravel(other.db, { runId: other.runId, nodeId: "create", restoreVcs: false });
    expect(rowsOnly).toMatchObject({ success: true, vcsRestored: false, resetNodes: ["create"] });
    expect(readFileSync(join(plain, "new.txt"), "utf8")).toBe("created 3\n");
    // One notice per directory, however many runs and sessions use it.
    expect((await runWorkflow(other.wf, { runId: other.runId, resume: true, rootDir: plain })).status).toBe("finished");
    expect(warnings.filter((w) => w.includes("is not a git repository"))).toHaveLength(1);
  });
});
