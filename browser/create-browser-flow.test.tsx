import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineWorkflows } from "../core/api/define-workflows.js";
import { LocalGatewayHost } from "../core/api/local-host.js";
import { pickUpRuns } from "../core/api/pick-up.js";
import { runWorkflow } from "../core/engine/run.js";
import { appWorkflows } from "../examples/app-workflows.js";
import { bindBrowserWorkflows, createBrowserEnv } from "./create-browser-flow.js";
import { bash, ExecCliAgent, tools } from "./gateway-only.js";
import { memoryStorePerTest } from "./store/fixtures/memory-store.js";

// The worker's binding over the browser store adapter (PGlite in memory: OPFS and IndexedDB are
// exercised by the e2e tests), without the worker around it.
const open = memoryStorePerTest();

describe("bindBrowserWorkflows", () => {
  it("runs the app's workflows, and a run another owner left running is taken over at once", async () => {
    const s = await open();
    const first = await bindBrowserWorkflows(appWorkflows, s, createBrowserEnv("flow"));
    expect(Object.keys(first.workflows).sort()).toEqual(["assistant", "draft", "hello", "newsletter", "pipeline", "release"]);
    const leader = new LocalGatewayHost({ workflows: first.workflows });
    const { runId: helloId } = await leader.startRun({ workflowKey: "hello", input: { name: "Ada" } });
    expect((await leader.activeRun(helloId)!.done).status).toBe("finished");

    // A pipeline paused after its first tasks, then marked running by an owner with a fresh
    // heartbeat: how a leader tab that closed mid-run leaves it.
    await leader.startRun({ workflowKey: "pipeline", input: { tasks: 6, workMs: 40 }, runId: "orphan" });
    const events = () => s.query<{ n: number }>(`SELECT COUNT(*) AS n FROM _flow_events WHERE run_id = ? AND type = 'TaskFinished'`, ["orphan"]);
    while ((await events())[0]!.n < 2) await new Promise((r) => setTimeout(r, 20));
    leader.activeRun("orphan")!.pause();
    expect((await leader.activeRun("orphan")!.done).status).toBe("paused");
    await s.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, [first.env.ownerId, Date.now(), "orphan"]);

    // The next leader binds the same store with an env of its own: the old owner counts as gone.
    const next = await bindBrowserWorkflows(appWorkflows, s, createBrowserEnv("flow"));
    expect(next.env.isOwnerAlive?.(first.env.ownerId)).toBe(false);
    const host = new LocalGatewayHost({ workflows: next.workflows });
    expect(await pickUpRuns(host, "This browser")).toEqual(["orphan"]);
    expect((await host.activeRun("orphan")!.done).status).toBe("finished");
    const rows = await s.query<{ payload_json: unknown }>(`SELECT payload_json FROM _flow_events WHERE run_id = ? AND type = 'TaskFinished' ORDER BY seq`, ["orphan"]);
    const finished = rows.map((r) => (typeof r.payload_json === "string" ? JSON.parse(r.payload_json) : r.payload_json).nodeId as string);
    expect(finished.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `step-${i}`));
  }, 60_000);

  it("a new run on a store slower than its claim heartbeat keeps its claim (IndexedDB under load)", async () => {
    const s = await open();
    // Every write takes longer than a heartbeat: the run's row exists only after its first commit.
    const slow = { ...s, executeBatch: async (ops: Parameters<NonNullable<typeof s.executeBatch>>[0]) => (await new Promise((r) => setTimeout(r, 60)), s.executeBatch!(ops)) };
    const { workflows } = await bindBrowserWorkflows(appWorkflows, slow, createBrowserEnv("flow", { claimHeartbeatMs: 10 }));
    const host = new LocalGatewayHost({ workflows });
    const { runId } = await host.startRun({ workflowKey: "pipeline", input: { tasks: 3 } });
    expect((await host.activeRun(runId)!.done).status).toBe("finished");
    await host.close();
  }, 60_000);

  it("makes the user tables once per set of schemas, and again when a set changes", async () => {
    const s = await open();
    const tables = async () => (await s.query<{ t: string }>(`SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'note%' ORDER BY 1`)).map((r) => r.t);
    const notes = (extra: boolean) =>
      defineWorkflows({ input: z.object({}), note: z.object({ text: z.string() }), ...(extra ? { note_tag: z.object({ tag: z.string() }) } : {}) }, ({ flow, Workflow }) => ({
        notes: flow(() => <Workflow name="notes" />),
      }));
    await bindBrowserWorkflows([notes(false)], s, createBrowserEnv("flow"));
    expect(await tables()).toEqual(["note"]);
    await s.executeScript(`DROP TABLE note`); // unnoticed: the same schemas skip the table check
    await bindBrowserWorkflows([notes(false)], s, createBrowserEnv("flow"));
    expect(await tables()).toEqual([]);
    await bindBrowserWorkflows([notes(true)], s, createBrowserEnv("flow"));
    expect(await tables()).toEqual(["note", "note_tag"]);
  }, 60_000);

  it("fails a task whose CLI agent or shell tool needs a Gateway with NOT_AVAILABLE", async () => {
    const s = await open();
    const set = defineWorkflows({ input: z.object({}), answer: z.object({ text: z.string() }) }, ({ flow, Workflow, Task, outputs }) => ({
      coder: flow(() => (
        <Workflow name="coder">
          <Task id="fix" output={outputs.answer} agent={new ExecCliAgent({ id: "codex" })}>Fix the bug.</Task>
        </Workflow>
      )),
    }));
    const { workflows } = await bindBrowserWorkflows([set], s, createBrowserEnv("flow"));
    const result = await runWorkflow(workflows.coder!, { input: {} });
    expect(result.status).toBe("failed");
    expect(JSON.stringify(result.error)).toMatch(/NOT_AVAILABLE[\s\S]*ExecCliAgent \(codex\) needs a Gateway|ExecCliAgent \(codex\) needs a Gateway[\s\S]*NOT_AVAILABLE/);
    await expect(bash.execute({ cmd: "ls" }, { rootDir: "/" } as never)).rejects.toMatchObject({ code: "NOT_AVAILABLE", details: { tool: "bash" } });
    expect(Object.keys(tools)).toEqual(["read", "write", "edit", "grep", "bash"]);
  }, 60_000);
});
