/**
 * Memory across runs and scorers: a stand-up assistant that remembers every team's updates.
 * Each run recalls the team's earlier notes by full-text search, writes a summary, and saves
 * the update as a note (and the date as a fact), so the next run knows about it. Compute tasks
 * stand in for agents so it runs offline (docs/memory.md, docs/scorers.md).
 *
 *   npx flow up examples/memory.tsx --input '{"team":"core","update":"Shipped the parser fix"}'
 *   npx flow up examples/memory.tsx --input '{"team":"core","update":"Parser fix broke the build"}'
 *   npx flow memory notes workflow:standup-core
 *   npx flow memory search workflow "parser"
 */
import { z } from "zod";
import { createFlow, createMemoryStore, createScorer, type FlowApi } from "durable-flow";

export const schemas = {
  input: z.object({ team: z.string(), update: z.string() }),
  context: z.object({ related: z.array(z.string()), lastUpdateAt: z.string().nullable() }),
  summary: z.object({ text: z.string(), mentionsEarlier: z.boolean() }),
  output: z.object({ noteId: z.string(), related: z.number().int() }),
};

/** Grades a summary: 1 when it refers back to earlier updates whenever there were some. */
export const continuity = createScorer({
  id: "continuity",
  name: "Continuity",
  description: "1 when the summary mentions earlier related updates, if any exist",
  score: ({ output, groundTruth }) => ((output as { mentionsEarlier: boolean }).mentionsEarlier === groundTruth ? 1 : 0),
});

/** The stand-up workflow over an api's store (a factory, so tests can pass their own store). */
export function standupWorkflow(api: FlowApi<typeof schemas>) {
  const { flow, Workflow, Task, Sequence, outputs } = api;
  const memory = createMemoryStore(api.db);
  return flow((ctx) => {
    const ns = { kind: "workflow", id: `standup-${ctx.input.team}` } as const;
    const context = ctx.outputMaybe(outputs.context, { nodeId: "recall" });
    return (
      <Workflow name="standup">
        <Sequence>
          <Task id="recall" output={outputs.context}>
            {async () => {
              await memory.enableNoteSearch("workflow"); // idempotent
              const related = await memory.searchNotes("workflow", ctx.input.update, 3, { namespace: ns });
              const last = await memory.getFact(ns, "lastUpdateAt");
              return { related: related.map((n) => n.body), lastUpdateAt: last ? (JSON.parse(last.valueJson) as string) : null };
            }}
          </Task>
          <Task id="summarize" output={outputs.summary} scorers={{ continuity: { scorer: continuity } }}>
            {() => {
              const earlier = context?.related ?? [];
              const text = earlier.length ? `${ctx.input.update} (earlier: ${earlier.join("; ")})` : ctx.input.update;
              return { text, mentionsEarlier: earlier.length > 0 };
            }}
          </Task>
          <Task id="remember" output={outputs.output}>
            {async () => {
              const note = await memory.saveNote({
                namespace: ns,
                body: ctx.input.update,
                kind: "update",
                author: "standup",
                provenance: { runId: ctx.runId, nodeId: "remember", iteration: ctx.iteration },
                id: `${ctx.runId}:update`, // a retried task does not save twice
              });
              await memory.setFact(ns, "lastUpdateAt", new Date().toISOString());
              return { noteId: note.id, related: context?.related.length ?? 0 };
            }}
          </Task>
        </Sequence>
      </Workflow>
    );
  });
}

export default standupWorkflow(createFlow(schemas));
