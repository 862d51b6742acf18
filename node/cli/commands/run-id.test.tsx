import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { runWorkflow } from "durable-flow";
import { testBackends } from "../../testing/backends.js";
import { tempDir } from "../../testing/temp-dir.js";
import { runCli } from "../testing.js";


const FULL = "654f2834-9618-462d-8845-de0b5692f9a0";
const SIBLING = "654f9999-0000-4000-8000-000000000001";
const CRON_A = "cron-nightly-1795911480000";
const CRON_B = "cron-nightly-1795911540000";

describe("run ids shortened as lists show them", () => {
  it("name the one run they fit in every command that takes a run id; several fits is a usage error that lists them", async () => {
    const cwd = tempDir("flow-run-id-");
    const dbPath = join(cwd, "flow.db");
    // A workflow file, as runs record it: `cancel` loads the run's workflow from there.
    vi.stubEnv("FLOW_TEST_DB", dbPath);
    onTestFinished(() => void vi.unstubAllEnvs());
    const { default: wf } = await import("../fixtures/approve-workflow.js");
    for (const runId of [FULL, SIBLING, CRON_A, CRON_B, "a_b%c-run", "axbyc-run"]) expect((await runWorkflow(wf, { input: { what: "v2" }, runId })).status).toBe("waiting-approval");
    const cli = async (...argv: string[]) => {
      const { code, stdout, stderr } = await runCli([...argv, "--db", dbPath], { cwd });
      return { code, text: stdout + stderr };
    };

    // The app's and the lists' short form of a generated id.
    const shown = await cli("runs", "654f2834");
    expect(shown.code).toBe(0);
    expect(shown.text).toContain(`Run ${FULL}`);
    // The app's start…end of a long id, with the ellipsis or three dots.
    expect((await cli("runs", "cron-night…480000", "--json")).text).toContain(`"runId": "${CRON_A}"`);
    expect((await cli("runs", "cron-night...540000", "--json")).text).toContain(`"runId": "${CRON_B}"`);
    // LIKE's wildcards in an id are themselves: "a_b%" fits a_b%c-run only, not axbyc-run.
    expect((await cli("runs", "a_b%", "--json")).text).toContain('"runId": "a_b%c-run"');

    const ambiguous = await cli("runs", "654f");
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.text).toContain('run id "654f" fits 2 runs');
    expect(ambiguous.text).toContain(FULL);
    expect(ambiguous.text).toContain(SIBLING);
    // Too short to stand for a run: not found, as before.
    const short = await cli("runs", "654");
    expect(short.code).toBe(1);
    expect(short.text).toContain("RUN_NOT_FOUND");

    // Acting on a run: a wait command (its store), and one that loads the run's workflow.
    const approved = await cli("approve", "654f2834", "ok");
    expect(approved.code).toBe(0);
    expect(approved.text).toContain(`of run ${FULL}`);
    const cancelled = await cli("cancel", "654f9999");
    expect(cancelled.code).toBe(0);
    expect(cancelled.text).toContain(`Run ${SIBLING} is cancelled.`);
    const timeline = await cli("timeline", "cron-night…540000");
    expect(timeline.code).toBe(0);
    expect(timeline.text).toContain(`Run ${CRON_B}`);
  }, 60_000);

});

describe.each(testBackends)("run ids shortened, on $name", (backend) => {
  it("fit exactly: case counts (SQLite's LIKE ignores it), and LIKE's wildcards in an id are themselves", async () => {
    const { api, location, close } = await backend.open({ step: z.object({ value: z.number() }) });
    const wf = api.flow(() => (
      <api.Workflow name="short-ids">
        <api.Task id="a" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    for (const runId of ["Run_1%-x", "run21%-x"]) expect((await runWorkflow(wf, { input: {}, runId })).status).toBe("finished");
    await close();
    const env: Record<string, string> = { sqlite: { FLOW_DB_PATH: location.location }, pglite: { FLOW_BACKEND: "pglite", FLOW_PGLITE_DIR: location.location }, postgres: { FLOW_BACKEND: "postgres", FLOW_DATABASE_URL: location.location } }[backend.name];
    const cwd = tempDir("flow-run-id-pg-");
    const one = await runCli(["runs", "Run_1", "--json"], { cwd, env });
    expect(one.code).toBe(0);
    expect(one.stdout).toContain('"runId": "Run_1%-x"');
    const none = await runCli(["runs", "run_1"], { cwd, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("RUN_NOT_FOUND");
  }, 60_000);
});
