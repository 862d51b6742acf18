import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, type FlowWorkflow, listPendingApprovals, runWorkflow, submitApproval } from "durable-flow";

type WorkflowModule = { default: FlowWorkflow; api: { db: unknown } };

// Workflow files are written inside the repository so that `durable-flow` resolves from them.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workflowFile(body: string): { dir: string; file: string } {
  mkdirSync(join(ROOT, ".flow"), { recursive: true });
  const dir = mkdtempSync(join(ROOT, ".flow", "hot-test-"));
  dirs.push(dir);
  const file = join(dir, "wf.tsx");
  writeFileSync(file, body.replaceAll("DB_PATH", JSON.stringify(join(dir, "flow.db"))));
  return { dir, file };
}

/**
 * Edits the file until the run reports a reload. The watcher starts with the run and reads the
 * file then, so each write differs (a counter comment) in case an early one was taken as the start.
 */
async function editUntilReloaded(file: string, edit: (source: string) => string, reloaded: () => boolean): Promise<void> {
  const edited = edit(readFileSync(file, "utf8"));
  for (let i = 0; i < 100 && !reloaded(); i++) {
    writeFileSync(file, `${edited}\n// edit ${i}\n`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(reloaded()).toBe(true);
}

describe("hot reload", () => {
  it("runs the edited workflow from the next render on, while the run waits", async () => {
    const { dir, file } = workflowFile(`
import { z } from "zod";
import { createFlow, approvalDecisionSchema } from "durable-flow";
export const api = createFlow({ decision: approvalDecisionSchema, step: z.object({ value: z.number() }) }, { dbPath: DB_PATH });
export default api.flow(() => (
  <api.Workflow name="hot">
    <api.Approval id="gate" output={api.outputs.decision} request={{ title: "go?" }} />
    <api.Task id="after" output={api.outputs.step}>{{ value: 1 }}</api.Task>
  </api.Workflow>
));
`);
    const mod = (await import(pathToFileURL(file).href)) as WorkflowModule;
    const events: FlowEvent[] = [];
    const run = runWorkflow(mod.default, { input: {}, workflowPath: file, rootDir: dir, hot: { debounceMs: 20 }, stayWhileWaiting: true, waitPollMs: 30, onProgress: (e) => events.push(e) });
    const db = new FlowDb(mod.api.db);
    let pending = await listPendingApprovals(db);
    while (pending.length === 0) {
      await new Promise((r) => setTimeout(r, 20));
      pending = await listPendingApprovals(db);
    }
    await editUntilReloaded(file, (src) => src.replace("value: 1", "value: 2"), () => events.some((e) => e.type === "WorkflowReloaded"));
    await submitApproval(db, { runId: pending[0]!.runId, nodeId: "gate", decision: "approve" });
    const r = await run;
    expect(r.status).toBe("finished");
    expect(await db.listOutputs(r.runId, "step")).toEqual([expect.objectContaining({ nodeId: "after", value: 2 })]);
    const reloads = events.filter((e) => e.type === "WorkflowReloaded");
    expect(reloads[0]).toMatchObject({ generation: 2 });
  });

  it("cancels a running task the edit removed when cancelUnmounted is set", async () => {
    const { dir, file } = workflowFile(`
import { z } from "zod";
import { createFlow } from "durable-flow";
export const api = createFlow({ step: z.object({ value: z.number() }) }, { dbPath: DB_PATH });
export default api.flow(() => (
  <api.Workflow name="hot2">
    <api.Task id="slow" output={api.outputs.step}>
      {(task) => new Promise((resolve) => { const t = setTimeout(() => resolve({ value: 1 }), 20000); task.signal.addEventListener("abort", () => clearTimeout(t)); })}
    </api.Task>
  </api.Workflow>
));
`);
    const mod = (await import(pathToFileURL(file).href)) as WorkflowModule;
    const events: FlowEvent[] = [];
    const run = runWorkflow(mod.default, { input: {}, workflowPath: file, rootDir: dir, hot: { debounceMs: 20, cancelUnmounted: true }, onProgress: (e) => events.push(e) });
    while (!events.some((e) => e.type === "TaskStarted")) await new Promise((r) => setTimeout(r, 10));
    const quick = `<api.Task id="quick" output={api.outputs.step}>{{ value: 3 }}</api.Task>`;
    await editUntilReloaded(file, (src) => src.replace(/<api\.Task id="slow"[\s\S]*<\/api\.Task>/, quick), () => events.some((e) => e.type === "WorkflowReloaded"));
    const r = await run;
    expect(r.status).toBe("finished");
    expect(events).toContainEqual(expect.objectContaining({ type: "TaskCancelled", nodeId: "slow", reason: "removed-from-tree" }));
    expect((await new FlowDb(mod.api.db).listOutputs(r.runId, "step")).map((row) => row.nodeId)).toContain("quick");
  }, 60_000);
});
