import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createFlow, FlowDb, openFlowBackend, runWorkflow } from "durable-flow";
import { tempDir } from "../../testing/backends.js";
import { freshPostgresSchema } from "../../testing/postgres-test-db.js";
import { runCli } from "../testing.js";

const BIN = fileURLToPath(new URL("../bin.mjs", import.meta.url));
const schemas = { output: z.object({ text: z.string() }) };

/** A project directory whose SQLite store holds `runs` finished runs. */
async function project(runs: number): Promise<string> {
  const cwd = tempDir();
  const { flow, Workflow, Task, outputs } = createFlow(schemas, { dbPath: join(cwd, ".flow/flow.db") });
  const wf = flow(() => (
    <Workflow name="cli">
      <Task id="t" output={outputs.output}>{{ text: "hi" }}</Task>
    </Workflow>
  ));
  for (let i = 0; i < runs; i++) await runWorkflow(wf, { runId: `run-${i}`, input: {} });
  return cwd;
}

const flow = (cwd: string, ...argv: string[]) => runCli(["migrate", ...argv], { cwd });

describe("flow migrate", () => {
  it("moves the project's store into PGlite, printing a line per table and where the store went", async () => {
    const cwd = await project(2);
    const { code, stdout, stderr } = await flow(cwd);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const lines = stdout.trim().split("\n");
    expect(lines.some((l) => /^\[\s*\d+\/\d+\] _flow_runs: copying 2 rows$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[\s*\d+\/\d+\] _flow_runs: 2 rows in \d+ ms$/.test(l))).toBe(true);
    expect(stdout).toMatch(/Copied \d+ rows of \d+ tables \(2 runs\) in \d+ ms/);
    expect(stdout).toContain(`to PGlite data dir ${join(cwd, ".flow/pglite")}`);
    expect(stdout).toContain("The SQLite files were removed.");
    expect(stdout).toContain("Workflow files that call createFlow still open SQLite (and warn): move them to openFlowBackend.");
    expect(existsSync(join(cwd, ".flow/flow.db"))).toBe(false);
    const api = await openFlowBackend(schemas, { cwd, env: {} });
    try {
      expect((await new FlowDb(api.db).listRuns()).map((r) => r.runId).sort()).toEqual(["run-0", "run-1"]);
    } finally {
      await api.close!();
    }
  });

  it("runs as the flow executable into PostgreSQL and prints the result as JSON", async () => {
    const cwd = await project(1);
    const pg = await freshPostgresSchema();
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, "migrate", "--to", "postgres", "--url", pg.url, "--keep-sqlite", "--batch-size", "1", "--json"], { cwd });
      const result = JSON.parse(stdout);
      expect(result).toMatchObject({ backend: "postgres", runCount: 1, sqliteRemoved: false, target: { backend: "postgres" } });
      expect(stderr).toContain("_flow_runs: 1 rows in");
      expect(existsSync(join(cwd, ".flow/flow.db"))).toBe(true);
    } finally {
      await pg.drop();
    }
  });

  it("answers usage errors with exit code 2 and a missing store with 1", async () => {
    const cwd = tempDir();
    const bad = await flow(cwd, "--to", "mysql");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--to must be pglite or postgres");
    expect((await flow(cwd, "extra")).code).toBe(2);
    const missing = await flow(cwd);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("STORE_NOT_FOUND");
  });
});
