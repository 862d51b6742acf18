/**
 * Beyond one run (docs/components.md): a merge train. Each run takes the next `batchSize` pull
 * requests of the queue, checks each one in a child run (`Subflow` of the `checks` workflow,
 * kept in a store of its own), lands the green ones one at a time (`MergeQueue`), and, while
 * pull requests are left, ends with `ContinueAsNew`: a fresh run with the rest of the queue and
 * a clean history, however long the queue.
 *
 *   npx flow up examples/runs.tsx --input '{"queue":[101,102,103,104,105],"batchSize":2}'
 *   # ● run continued as <id> (twice), then the last run's result: "status": "finished"
 *
 * `flow up` (and a Gateway) follow the chain of runs to its end. `npx tsx examples/runs.tsx`
 * runs `main()`, which follows it with `runWorkflow`, as a script does. The stores are
 * `.flow/examples/runs.db` and `runs-checks.db` beside it (or `$FLOW_EXAMPLE_DB` and its
 * `-checks` sibling). A pull request whose number ends in 3 fails its tests.
 */
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { createFlow, runWorkflow } from "durable-flow";
import type { FlowApi, RunResult } from "durable-flow";

export const checkSchemas = {
  input: z.object({ pr: z.number().int() }),
  check: z.object({ name: z.string(), ok: z.boolean() }),
  verdict: z.object({ pr: z.number().int(), green: z.boolean(), failed: z.array(z.string()) }),
};

/** The child workflow: lint and test one pull request; its run output is the `verdict` row. */
export function checks(api: FlowApi<typeof checkSchemas>) {
  const { flow, Workflow, Task, Parallel, outputs } = api;
  return flow(
    (ctx) => (
      <Workflow name="checks">
        <Parallel>
          <Task id="lint" output={outputs.check}>{{ name: "lint", ok: true }}</Task>
          <Task id="test" output={outputs.check}>{() => ({ name: "test", ok: ctx.input.pr % 10 !== 3 })}</Task>
        </Parallel>
        <Task id="verdict" output={outputs.verdict}>
          {() => {
            const failed = ctx.outputs.check.filter((c) => !c.ok).map((c) => c.name);
            return { pr: ctx.input.pr, green: failed.length === 0, failed };
          }}
        </Task>
      </Workflow>
    ),
    { output: outputs.verdict },
  );
}

export const schemas = {
  input: z.object({
    queue: z.array(z.number().int()),
    /** Pull requests per run (default 3). */
    batchSize: z.number().int().positive().optional(),
    /** Merged by the runs before this one (carried by ContinueAsNew). */
    mergedBefore: z.number().int().optional(),
    /** Rejected by the runs before this one. */
    rejectedBefore: z.array(z.number().int()).optional(),
  }),
  verdict: checkSchemas.verdict,
  merge: z.object({ pr: z.number().int(), position: z.number().int() }),
  output: z.object({ merged: z.number().int(), rejected: z.array(z.number().int()) }),
};

/** The merge train on an api, with the checks workflow it runs as child runs. */
export function mergeTrain(api: FlowApi<typeof schemas>, checksWorkflow: ReturnType<typeof checks>) {
  const { flow, Workflow, Task, Parallel, MergeQueue, Subflow, ContinueAsNew, outputs } = api;
  return flow((ctx) => {
    const size = ctx.input.batchSize ?? 3;
    const batch = ctx.input.queue.slice(0, size);
    const rest = ctx.input.queue.slice(size);
    const verdicts = ctx.outputs.verdict;
    const green = batch.filter((pr) => verdicts.some((v) => v.pr === pr && v.green));
    const mergedBefore = ctx.input.mergedBefore ?? 0;
    const rejected = [...(ctx.input.rejectedBefore ?? []), ...batch.filter((pr) => verdicts.some((v) => v.pr === pr && !v.green))];
    return (
      <Workflow name="merge-train">
        <Parallel id="checks" maxConcurrency={2}>
          {batch.map((pr) => (
            <Subflow key={pr} id={`check-${pr}`} workflow={checksWorkflow} input={{ pr }} output={outputs.verdict} retries={0} />
          ))}
        </Parallel>
        {/* One merge at a time, in queue order: each lands on the main branch the previous one left. */}
        <MergeQueue id="land">
          {green.map((pr) => (
            <Task key={pr} id={`merge-${pr}`} output={outputs.merge}>
              {async () => {
                await new Promise((r) => setTimeout(r, 5)); // the merge itself
                return { pr, position: mergedBefore + ctx.outputs.merge.length + 1 };
              }}
            </Task>
          ))}
        </MergeQueue>
        {rest.length > 0 ? (
          <ContinueAsNew input={{ queue: rest, batchSize: size, mergedBefore: mergedBefore + green.length, rejectedBefore: rejected }} />
        ) : (
          <Task id="summary" output={outputs.output}>
            {() => ({ merged: mergedBefore + ctx.outputs.merge.length, rejected })}
          </Task>
        )}
      </Workflow>
    );
  });
}

const dbPath = process.env.FLOW_EXAMPLE_DB ?? ".flow/examples/runs.db";
export const checksApi = createFlow(checkSchemas, { dbPath: dbPath.replace(/(\.db)?$/, "-checks.db") });
export const api = createFlow(schemas, { dbPath });
const workflow = mergeTrain(api, checks(checksApi));
export default workflow;

/** Runs the train to the end, following each `nextRunId`; returns the chain of results. */
export async function main(queue = [101, 102, 103, 104, 105], batchSize = 2): Promise<RunResult[]> {
  const chain = [await runWorkflow(workflow, { input: { queue, batchSize } })];
  for (let r = chain[0]!; r.status === "continued" && r.nextRunId; r = chain[chain.length - 1]!) {
    chain.push(await runWorkflow(workflow, { runId: r.nextRunId, resume: true }));
  }
  for (const r of chain) console.log(r.runId, r.status, r.output ?? "");
  return chain;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
