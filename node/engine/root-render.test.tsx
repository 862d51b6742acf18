/**
 * Root-reading renders (docs/engine.md "Incremental renders", core/engine/plan-patch.ts): a
 * build function that reads outputs runs again after each of them; the plan stays and the
 * tasks keep their descriptors (their props did not change), but each attempt must run the
 * function of the render that started it, not the one its descriptor was first made with.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { createFlow, FlowDb, runWorkflow } from "durable-flow";

const dir = mkdtempSync(join(tmpdir(), "flow-root-render-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("root-reading renders", () => {
  it("runs each attempt with the function of the render that started it when the build reads every output", async () => {
    const api = createFlow({ out: z.object({ i: z.number().int(), seen: z.number().int() }) }, { dbPath: join(dir, "flow.db") });
    const { flow, Workflow, Task, Parallel, outputs } = api;
    // t0 runs until the last task has started, across the renders of all the others.
    let releaseFirst!: () => void;
    const lastStarted = new Promise<void>((resolve) => (releaseFirst = resolve));
    const wf = flow((ctx) => {
      const seen = ctx.outputs.out.length;
      return (
        <Workflow name="root-reads">
          <Parallel maxConcurrency={2}>
            {Array.from({ length: 6 }, (_, i) => (
              <Task key={i} id={`t${i}`} output={outputs.out} label="step">
                {async () => {
                  if (i === 0) await lastStarted;
                  if (i === 5) releaseFirst();
                  return { i, seen };
                }}
              </Task>
            ))}
          </Parallel>
        </Workflow>
      );
    });
    const result = await runWorkflow(wf, { input: {} });
    expect(result.status).toBe("finished");
    const rows = await new FlowDb(api.db).listOutputs(result.runId, outputs.out);
    const seen = Object.fromEntries(rows.map((r) => [r.nodeId, r.seen]));
    // t0 and t1 started in the first render; each later task in the render after the one before it.
    expect(seen).toEqual({ t0: 0, t1: 0, t2: 1, t3: 2, t4: 3, t5: 4 });
    // Only the functions changed from render to render: the first frame is the only one.
    const frames = await new FlowDb(api.db).store.query<{ c: number }>("SELECT COUNT(*) AS c FROM _flow_frames WHERE run_id = ?", [result.runId]);
    expect(frames[0]!.c).toBe(1);
  });
});
