import { rmSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createDomainHandler, createFlow, LocalGatewayHost } from "durable-flow";
import { createDataClient } from "durable-flow/data";
import { tempDir } from "../testing/backends.js";
import { listenForTest } from "./testing.js";

const codeOf = (p: Promise<unknown>) => p.then(() => "no error", (e: { code?: string; status?: number }) => `${e.code} ${e.status}`);

describe("forkRun over the domain API", () => {
  it("starts a new run at a task on an edited input, reusing what finished before it, and refuses an input the schema refuses before writing anything", async () => {
    const dbPath = join(tempDir(), "flow.db");
    const calls: string[] = [];
    const f = createFlow({ input: z.object({ n: z.number().int().min(1) }), step: z.object({ v: z.number() }) }, { dbPath });
    const chain = f.flow((ctx) => (
      <f.Workflow name="chain">
        <f.Task id="a" output={f.outputs.step}>{() => (calls.push(`a:${ctx.input.n}`), { v: ctx.input.n })}</f.Task>
        <f.Task id="b" output={f.outputs.step} dependsOn={["a"]}>{() => (calls.push(`b:${ctx.input.n}`), { v: ctx.input.n * 10 })}</f.Task>
        <f.Task id="c" output={f.outputs.step} dependsOn={["b"]}>{() => (calls.push(`c:${ctx.input.n}`), { v: ctx.input.n * 100 })}</f.Task>
      </f.Workflow>
    ));
    const host = new LocalGatewayHost({ workflows: { chain } });
    const { url } = await listenForTest(createDomainHandler({ host, heartbeatMs: 60_000 }).fetch);
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: url } });
    const settle = async (runId: string) => (await host.activeRun(runId)?.done) ?? { status: (await host.db.requireRun(runId)).status };
    try {
      await data.api.launchRun({ workflow: "chain", input: { n: 1 }, runId: "r1" });
      expect((await settle("r1")).status).toBe("finished");
      calls.length = 0;

      // Refused by the schema: 400 with the problem per field, and no run is written.
      const refused = await data.api.forkRun({ runId: "r1", nodeId: "b", input: { n: 0 }, newRunId: "bad" }).catch((e: { code: string; status: number; details?: { problems?: string[] } }) => e);
      expect(refused).toMatchObject({ code: "INPUT_INVALID", status: 400 });
      expect((refused as { details: { problems: string[] } }).details.problems.join(" ")).toMatch(/^n: /);
      expect(await host.db.getRun("bad")).toBeFalsy();
      expect(await codeOf(data.api.forkRun({ runId: "r1", nodeId: "nope" }))).toBe("NODE_NOT_FOUND 404");
      expect(await codeOf(data.api.forkRun({ runId: "ghost", nodeId: "b" }))).toBe("RUN_NOT_FOUND 404");

      const forked = await data.api.forkRun({ runId: "r1", nodeId: "b", input: { n: 2 }, newRunId: "r1-fork" });
      expect(forked).toEqual({ runId: "r1-fork", workflow: "chain", forkedFrom: "r1:b@0#1", rerun: expect.arrayContaining(["b", "c"]) });
      expect((await settle("r1-fork")).status).toBe("finished");
      expect(calls).toEqual(["b:2", "c:2"]); // "a" was reused, not run again
      const fork = await data.api.getRun("r1-fork");
      expect(fork.input).toEqual({ n: 2 });
      expect(fork.annotations["flow.forkedFrom"]).toBe("r1:b@0#1");
      expect((await data.api.getNodeOutput("r1-fork", "a")).row).toMatchObject({ v: 1 });
      expect((await data.api.getNodeOutput("r1-fork", "c")).row).toMatchObject({ v: 200 });
      // The original is only read.
      expect((await data.api.getNodeOutput("r1", "c")).row).toMatchObject({ v: 100 });
      expect((await data.api.getRun("r1")).nodes.every((n) => n.attempts.length === 1)).toBe(true);
    } finally {
      data.close();
    }
  });

  it("runs the fork where the original run worked, not in the forking host's directory; one that is gone is RUN_WORKSPACE_MISSING", async () => {
    const f = createFlow({ step: z.object({ v: z.number() }) }, { dbPath: join(tempDir(), "flow.db") });
    const one = f.flow(() => (
      <f.Workflow name="one">
        <f.Task id="a" output={f.outputs.step}>{() => ({ v: 1 })}</f.Task>
      </f.Workflow>
    ));
    // The run was started by a host working in one directory (another machine, or before a restart) ...
    const original = tempDir();
    const first = new LocalGatewayHost({ workflows: { one }, runDefaults: { rootDir: original } });
    const { runId } = await first.startRun({ workflowKey: "one", input: {} });
    await first.activeRun(runId)?.done;
    // ... and is forked through one whose default is another.
    const host = new LocalGatewayHost({ workflows: { one }, runDefaults: { rootDir: tempDir() } });
    const { url } = await listenForTest(createDomainHandler({ host, heartbeatMs: 60_000 }).fetch);
    const data = createDataClient({ mode: { kind: "local", apiBaseUrl: url } });
    try {
      await data.api.forkRun({ runId, nodeId: "a", newRunId: "f1" });
      expect((await host.activeRun("f1")?.done) ?? (await host.db.requireRun("f1"))).toMatchObject({ status: "finished" });
      expect((await host.db.requireRun("f1")).rootDir).toBe(original);
      rmSync(original, { recursive: true });
      expect(await codeOf(data.api.forkRun({ runId, nodeId: "a", newRunId: "f2" }))).toBe("RUN_WORKSPACE_MISSING 409");
      expect(await host.db.getRun("f2")).toBeFalsy();
    } finally {
      data.close();
    }
  });
});
