/**
 * Type tests of `FlowDb.listOutputs`: checked by `tsc --noEmit` (part of `npm test`). Each
 * `@ts-expect-error` must fail to compile, or tsc reports it as unused.
 */
import { z } from "zod";
import { createFlow, FlowDb } from "durable-flow";

const schemas = {
  input: z.object({ topic: z.string() }),
  review: z.object({ score: z.number(), notes: z.string().optional() }),
  plan: z.object({ steps: z.array(z.string()) }),
};
const api = createFlow(schemas, { dbPath: ":memory:" });

export async function bySchema(runId: string) {
  // A schema types the rows on any FlowDb.
  const rows = await new FlowDb(api.db).listOutputs(runId, api.outputs.review);
  const score: number = rows[0]!.score;
  const notes: string | undefined = rows[0]!.notes;
  const key: [string, string, number] = [rows[0]!.runId, rows[0]!.nodeId, rows[0]!.iteration];
  // @ts-expect-error: rows of "review" have no field "steps"
  void rows[0]!.steps;
  // @ts-expect-error: score is a number
  const wrong: string = rows[0]!.score;
  void [score, notes, key, wrong];
}

export async function byKey(runId: string) {
  // A key types the rows on a FlowDb of the workflow's schema map.
  const db = new FlowDb<typeof schemas>(api.db);
  const plans = await db.listOutputs(runId, "plan");
  const steps: string[] = plans[0]!.steps;
  // @ts-expect-error: rows of "plan" have no field "score"
  void plans[0]!.score;
  // @ts-expect-error: "missing" is not an output of the workflow
  await db.listOutputs(runId, "missing");
  // @ts-expect-error: the input is not an output table
  await db.listOutputs(runId, "input");
  void steps;
}

export async function untyped(runId: string) {
  // Without the schema map, a key gives loosely typed rows (the table is resolved at run time).
  const rows = await new FlowDb(api.db).listOutputs(runId, "plan");
  const value: unknown = rows[0]?.steps;
  const nodeId: string | undefined = rows[0]?.nodeId;
  void [value, nodeId];
}
