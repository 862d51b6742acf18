import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, createFlow, FlowError, runWorkflow } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { cliMessage, closestName } from "./cli-errors.js";
import type { CliIO } from "./command.js";
import { main } from "./main.js";

/** The CLI in `cwd` with captured output. */
function cli(cwd: string, opts: { env?: Record<string, string>; isTTY?: boolean } = {}) {
  return async (...argv: string[]) => {
    let stdout = "";
    let stderr = "";
    const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd, env: opts.env ?? {}, isTTY: opts.isTTY ?? false };
    const code = await main(argv, io);
    return { code, stdout, stderr };
  };
}

const oneLine = (text: string) => expect(text.split("\n").filter(Boolean)).toHaveLength(1);

describe("flow errors and exit codes", () => {
  it("reports usage mistakes in one line with a code and exit 2, before loading anything", async () => {
    const dir = tempDir("flow-cli-errors-");
    writeFileSync(join(dir, "a-file"), "");
    const flow = cli(dir);
    for (const [argv, expected] of [
      [["up", "wf.tsx", "--bogus"], "flow up: INVALID_ARGUMENT: unknown option --bogus. See `flow up --help`."],
      [["runs", "--limit", "abc"], 'flow runs: INVALID_ARGUMENT: --limit must be a whole number of at least 1, not "abc". See `flow runs --help`.'],
      [["runs", "--status", "bogus"], 'flow runs: INVALID_ARGUMENT: --status must be one of running, waiting-approval, waiting-event, waiting-timer, waiting-quota, paused, failed, cancelled, finished, continued, not "bogus". See `flow runs --help`.'],
      [["up", "wf.tsx", "--input-file", "missing.json"], `flow up: INVALID_ARGUMENT: cannot read --input-file ${join(dir, "missing.json")} (ENOENT). See \`flow up --help\`.`],
      [["up", "wf.tsx", "--log-dir", "a-file/logs"], `flow up: INVALID_ARGUMENT: --log-dir ${join(dir, "a-file/logs")} is not a directory Flow can write to (ENOTDIR); give another one, or --log-dir none. See \`flow up --help\`.`],
      [["signal", "go", "--run-id", "r1", "--payload", "{}", "--db", "x.db", "--workflow", "wf.tsx"], "flow signal: INVALID_ARGUMENT: give --db or --workflow, not both. See `flow signal --help`."],
      [["approvals", "--nope"], "flow approvals: INVALID_ARGUMENT: unknown option --nope. See `flow approvals --help`."],
    ] as const) {
      const r = await flow(...argv);
      expect(r, argv.join(" ")).toEqual({ code: 2, stdout: "", stderr: `${expected}\n` });
    }
  });

  it("suggests the command meant, prints the version, and fails unknown errors in one line unless --verbose", async () => {
    const flow = cli(tempDir("flow-cli-errors-"));
    expect(await flow("upp")).toEqual({ code: 2, stdout: "", stderr: 'flow: INVALID_ARGUMENT: unknown command "upp". Did you mean `flow up`? Run `flow --help` for the commands.\n' });
    expect((await flow("approvls")).stderr).toContain("Did you mean `flow approvals`?");
    expect((await flow("xyzzy")).stderr).not.toContain("Did you mean");
    const version = await flow("--version");
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\S*\n$/), stderr: "" });
    expect(closestName("wak", ["wake", "up"])).toBe("wake");

    const missing = await flow("up", "nowhere.tsx");
    expect(missing.code).toBe(1);
    oneLine(missing.stderr);
    expect(missing.stderr).toMatch(/^flow up: INVALID_ARGUMENT: Workflow file .*nowhere\.tsx does not exist\./);
    const verbose = await flow("up", "nowhere.tsx", "--verbose");
    expect(verbose.stderr).toMatch(/^flow up: INVALID_ARGUMENT: .*\nFlowError: .*\n {4}at /);
  });

  it("reports a workflow file that throws while loading, or exports no workflow, in one line", async () => {
    const dir = tempDir("flow-cli-errors-");
    writeFileSync(join(dir, "thrower.ts"), `throw new Error("boom at load");\nexport default 1;\n`);
    writeFileSync(join(dir, "empty.ts"), `export const x = 1;\n`);
    const flow = cli(dir);
    const thrown = await flow("up", "thrower.ts");
    expect(thrown).toEqual({ code: 1, stdout: "", stderr: `flow up: WORKFLOW_LOAD_FAILED: Loading ${join(dir, "thrower.ts")} threw: boom at load (run again with --verbose for the stack).\n` });
    expect((await flow("up", "thrower.ts", "--verbose")).stderr).toMatch(/\nCaused by: Error: boom at load\n {4}at /);
    const empty = await flow("up", "empty.ts");
    expect(empty.code).toBe(1);
    expect(empty.stderr).toBe(`flow up: INVALID_ARGUMENT: ${join(dir, "empty.ts")} must export default a workflow made with flow(...) (from createFlow), or export one named \`workflow\`.\n`);
  });

  it("names CLI flags where the library names options", async () => {
    const warnings: string[] = [];
    const api = createFlow({ step: z.object({ value: z.number() }) }, { dbPath: join(tempDir("flow-cli-errors-"), "flow.db"), env: { warn: (m) => void warnings.push(m) } });
    const wf = api.flow(() => (
      <api.Workflow name="w">
        <api.Task id="a" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    await runWorkflow(wf, { input: {}, runId: "r1" });
    const exists = await runWorkflow(wf, { input: {}, runId: "r1" }).catch((e: unknown) => e as FlowError);
    expect(exists).toMatchObject({ code: "RUN_EXISTS", message: expect.stringContaining("pass resume: true") });
    expect(cliMessage(exists as FlowError)).toBe("Run r1 already exists (status finished). Add --resume to continue it, or choose another --run-id.");
    const failing = api.flow(() => (
      <api.Workflow name="first">
        <api.Task id="a" output={api.outputs.step} retries={0}>{() => { throw new Error("no"); }}</api.Task>
      </api.Workflow>
    ));
    const other = api.flow(() => (
      <api.Workflow name="second">
        <api.Task id="a" output={api.outputs.step}>{{ value: 2 }}</api.Task>
      </api.Workflow>
    ));
    expect((await runWorkflow(failing, { input: {}, runId: "m1" })).status).toBe("failed");
    const mismatch = await runWorkflow(other, { runId: "m1", resume: true }).catch((e: unknown) => e as FlowError);
    expect(mismatch).toMatchObject({ code: "WORKFLOW_MISMATCH", message: expect.stringContaining("pass force: true") });
    expect(cliMessage(mismatch as FlowError)).toBe('Run m1 belongs to workflow "first", but this workflow is "second". Check --run-id and the file, or add --force to resume it with this file anyway.');
    const running = new FlowError("RUN_ALREADY_RUNNING", "Run r2 is running in another process (h:1:a, heartbeat 2 s ago). It becomes resumable when its heartbeat is older than 30 s; pass force: true to take it now.");
    expect(cliMessage(running)).toBe("Run r2 is running in another process (h:1:a, heartbeat 2 s ago). It becomes resumable when its heartbeat is older than 30 s. Add --force to take it over now.");
    const blocked = new FlowError("TIME_TRAVEL_SIDE_EFFECT_BLOCKED", "Going back to fix (iteration 0) in run r3 crosses 2 side effects that cannot be undone (bash); pass force: true to cross them anyway (the run is then marked for attention), or give compensations.");
    expect(cliMessage(blocked)).toBe("Going back to fix (iteration 0) in run r3 crosses 2 side effects that cannot be undone (bash). Nothing changed. Add --force to cross them (the run is then marked for attention).");
    expect(cliMessage(new FlowError("TASK_FAILED", "line one\nline two"))).toBe("line one line two");
  });
});

describe("deliveries refuse what nothing can take", () => {
  it("refuses an unknown run, a payload the Signal rejects and a finished run; a repeat stays a no-op", async () => {
    const dir = tempDir("flow-cli-deliver-");
    const api = createFlow({ decision: approvalDecisionSchema, step: z.object({ value: z.number() }) }, { dbPath: join(dir, "flow.db") });
    const wf = api.flow(() => (
      <api.Workflow name="deliveries">
        <api.Signal id="go" schema={z.object({ ok: z.boolean(), n: z.number().int().positive() })}>
          {(data) => <api.Task id="after" output={api.outputs.step}>{{ value: data.n }}</api.Task>}
        </api.Signal>
        <api.Approval id="ship" output={api.outputs.decision} request={{ title: "Ship?" }} />
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {}, runId: "d1" });
    expect(parked.status).toMatch(/^waiting-/);
    const flow = cli(dir);
    const db = ["--db", "flow.db"];

    const unknown = await flow("signal", "go", "--run-id", "nope", "--payload", '{"ok":true,"n":1}', ...db);
    expect(unknown).toEqual({ code: 1, stdout: "", stderr: "flow signal: RUN_NOT_FOUND: Run nope does not exist in this store. Check the run id (and that this is the store the workflow uses).\n" });
    expect((await flow("approve", "nope", "ship", ...db)).stderr).toMatch(/^flow approve: RUN_NOT_FOUND: Run nope does not exist/);
    const invalid = await flow("signal", "go", "--run-id", "d1", "--payload", '{"ok":true,"n":-2}', ...db);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^flow signal: SIGNAL_PAYLOAD_INVALID: The payload of signal "go" does not match the schema of "go" in run d1: n: Too small: expected number to be >0\. Nothing was delivered/);
    expect(await flow("signal", "go", "--run-id", "d1", "--payload", '{"ok":true,"n":3}', "--delivery-id", "x1", ...db)).toMatchObject({ code: 0 });
    expect((await runWorkflow(wf, { runId: "d1", resume: true })).status).toBe("waiting-approval");
    expect((await flow("approve", "d1", "ship", ...db)).code).toBe(0);
    expect((await runWorkflow(wf, { runId: "d1", resume: true })).status).toBe("finished");

    const late = await flow("signal", "go", "--run-id", "d1", "--payload", '{"ok":true,"n":4}', ...db);
    expect(late).toEqual({ code: 1, stdout: "", stderr: "flow signal: RUN_NOT_WAITING: Run d1 is finished; it waits for nothing, so nothing was delivered.\n" });
    expect((await flow("signal", "go", "--run-id", "d1", "--payload", '{"ok":true,"n":3}', "--delivery-id", "x1", ...db)).stdout).toContain("was made before; nothing changed");
    expect((await flow("approve", "d1", "ship", ...db)).stdout).toContain("already decided this way");

    // NO_COLOR is honoured on a terminal; without it the same lines are colored.
    expect((await cli(dir, { isTTY: true, env: { NO_COLOR: "1" } })("runs", "d1", ...db)).stdout).not.toContain("\u001b[");
    expect((await cli(dir, { isTTY: true })("runs", "d1", ...db)).stdout).toContain("\u001b[32m✓\u001b[0m after");
  });
});
