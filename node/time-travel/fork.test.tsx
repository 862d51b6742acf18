import { rmSync } from "node:fs";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, forkRun, isFlowError, planFork, replayRun, runWorkflow } from "durable-flow";
import { tempDir, testBackends } from "../testing/backends.js";

const schemas = { input: z.object({ x: z.number() }), step: z.object({ v: z.number() }) };

describe.each(testBackends)("fork and replay on $name", (backend) => {
  it("forks with an edited input and runs only the tasks after the fork point; replays with the same input; the original stays", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const ran: string[] = [];
    const wf = flow((ctx) => (
      <Workflow name="chain">
        <Sequence>
          <Task id="a" output={outputs.step}>{() => (ran.push("a"), { v: ctx.input.x })}</Task>
          <Task id="b" output={outputs.step}>{() => (ran.push("b"), { v: (ctx.outputMaybe(outputs.step, { nodeId: "a" })?.v ?? 0) + ctx.input.x * 10 })}</Task>
          <Task id="c" output={outputs.step}>{() => (ran.push("c"), { v: (ctx.outputMaybe(outputs.step, { nodeId: "b" })?.v ?? 0) + 100 })}</Task>
        </Sequence>
      </Workflow>
    ));
    const source = await runWorkflow(wf, { input: { x: 1 } });
    expect(source.status).toBe("finished");
    const db = new FlowDb(api.db);
    const values = async (runId: string) => Object.fromEntries((await db.listOutputs(runId, outputs.step)).map((r) => [r.nodeId, r.v]));
    expect(await values(source.runId)).toEqual({ a: 1, b: 11, c: 111 });

    expect((await planFork(db, { runId: source.runId, nodeId: "b" })).rerun.sort()).toEqual(["b", "c"]);
    ran.length = 0;
    const fork = await forkRun(wf, { runId: source.runId, nodeId: "b", input: { x: 2 }, newRunId: `${source.runId}-fork` });
    expect(fork).toMatchObject({ runId: `${source.runId}-fork`, status: "finished" });
    expect(ran).toEqual(["b", "c"]);
    expect(await values(fork.runId)).toEqual({ a: 1, b: 21, c: 121 }); // a kept from the original
    expect((await db.getRun(fork.runId))?.annotations).toMatchObject({ "flow.forkedFrom": `${source.runId}:b@0#1` });
    expect(await values(source.runId)).toEqual({ a: 1, b: 11, c: 111 });
    expect((await db.getRun(source.runId))?.status).toBe("finished");

    ran.length = 0;
    const replay = await replayRun(wf, { runId: fork.runId, nodeId: "c" });
    expect(replay.status).toBe("finished");
    expect(ran).toEqual(["c"]);
    expect(await values(replay.runId)).toEqual({ a: 1, b: 21, c: 121 });
    await expect(forkRun(wf, { runId: source.runId, nodeId: "zzz" })).rejects.toSatisfy((e) => isFlowError(e, "NODE_NOT_FOUND"));
  });

  it("forks and replays in the directory the original run worked in, wherever they are started from; rootDir moves them", async () => {
    const elsewhere = tempDir();
    const { api } = await backend.open(schemas, { env: { cwd: elsewhere } });
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="one">
        <Task id="a" output={outputs.step}>{() => ({ v: ctx.input.x })}</Task>
      </Workflow>
    ));
    const original = tempDir();
    const source = await runWorkflow(wf, { input: { x: 1 }, rootDir: original });
    const db = new FlowDb(api.db);
    const rootOf = async (runId: string) => (await db.requireRun(runId)).rootDir;
    expect(await rootOf(source.runId)).toBe(original);
    expect((await planFork(db, { runId: source.runId, nodeId: "a" })).rootDir).toBe(original);
    expect(await rootOf((await forkRun(wf, { runId: source.runId, nodeId: "a", input: { x: 2 } })).runId)).toBe(original);
    expect(await rootOf((await replayRun(wf, { runId: source.runId })).runId)).toBe(original);
    const moved = tempDir();
    expect(await rootOf((await forkRun(wf, { runId: source.runId, nodeId: "a", rootDir: moved })).runId)).toBe(moved);
    rmSync(original, { recursive: true });
    await expect(replayRun(wf, { runId: source.runId })).rejects.toSatisfy((e) => isFlowError(e, "RUN_WORKSPACE_MISSING"));
    await expect(forkRun(wf, { runId: source.runId, nodeId: "a" })).rejects.toSatisfy((e) => isFlowError(e, "RUN_WORKSPACE_MISSING"));
  });
});
