/**
 * Incremental renders (core/engine/incremental-render.ts, docs/engine.md "Incremental
 * renders"): after a completion only the components that read the written row run again, and
 * what is stored (frames, events, rows) is exactly what a full render of the whole tree stores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { createFlow, FlowDb, type FlowEvent, runWorkflow } from "durable-flow";

const dir = mkdtempSync(join(tmpdir(), "flow-incremental-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schemas = { step: z.object({ i: z.number().int() }), output: z.object({ sum: z.number().int() }) };
let stores = 0;
const open = () => createFlow(schemas, { dbPath: join(dir, `flow-${++stores}.db`) });

/** A Sequence of `n` step components, each reading its own task's row to set its label. */
function stepsWorkflow(api: ReturnType<typeof open>, n: number, opts: { rootReads: boolean; calls?: number[]; parallel?: number; loop?: boolean }) {
  const { flow, Workflow, Task, Sequence, Parallel, Loop, outputs, useCtx } = api;
  const Step = ({ i }: { i: number }) => {
    if (opts.calls) opts.calls[i] = (opts.calls[i] ?? 0) + 1;
    const row = useCtx().outputMaybe(outputs.step, { nodeId: `s${i}` });
    return (
      <Task id={`s${i}`} output={outputs.step} label={row ? `done ${row.i}` : "todo"} meta={{ seen: row !== undefined }}>
        {() => ({ i })}
      </Task>
    );
  };
  return flow((ctx) => {
    // Reading the table in the build makes every completion re-render the whole tree.
    if (opts.rootReads) void ctx.outputs.step.length;
    return (
      <Workflow name="steps">
        {opts.parallel ? (
          <Parallel maxConcurrency={opts.parallel}>{Array.from({ length: n }, (_, i) => <Step key={i} i={i} />)}</Parallel>
        ) : opts.loop ? (
          <Loop id="again" until={false} maxIterations={3}>
            {Array.from({ length: n }, (_, i) => <Step key={i} i={i} />)}
          </Loop>
        ) : (
          <Sequence>{Array.from({ length: n }, (_, i) => <Step key={i} i={i} />)}</Sequence>
        )}
        <Task id="total" output={outputs.output}>{() => ({ sum: ctx.outputs.step.reduce((s, r) => s + r.i, 0) })}</Task>
      </Workflow>
    );
  });
}

async function stored(api: ReturnType<typeof open>, runId: string, events: FlowEvent[]) {
  const store = new FlowDb(api.db).store;
  const frames = await store.query<{ frame_no: number; kind: string; data_json: string }>("SELECT frame_no, kind, data_json FROM _flow_frames WHERE run_id = ? ORDER BY frame_no", [runId]);
  return { frames: frames.map((f) => [f.frame_no, f.kind, f.data_json]), events: events.map((e) => e.type) };
}

describe("incremental renders", () => {
  it("runs again only the component that read the row a completion wrote", async () => {
    const api = open();
    const calls: number[] = [];
    const result = await runWorkflow(stepsWorkflow(api, 12, { rootReads: false, calls }), { input: {} });
    expect(result.status).toBe("finished");
    expect(result.output).toEqual({ sum: 66 });
    // Once in the first (full) render, once after its own row was stored.
    expect(calls).toEqual(Array.from({ length: 12 }, () => 2));
  });

  it.each([
    ["a Sequence", undefined, false],
    ["a Parallel", 3, false],
    ["a Loop", undefined, true],
  ])("stores the same frames and events in %s as rendering the whole tree after every completion", async (_, parallel, loop) => {
    const runs = [];
    for (const rootReads of [false, true]) {
      const api = open();
      const calls: number[] = [];
      const events: FlowEvent[] = [];
      const result = await runWorkflow(stepsWorkflow(api, 30, { rootReads, calls, parallel, loop }), { input: {}, runId: "same-run", onProgress: (e) => events.push(e) });
      expect(result.status).toBe("finished");
      runs.push({ calls: calls.reduce((a, b) => a + b, 0), ...(await stored(api, result.runId, events)) });
    }
    const [incremental, full] = runs;
    // Each step renders once in a full render and once after its own row (a Loop: per iteration,
    // and every loop boundary renders the whole tree).
    if (!loop) expect(incremental!.calls).toBe(60);
    else expect(incremental!.calls).toBeLessThan(full!.calls / 4);
    // Completions that land together render together, so a Parallel renders fewer times.
    expect(full!.calls).toBeGreaterThan(parallel ? 30 * 5 : 30 * 30);
    expect(incremental!.frames.length).toBeGreaterThan(parallel ? 5 : 30);
    expect(incremental!.frames).toEqual(full!.frames);
    expect(incremental!.events).toEqual(full!.events);
  });

  it("renders the whole tree when a component's new output changes the plan", async () => {
    const api = open();
    const { flow, Workflow, Task, Sequence, outputs, useCtx } = api;
    const Grow = ({ i }: { i: number }) => {
      const row = useCtx().outputMaybe(outputs.step, { nodeId: `g${i}` });
      // Once its row is stored, the component adds a follow-up task: a new node in the plan.
      return (
        <Sequence>
          <Task id={`g${i}`} output={outputs.step}>{() => ({ i })}</Task>
          {row ? <Task id={`g${i}-after`} output={outputs.step}>{() => ({ i: i * 10 })}</Task> : null}
        </Sequence>
      );
    };
    const Relabel = ({ i }: { i: number }) => {
      const row = useCtx().outputMaybe(outputs.step, { nodeId: `r${i}` });
      // After its row: a dependency on g1 that it did not have (the scheduler's wiring changes).
      return (
        <Task id={`r${i}`} output={outputs.step} dependsOn={row ? ["g1"] : []}>
          {() => ({ i: 100 + i })}
        </Task>
      );
    };
    const wf = flow(() => (
      <Workflow name="grow">
        <Relabel i={0} />
        <Grow i={1} />
        <Grow i={2} />
      </Workflow>
    ));
    const result = await runWorkflow(wf, { input: {} });
    expect(result.status).toBe("finished");
    const rows = await new FlowDb(api.db).listOutputs(result.runId, outputs.step);
    expect(rows.map((r) => [r.nodeId, r.i]).sort()).toEqual([
      ["g1", 1],
      ["g1-after", 10],
      ["g2", 2],
      ["g2-after", 20],
      ["r0", 100],
    ]);
  });
});
