/**
 * The example `npm start` runs: a small research-style pipeline on the embedded SQLite store
 * (.flow/flow.db). Compute tasks stand in for agents so it runs offline; swap a Task's child
 * for a prompt and give it an `agent` to call a model (docs/agents.md).
 *
 *   npx flow up examples/hello.tsx --input '{"name":"world"}'
 */
import { z } from "zod";
import { createFlow } from "durable-flow";

const { flow, Workflow, Task, Parallel, Loop, outputs } = createFlow({
  input: z.object({ name: z.string() }),
  topic: z.object({ title: z.string(), angles: z.array(z.string()) }),
  note: z.object({ angle: z.string(), words: z.number().int() }),
  draft: z.object({ text: z.string(), score: z.number() }),
  output: z.object({ title: z.string(), text: z.string(), drafts: z.number().int() }),
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export default flow((ctx) => {
  const topic = ctx.outputMaybe(outputs.topic, { nodeId: "plan" });
  const best = ctx.latest(outputs.draft, "draft");
  return (
    <Workflow name="hello">
      <Task id="plan" output={outputs.topic}>
        {() => ({ title: `Hello, ${ctx.input.name}`, angles: ["why", "how", "what next"] })}
      </Task>
      <Parallel maxConcurrency={2}>
        {(topic?.angles ?? []).map((angle) => (
          <Task key={angle} id={`note-${angle.replace(/\W+/g, "-")}`} output={outputs.note}>
            {async () => (await pause(150), { angle, words: angle.length * 10 })}
          </Task>
        ))}
      </Parallel>
      <Loop id="refine" until={(best?.score ?? 0) >= 0.9} maxIterations={4}>
        <Task id="draft" output={outputs.draft}>
          {async () => {
            await pause(100);
            const notes = ctx.outputs.note.map((n) => n.angle).join(", ");
            return { text: `${topic?.title ?? ""}: on ${notes} (pass ${ctx.iteration + 1})`, score: 0.5 + 0.2 * ctx.iteration };
          }}
        </Task>
      </Loop>
      <Task id="publish" output={outputs.output}>
        {() => ({ title: topic?.title ?? "", text: best?.text ?? "", drafts: ctx.iterationCount(outputs.draft, "draft") })}
      </Task>
    </Workflow>
  );
});
