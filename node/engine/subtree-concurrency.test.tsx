import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = { step: z.object({ lane: z.string(), step: z.number() }) };

describe.each(testBackends)("Parallel subtreeConcurrency on $name", (backend) => {
  it("runs at most N child subtrees at once, each to its end before the next one starts", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, Sequence, outputs } = api;
    const log: string[] = [];
    let active = 0;
    let peak = 0;
    const lanes = ["a", "b", "c", "d"];
    const step = (lane: string, n: number) => async () => {
      active++;
      peak = Math.max(peak, active);
      log.push(`start ${lane}${n}`);
      await new Promise((r) => setTimeout(r, 5));
      active--;
      log.push(`end ${lane}${n}`);
      return { lane, step: n };
    };
    const wf = flow(() => (
      <Workflow name="lanes">
        <Parallel id="lanes" subtreeConcurrency={2}>
          {lanes.map((lane) => (
            <Sequence key={lane}>
              <Task id={`${lane}1`} output={outputs.step}>{step(lane, 1)}</Task>
              <Task id={`${lane}2`} output={outputs.step}>{step(lane, 2)}</Task>
            </Sequence>
          ))}
        </Parallel>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {}, maxConcurrency: 8 });
    expect(r.status).toBe("finished");
    expect(peak).toBe(2);
    // c starts only after a (or b) has finished both of its steps.
    const firstDone = Math.min(log.indexOf("end a2"), log.indexOf("end b2"));
    expect(log.indexOf("start c1")).toBeGreaterThan(firstDone);
    // Lanes open (first step started, last not ended) never exceed 2, even between steps.
    const open = new Set<string>();
    for (const line of log) {
      if (line.endsWith("1") && line.startsWith("start")) open.add(line[6]!);
      if (line.endsWith("2") && line.startsWith("end")) open.delete(line[4]!);
      expect(open.size).toBeLessThanOrEqual(2);
    }
    expect(await new FlowDb(api.db).listOutputs(r.runId, outputs.step)).toHaveLength(8);
    const frame = await new FlowDb(api.db).getFrame(r.runId);
    expect(frame!.tasks.find((t) => t.nodeId === "c2")).toMatchObject({ subtreeGroupId: "lanes", subtreeChildKey: "2", subtreeMax: 2 });
  });

  it("refuses a subtreeConcurrency that is not a positive number", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Parallel, outputs } = api;
    const wf = flow(() => (
      <Workflow name="bad">
        <Parallel subtreeConcurrency={0}>
          <Task id="x" output={outputs.step}>{{ lane: "x", step: 1 }}</Task>
        </Parallel>
      </Workflow>
    ));
    expect(await runWorkflow(wf, { input: {} })).toMatchObject({ status: "failed", error: { code: "RENDER_FAILED", message: expect.stringContaining("subtreeConcurrency") } });
  });
});
