import { sql } from "drizzle-orm";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, type FlowApi, isFlowError, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

// Issue #10: `npm start` (hello) then the quickstart's review.tsx in the same folder failed with
// "NOT NULL constraint failed: input.name". Workflows whose schema keys collide must share a store.
const helloSchemas = {
  input: z.object({ name: z.string() }),
  output: z.object({ message: z.string() }),
};
const reviewSchemas = {
  input: z.object({ repo: z.string() }),
  review: z.object({ approved: z.boolean(), notes: z.string() }),
  output: z.object({ approved: z.boolean(), rounds: z.number().int() }),
};

function hello(api: FlowApi<typeof helloSchemas>) {
  const { flow, Workflow, Task, outputs } = api;
  return flow((ctx) => (
    <Workflow name="hello">
      <Task id="greet" output={outputs.output}>{() => ({ message: `hello ${ctx.input.name}` })}</Task>
    </Workflow>
  ));
}

function review(api: FlowApi<typeof reviewSchemas>) {
  const { flow, Workflow, Task, outputs } = api;
  return flow((ctx) => (
    <Workflow name="review">
      <Task id="review" output={outputs.review}>{() => ({ approved: true, notes: ctx.input.repo })}</Task>
      <Task id="result" output={outputs.output}>{() => ({ approved: ctx.latest(outputs.review, "review")?.approved ?? false, rounds: 1 })}</Task>
    </Workflow>
  ));
}

/** Runs raw SQL through the api's Drizzle handle (SQLite or PostgreSQL). */
async function rawSql(api: FlowApi<never>, text: string): Promise<void> {
  const db = api.db as { run?: (q: unknown) => unknown; execute?: (q: unknown) => Promise<unknown> };
  if (db.run) db.run(sql.raw(text));
  else await db.execute!(sql.raw(text));
}

describe.each(testBackends)("workflows sharing a store on $name", (backend) => {
  it("runs two workflows whose input and output keys differ in shape, each reading its own rows", async () => {
    const a = await backend.open(helloSchemas);
    const b = await backend.open(reviewSchemas, { sameStoreAs: a.location });
    const r1 = await runWorkflow(hello(a.api), { input: { name: "world" } });
    const r2 = await runWorkflow(review(b.api), { input: { repo: "." } });
    const r3 = await runWorkflow(hello(a.api), { input: { name: "again" } });
    expect([r1.status, r2.status, r3.status]).toEqual(["finished", "finished", "finished"]);
    expect(r1.output).toEqual({ message: "hello world" });
    expect(r2.output).toEqual({ approved: true, rounds: 1 });
    expect(r3.output).toEqual({ message: "hello again" });
    // Each workflow's reads see its own rows only, with its own fields.
    expect(await new FlowDb(b.api.db).listOutputs(r2.runId, b.api.outputs.output)).toEqual([
      expect.objectContaining({ runId: r2.runId, nodeId: "result", approved: true, rounds: 1 }),
    ]);
    expect((await new FlowDb(a.api.db).requireRun(r1.runId)).input).toEqual({ name: "world" });
    // A finished run of the first resumes (reads its state) after the second widened the tables.
    expect((await runWorkflow(hello(a.api), { runId: r1.runId, resume: true, input: { name: "world" } })).status).toBe("finished");
  });

  it("adds the columns a schema gained, and a run from before resumes with the new schema", async () => {
    const v1 = await backend.open({ input: z.object({ name: z.string() }), output: z.object({ message: z.string() }) });
    const first = await runWorkflow(hello(v1.api), { input: { name: "old" } });
    const v2Schemas = { input: z.object({ name: z.string(), greeting: z.string().optional() }), output: z.object({ message: z.string(), length: z.number().int() }) };
    const v2 = await backend.open(v2Schemas, { sameStoreAs: v1.location });
    const wf = v2.api.flow((ctx) => (
      <v2.api.Workflow name="hello">
        <v2.api.Task id="greet" output={v2.api.outputs.output}>
          {() => ({ message: `${ctx.input.greeting ?? "hello"} ${ctx.input.name}`, length: ctx.input.name.length })}
        </v2.api.Task>
      </v2.api.Workflow>
    ));
    const second = await runWorkflow(wf, { input: { name: "new", greeting: "hi" } });
    expect(second.output).toEqual({ message: "hi new", length: 3 });
    const rows = await new FlowDb(v2.api.db).listOutputs(first.runId, "output");
    expect(rows.map((r) => r.message)).toEqual(["hello old"]);
  });

  it("refuses at start-up a column whose stored type cannot hold the schema's values, naming table, column and fix", async () => {
    const a = await backend.open(reviewSchemas);
    await runWorkflow(review(a.api), { input: { repo: "." } });
    const clash = { input: z.object({ repo: z.string() }), review: z.object({ approved: z.string() }) };
    const error = await backend.open(clash, { sameStoreAs: a.location, factory: { readableName: "Triage" } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isFlowError(error, "SCHEMA_CONFLICT")).toBe(true);
    expect((error as { details: Record<string, unknown> }).details).toMatchObject({ table: "review", column: "approved", field: "approved" });
    expect((error as Error).message).toContain(`tablePrefix: "triage_"`);
    // The fix it names works: tables of its own beside the others.
    const own = await backend.open(clash, { sameStoreAs: a.location, factory: { tablePrefix: "triage_" } });
    const wf = own.api.flow(() => (
      <own.api.Workflow name="triage">
        <own.api.Task id="review" output={own.api.outputs.review}>{() => ({ approved: "yes" })}</own.api.Task>
      </own.api.Workflow>
    ));
    const run = await runWorkflow(wf, { input: { repo: "x" } });
    expect(run.status).toBe("finished");
    expect(await new FlowDb(own.api.db).listOutputs(run.runId, own.api.outputs.review)).toEqual([expect.objectContaining({ approved: "yes" })]);
  });

  it("drops NOT NULL from field columns of tables made before this rule, keeping their rows", async () => {
    const a = await backend.open({ marker: z.object({ x: z.number() }) });
    await rawSql(a.api as never, `CREATE TABLE "input" ("run_id" TEXT NOT NULL, "name" TEXT NOT NULL, PRIMARY KEY ("run_id"))`);
    await rawSql(a.api as never, `INSERT INTO "input" ("run_id", "name") VALUES ('legacy', 'kept')`);
    const h = await backend.open(helloSchemas, { sameStoreAs: a.location });
    const r = await backend.open(reviewSchemas, { sameStoreAs: a.location });
    expect((await runWorkflow(review(r.api), { input: { repo: "." } })).status).toBe("finished");
    expect((await runWorkflow(hello(h.api), { input: { name: "n" } })).status).toBe("finished");
    const rows = await new FlowDb(h.api.db).store.query(`SELECT run_id, name FROM "input" WHERE run_id = ?`, ["legacy"]);
    expect(rows).toEqual([{ run_id: "legacy", name: "kept" }]);
  });

  it("refuses to resume a run with a workflow of another name, changing nothing, unless forced", async () => {
    const a = await backend.open(helloSchemas);
    const { flow, Workflow, Task, outputs } = a.api;
    const alpha = (fail: boolean) =>
      flow((ctx) => (
        <Workflow name="alpha">
          <Task id="greet" output={outputs.output} retries={0}>
            {() => {
              if (fail) throw new Error("not yet");
              return { message: `alpha ${ctx.input.name}` };
            }}
          </Task>
        </Workflow>
      ));
    const beta = flow(() => (
      <Workflow name="beta">
        <Task id="other" output={outputs.output}>{() => ({ message: "beta" })}</Task>
      </Workflow>
    ));
    const failed = await runWorkflow(alpha(true), { input: { name: "x" }, runId: "r-alpha" });
    expect(failed.status).toBe("failed");
    const db = new FlowDb(a.api.db);
    const before = { run: await db.requireRun("r-alpha"), events: await db.listEvents("r-alpha") };
    const refused = await runWorkflow(beta, { runId: "r-alpha", resume: true, input: { name: "x" } }).then(() => undefined, (e: unknown) => e);
    expect(isFlowError(refused, "WORKFLOW_MISMATCH"), String(refused)).toBe(true);
    expect((refused as { details: Record<string, unknown> }).details).toMatchObject({ runWorkflow: "alpha", workflow: "beta" });
    expect(await db.requireRun("r-alpha")).toEqual(before.run);
    expect(await db.listEvents("r-alpha")).toEqual(before.events);
    // Its own workflow resumes it; force runs another under its id.
    expect((await runWorkflow(alpha(false), { runId: "r-alpha", resume: true, input: { name: "x" } })).output).toEqual({ message: "alpha x" });
    await runWorkflow(alpha(true), { input: { name: "y" }, runId: "r-forced" });
    const forced = await runWorkflow(beta, { runId: "r-forced", resume: true, force: true, input: { name: "y" } });
    expect(forced).toMatchObject({ status: "finished", output: { message: "beta" } });
    expect((await db.requireRun("r-forced")).workflowName).toBe("beta");
  });

  it("fails only the attempt whose row the table refuses (a user's CHECK constraint), retries it, and never strands the run", async () => {
    const a = await backend.open({ marker: z.object({ x: z.number() }) });
    await rawSql(
      a.api as never,
      `CREATE TABLE "step" ("run_id" TEXT NOT NULL, "node_id" TEXT NOT NULL, "iteration" INTEGER NOT NULL DEFAULT 0, "value" TEXT CHECK ("value" <> 'bad'), PRIMARY KEY ("run_id", "node_id", "iteration"))`,
    );
    const { api } = await backend.open({ step: z.object({ value: z.string() }) }, { sameStoreAs: a.location });
    const { flow, Workflow, Task, Parallel, outputs } = api;
    const calls: string[] = [];
    const wf = (retries: number) =>
      flow(() => (
        <Workflow name="checked">
          <Parallel>
            <Task id="t" output={outputs.step} retries={retries} retryPolicy={{ initialDelayMs: 0 }}>
              {(task: { attempt: number }) => (calls.push(`t${task.attempt}`), { value: task.attempt === 1 ? "bad" : "good" })}
            </Task>
            <Task id="other" output={outputs.step}>{() => (calls.push("other"), { value: "fine" })}</Task>
          </Parallel>
        </Workflow>
      ));
    const db = new FlowDb(api.db);
    const ok = await runWorkflow(wf(2), { input: {} });
    expect(ok.status).toBe("finished");
    expect(calls.filter((c) => c === "other")).toEqual(["other"]);
    const attempts = await db.listAttempts(ok.runId, "t");
    expect(attempts.map((x) => [x.attempt, x.state, x.error?.code ?? null])).toEqual([
      [1, "failed", "TASK_OUTPUT_WRITE_FAILED"],
      [2, "finished", null],
    ]);
    expect((await db.listOutputs(ok.runId, outputs.step)).map((r) => [r.nodeId, r.value]).sort()).toEqual([
      ["other", "fine"],
      ["t", "good"],
    ]);
    const failed = await runWorkflow(wf(0), { input: {} });
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({ code: "TASK_OUTPUT_WRITE_FAILED", details: { nodeId: "t", table: "step" } });
    expect((await db.requireRun(failed.runId)).ownerId).toBeNull();
    expect((await db.listAttempts(failed.runId)).filter((x) => x.state === "in-progress")).toEqual([]);
  });
});
