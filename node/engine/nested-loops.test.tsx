import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowEvent, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = {
  attempt: z.object({ round: z.number(), pass: z.number(), ok: z.boolean() }),
  round: z.object({ round: z.number(), tries: z.number() }),
  output: z.object({ rounds: z.number(), tries: z.number() }),
};

describe.each(testBackends)("nested loops on $name", (backend) => {
  it("runs an inner loop to its end in every iteration of the outer one, each pass keyed apart", async () => {
    const { api, location } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, Sequence, outputs } = api;
    const build = (failAt?: string) =>
      flow((ctx) => {
        const rounds = ctx.outputs.round;
        const outer = ctx.iterations.rounds ?? 0;
        // The inner loop's rows of this pass: those from where the pass began.
        const start = ctx.iterations["tries#start"] ?? 0;
        const pass = ctx.outputs.attempt.filter((r) => r.iteration >= start && r.round === outer);
        return (
          <Workflow name="nested">
            <Loop id="rounds" until={rounds.length >= 3} maxIterations={5}>
              <Sequence>
                {/* Round r needs r + 1 tries to succeed. */}
                <Loop id="tries" until={pass.some((r) => r.ok)} maxIterations={4}>
                  <Task id="try" output={outputs.attempt}>
                    {() => {
                      if (failAt === `${outer}:${pass.length}`) throw new Error("crash here");
                      return { round: outer, pass: pass.length, ok: pass.length >= outer };
                    }}
                  </Task>
                </Loop>
                <Task id="close-round" output={outputs.round}>
                  {() => ({ round: outer, tries: pass.length })}
                </Task>
              </Sequence>
            </Loop>
            <Task id="total" output={outputs.output}>
              {() => ({ rounds: rounds.length, tries: ctx.outputs.attempt.length })}
            </Task>
          </Workflow>
        );
      });
    const events: FlowEvent[] = [];
    const r = await runWorkflow(build(), { input: {}, onProgress: (e) => events.push(e) });
    expect(r).toMatchObject({ status: "finished", output: { rounds: 3, tries: 6 } });
    const db = new FlowDb(api.db);
    const tries = await db.listOutputs(r.runId, outputs.attempt);
    // The inner loop counts on across outer passes: iterations 0..5, never reused.
    expect(tries.map((t) => [t.iteration, t.round, t.pass, t.ok])).toEqual([
      [0, 0, 0, true],
      [1, 1, 0, false],
      [2, 1, 1, true],
      [3, 2, 0, false],
      [4, 2, 1, false],
      [5, 2, 2, true],
    ]);
    expect((await db.listOutputs(r.runId, outputs.round)).map((t) => [t.iteration, t.tries])).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
    ]);
    const loopEvents = events.filter((e) => e.type === "LoopIteration") as Array<FlowEvent & { loopId: string; iteration: number; path?: Record<string, number> }>;
    expect(loopEvents.filter((e) => e.loopId === "tries").map((e) => [e.iteration, e.path])).toEqual([
      [2, { rounds: 1 }],
      [4, { rounds: 2 }],
      [5, { rounds: 2 }],
    ]);
    // Frames carry each level's iteration of a nested task.
    const lastFrame = await db.getFrame(r.runId);
    expect(lastFrame!.tasks.find((t) => t.nodeId === "try")).toMatchObject({ iteration: 5, iterationPath: { rounds: 2, tries: 5 } });
  });

  it("resumes a paused run in the middle of a nested pass without repeating finished tries", async () => {
    const { api, location } = await backend.open(schemas);
    const pause = new AbortController();
    const ran: string[] = [];
    const make = (a: typeof api) =>
      a.flow((ctx) => {
        const outer = ctx.iterations.rounds ?? 0;
        const start = ctx.iterations["tries#start"] ?? 0;
        const pass = ctx.outputs.attempt.filter((r) => r.iteration >= start);
        return (
          <a.Workflow name="nested-resume">
            <a.Loop id="rounds" until={ctx.outputs.round.length >= 2} maxIterations={5}>
              <a.Loop id="tries" until={pass.length >= 2} maxIterations={4}>
                <a.Task id="try" output={a.outputs.attempt}>
                  {() => {
                    ran.push(`${outer}:${pass.length}`);
                    if (outer === 1 && pass.length === 0) pause.abort();
                    return { round: outer, pass: pass.length, ok: true };
                  }}
                </a.Task>
              </a.Loop>
              <a.Task id="close-round" output={a.outputs.round}>{() => ({ round: outer, tries: pass.length })}</a.Task>
            </a.Loop>
          </a.Workflow>
        );
      });
    const first = await runWorkflow(make(api), { input: {}, pauseSignal: pause.signal });
    expect(first.status).toBe("paused");
    expect(ran).toEqual(["0:0", "0:1", "1:0"]);
    const { api: again } = await backend.open(schemas, { sameStoreAs: location });
    const second = await runWorkflow(make(again), { runId: first.runId, resume: true });
    expect(second.status).toBe("finished");
    expect(ran).toEqual(["0:0", "0:1", "1:0", "1:1"]);
    const rows = await new FlowDb(again.db).listOutputs(first.runId, again.outputs.attempt);
    expect(rows.map((t) => [t.iteration, t.round, t.pass])).toEqual([
      [0, 0, 0],
      [1, 0, 1],
      [2, 1, 0],
      [3, 1, 1],
    ]);
  });

  it("fails with LOOP_MAX_ITERATIONS when a nested loop exhausts its own pass", async () => {
    const { api } = await backend.open(schemas);
    const { flow, Workflow, Task, Loop, outputs } = api;
    const wf = flow((ctx) => (
      <Workflow name="nested-max">
        <Loop id="o" until={false} maxIterations={3}>
          <Loop id="i" until={false} maxIterations={2} onMaxReached={ctx.iterations.o === 1 ? "fail" : "return-last"}>
            <Task id="x" output={outputs.round}>{() => ({ round: ctx.iterations.o ?? 0, tries: ctx.iterations.i ?? 0 })}</Task>
          </Loop>
        </Loop>
      </Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    expect(r).toMatchObject({ status: "failed", error: { code: "LOOP_MAX_ITERATIONS", details: { loopId: "i" } } });
    // Pass 0 ran two iterations (0, 1); pass 1 ran two more (2, 3) and then hit its limit.
    expect((await new FlowDb(api.db).listOutputs(r.runId, outputs.round)).map((t) => [t.iteration, t.round, t.tries])).toEqual([
      [0, 0, 0],
      [1, 0, 1],
      [2, 1, 2],
      [3, 1, 3],
    ]);
  });
});
