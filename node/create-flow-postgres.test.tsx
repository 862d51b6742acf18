import { existsSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlowPostgres, FlowDb, isFlowError, runWorkflow } from "durable-flow";
import { pgliteLockPath } from "./store/pglite.js";
import { freshPgliteDir } from "./testing/pglite-dirs.js";
import { freshPostgresSchema, TEST_POSTGRES_URL } from "./testing/postgres-test-db.js";

const schemas = {
  input: z.object({ n: z.number().int() }),
  square: z.object({ value: z.number().int(), ok: z.boolean(), tags: z.array(z.string()) }),
};

describe("createFlowPostgres", () => {
  it.each(["postgres", "pglite"] as const)("runs a workflow on %s and answers Drizzle queries over its tables", async (provider) => {
    const pgDb = provider === "postgres" ? await freshPostgresSchema() : undefined;
    const dataDir = provider === "pglite" ? freshPgliteDir() : undefined;
    const api = await createFlowPostgres(schemas, provider === "postgres" ? { connectionString: pgDb!.url } : { provider: "pglite", dataDir: dataDir! });
    try {
      const { flow, Workflow, Task, outputs, db, tables } = api;
      const wf = flow((ctx) => (
        <Workflow name="squares">
          <Task id="sq" output={outputs.square}>{() => ({ value: ctx.input.n * ctx.input.n, ok: true, tags: ["a", "b"] })}</Task>
        </Workflow>
      ));
      const result = await runWorkflow(wf, { input: { n: 7 } });
      expect(result.status).toBe("finished");
      const rows = await db.select().from(tables.square).where(eq(tables.square.runId!, result.runId));
      expect(rows).toMatchObject([{ runId: result.runId, nodeId: "sq", iteration: 0, value: 49, ok: true, tags: ["a", "b"] }]);
      expect((await new FlowDb(db).requireRun(result.runId)).status).toBe("finished");
    } finally {
      await api.close();
      await pgDb?.drop();
    }
    if (dataDir) expect(existsSync(pgliteLockPath(dataDir))).toBe(false);
  });

  it("lets workers that open one fresh database at the same moment all start", async () => {
    const pgDb = await freshPostgresSchema();
    const apis = await Promise.all(Array.from({ length: 4 }, () => createFlowPostgres(schemas, { connectionString: pgDb.url })));
    try {
      const { store } = new FlowDb(apis[0]!.db);
      expect(await store.query(`SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name = ?`, [pgDb.schema, "square"])).toEqual([{ n: 1 }]);
    } finally {
      await Promise.all(apis.map((a) => a.close()));
      await pgDb.drop();
    }
  });

  it("fails with STORE_OPEN_FAILED naming the server without its password", async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.password = "wrong-secret";
    const error = await createFlowPostgres(schemas, { connectionString: url.toString() }).then(() => null, (e: unknown) => e);
    expect(isFlowError(error, "STORE_OPEN_FAILED")).toBe(true);
    expect((error as Error).message).toContain(url.host);
    expect((error as Error).message).not.toContain("wrong-secret");
  });

  it("refuses the sqlite backend and a backend that contradicts the provider", async () => {
    const sqlite = await createFlowPostgres(schemas, { backend: "sqlite" }).then(() => null, (e: unknown) => e);
    expect(isFlowError(sqlite, "BACKEND_UNSUPPORTED")).toBe(true);
    const both = await createFlowPostgres(schemas, { backend: "postgres", provider: "pglite" }).then(() => null, (e: unknown) => e);
    expect(isFlowError(both, "INVALID_ARGUMENT")).toBe(true);
  });
});
