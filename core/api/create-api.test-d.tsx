/**
 * Type tests of the public API: checked by `tsc --noEmit` (part of `npm test`). Each
 * `@ts-expect-error` must fail to compile, or tsc reports it as unused.
 */
import { z } from "zod";
import { createFlow, runWorkflow } from "durable-flow";

const api = createFlow(
  {
    input: z.object({ topic: z.string(), limit: z.number().optional() }),
    idea: z.object({ title: z.string(), score: z.number() }),
    output: z.object({ best: z.string() }),
  },
  { dbPath: ":memory:" },
);
const { flow, Workflow, Task, outputs } = api;

export const workflow = flow((ctx) => {
  const topic: string = ctx.input.topic;
  const ideas = ctx.outputs.idea;
  const first: number | undefined = ideas[0]?.score;
  const row = ctx.outputMaybe(outputs.idea, { nodeId: "a" });
  const key: string | undefined = row?.nodeId;
  // @ts-expect-error: the input has no field "missing"
  void ctx.input.missing;
  // @ts-expect-error: rows of "idea" have no field "best"
  void ideas[0]?.best;
  void [topic, first, key];
  return (
    <Workflow name="types">
      <Task id="a" output={outputs.idea}>{{ title: "x", score: 1 }}</Task>
      {/* @ts-expect-error: a static row must match the output schema */}
      <Task id="b" output={outputs.idea}>{{ title: "x", score: "high" }}</Task>
      <Task id="c" output={outputs.idea}>{(task) => ({ title: task.nodeId, score: task.attempt })}</Task>
      <Task id="d" output={outputs.output} deps={{ a: outputs.idea }}>
        {(deps) => ({ best: deps.a.title })}
      </Task>
      {/* @ts-expect-error: deps rows are typed by their schema */}
      <Task id="e" output={outputs.output} deps={{ a: outputs.idea }}>{(deps) => ({ best: deps.a.score })}</Task>
      <Task id="f" output="idea">{{ title: "by key", score: 2 }}</Task>
      {/* @ts-expect-error: "nope" is not an output key */}
      <Task id="g" output="nope">{{}}</Task>
    </Workflow>
  );
});

export async function run() {
  const result = await runWorkflow(workflow, { input: { topic: "types" } });
  const status: "running" | "finished" | "failed" | string = result.status;
  // The output is the "output" schema's row.
  const best: string | undefined = result.output?.best;
  // @ts-expect-error: the output row has no field "score"
  void result.output?.score;
  void best;
  // @ts-expect-error: the input must fit the input schema
  await runWorkflow(workflow, { input: { topic: 3 } });
  return status;
}
