import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it, vi } from "vitest";
import { createFlow, FlowDb, isFlowError, openFlowBackend, runWorkflow } from "durable-flow";
import { newMarker, writeMarker } from "./config/migration-marker.js";
import { tempDir } from "./testing/backends.js";
import { freshPgliteDir } from "./testing/pglite-dirs.js";
import { freshPostgresSchema } from "./testing/postgres-test-db.js";

const schemas = {
  input: z.object({ who: z.string() }),
  output: z.object({ text: z.string() }),
};

async function greet(api: Awaited<ReturnType<typeof openFlowBackend<typeof schemas>>>, who: string) {
  const { flow, Workflow, Task, outputs } = api;
  const wf = flow((ctx) => (
    <Workflow name="greet">
      <Task id="hello" output={outputs.output}>{() => ({ text: `hello ${ctx.input.who}` })}</Task>
    </Workflow>
  ));
  return runWorkflow(wf, { input: { who } });
}

describe("openFlowBackend", () => {
  it("opens SQLite at .flow/flow.db under cwd when nothing chooses a backend, without close", async () => {
    const cwd = tempDir();
    const api = await openFlowBackend(schemas, { cwd, env: {} });
    expect(api.backend).toBe("sqlite");
    expect(api.close).toBeUndefined();
    expect((await greet(api, "sqlite")).output).toEqual({ text: "hello sqlite" });
    expect(existsSync(join(cwd, ".flow/flow.db"))).toBe(true);
  });

  it("opens PGlite from FLOW_PGLITE_DIR, and reopens it without schemas to read its runs", async () => {
    const cwd = tempDir();
    const dataDir = freshPgliteDir(cwd);
    const env = { FLOW_PGLITE_DIR: dataDir };
    const api = await openFlowBackend(schemas, { cwd, env });
    expect(api.backend).toBe("pglite");
    const result = await greet(api, "pglite");
    await api.close!();
    const reader = await openFlowBackend(undefined, { cwd, env });
    try {
      const runs = await new FlowDb(reader.db).listRuns();
      expect(runs.map((r) => [r.runId, r.status, r.output])).toEqual([[result.runId, "finished", { text: "hello pglite" }]]);
    } finally {
      await reader.close!();
    }
  });

  it("opens PostgreSQL from flow.config.json with the password taken from the environment", async () => {
    const cwd = tempDir();
    const db = await freshPostgresSchema();
    const url = new URL(db.url);
    const password = url.password;
    url.password = "${APP_DB_PASSWORD}";
    writeFileSync(join(cwd, "flow.config.json"), JSON.stringify({ backend: "postgres", connectionString: decodeURI(url.toString()) }));
    const api = await openFlowBackend(schemas, { cwd, env: { APP_DB_PASSWORD: password } });
    try {
      expect(api.backend).toBe("postgres");
      expect((await greet(api, "postgres")).status).toBe("finished");
      expect(await new FlowDb(api.db).store.query(`SELECT current_schema() AS s`)).toEqual([{ s: db.schema }]);
    } finally {
      await api.close!();
      await db.drop();
    }
  });

  it("warns when SQLite is forced on a store that was migrated away", async () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".flow"));
    const dbPath = join(cwd, ".flow/flow.db");
    writeMarker(`${dbPath}.migrated.json`, newMarker(dbPath, { backend: "pglite", dataDir: join(cwd, ".flow/pglite") }, { schemaVersion: "0001", runCount: 0, sqliteRemoved: true }));
    const warnings: string[] = [];
    const api = await openFlowBackend(schemas, { cwd, env: {}, backend: "sqlite", runtime: { warn: (m) => warnings.push(m) } });
    expect(api.backend).toBe("sqlite");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("migrated to pglite");
  });

  it("warns when createFlow opens a store that was migrated away, where a new SQLite file would start empty", () => {
    const cwd = tempDir();
    mkdirSync(join(cwd, ".flow"));
    const dbPath = join(cwd, ".flow/flow.db");
    const warnings: string[] = [];
    createFlow({}, { dbPath, env: { warn: (m) => warnings.push(m) } }).db.$client.close();
    expect(warnings).toEqual([]);
    writeMarker(`${dbPath}.migrated.json`, newMarker(dbPath, { backend: "postgres", url: "postgres://app:***@db/flow" }, { schemaVersion: "0001", runCount: 3, sqliteRemoved: true }));
    createFlow({}, { dbPath, env: { warn: (m) => warnings.push(m) } }).db.$client.close();
    expect(warnings).toEqual([expect.stringMatching(/^The SQLite store .*flow\.db was migrated to postgres .*Open that one with openFlowBackend/)]);
  });

  it("warns when createFlow opens SQLite while the project's settings name another backend, which flow runs reads", () => {
    const cwd = tempDir();
    const dbPath = join(cwd, "flow.db");
    const warnings: string[] = [];
    const open = (settings: Record<string, string>, backend?: "sqlite") => {
      for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
      try {
        createFlow({}, { dbPath, ...(backend ? { backend } : {}), env: { warn: (m) => warnings.push(m) } }).db.$client.close();
      } finally {
        vi.unstubAllEnvs();
      }
    };
    open({});
    expect(warnings).toEqual([]);
    open({ FLOW_BACKEND: "pglite" });
    expect(warnings).toEqual([expect.stringMatching(/^createFlow opens the SQLite store .*flow\.db, but the environment \(FLOW_BACKEND, .*\) names the pglite backend: flow runs \(and the other flow commands given no --workflow or --db\) and openFlowBackend open that store instead/)]);
    const config = join(cwd, "flow.config.json");
    writeFileSync(config, JSON.stringify({ backend: "postgres", connectionString: "postgres://localhost/flow" }));
    open({ FLOW_CONFIG: config });
    expect(warnings[1]).toContain(`but ${config} names the postgres backend`);
    // A setting that cannot be opened is said with why.
    open({ FLOW_BACKEND: "postgres" });
    expect(warnings[2]).toMatch(/names another one, which cannot be opened: .*needs a connection/);
    // SQLite asked for in code (as openFlowBackend does once it resolved the settings): nothing to say.
    open({ FLOW_BACKEND: "pglite" }, "sqlite");
    expect(warnings).toHaveLength(3);
  });

  it("fails with BACKEND_CONFIG_INVALID before opening anything when the config is wrong", async () => {
    const cwd = tempDir();
    const error = await openFlowBackend(schemas, { cwd, env: { FLOW_BACKEND: "postgres" } }).then(() => null, (e: unknown) => e);
    expect(isFlowError(error, "BACKEND_CONFIG_INVALID")).toBe(true);
    expect((error as Error).message).toContain("FLOW_DATABASE_URL");
    expect(existsSync(join(cwd, ".flow"))).toBe(false);
  });
});
