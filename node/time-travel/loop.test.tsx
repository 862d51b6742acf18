import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { expect, it } from "vitest";
import { FlowDb, runWorkflow, timeTravel } from "durable-flow";
import { sqliteBackend } from "../testing/backends.js";
import { tempRepo } from "../vcs/testing.js";

it("rewinds into a loop: the loop goes back to that iteration and runs it and the later ones again", async () => {
  const dir = tempRepo();
  const { api } = await sqliteBackend.open({ step: z.object({ i: z.number() }) }, { env: { recordSnapshots: true } });
  const { flow, Workflow, Task, Loop, outputs } = api;
  const ran: number[] = [];
  const wf = flow((ctx) => (
    <Workflow name="loop">
      <Loop id="rounds" until={ctx.iterationCount(outputs.step, "step") >= 3} maxIterations={5}>
        <Task id="step" output={outputs.step}>
          {(task: { iteration: number }) => {
            ran.push(task.iteration);
            writeFileSync(join(dir, "log.txt"), `${task.iteration}\n`, { flag: "a" });
            return { i: task.iteration };
          }}
        </Task>
      </Loop>
    </Workflow>
  ));
  const { runId } = await runWorkflow(wf, { input: {}, rootDir: dir });
  expect(ran).toEqual([0, 1, 2]);
  const db = new FlowDb(api.db);

  const r = await timeTravel(db, { runId, nodeId: "step", iteration: 1 });
  expect(r).toMatchObject({ success: true, resetNodes: ["step"] });
  expect(readFileSync(join(dir, "log.txt"), "utf8")).toBe("0\n");
  expect((await db.getRun(runId))?.iterations).toEqual({ rounds: 1 });
  expect((await db.listNodes(runId)).map((n) => `${n.iteration}:${n.state}`)).toEqual(["0:finished", "1:pending", "2:pending"]);

  ran.length = 0;
  expect((await runWorkflow(wf, { runId, resume: true, rootDir: dir })).status).toBe("finished");
  expect(ran).toEqual([1, 2]);
  expect(readFileSync(join(dir, "log.txt"), "utf8")).toBe("0\n1\n2\n");
});
