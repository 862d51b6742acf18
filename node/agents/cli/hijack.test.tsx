/**
 * Hijack (docs/agents.md, "Hijack"): a person takes over a CLI agent's session with the CLI's
 * native resume command (a fake `claude` on PATH here, which records how it was started), and
 * the task then continues that session for its row.
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type AgentLike, FlowDb, runWorkflow } from "durable-flow";
import type { CliIO } from "../../cli/command.js";
import { main as cliMain } from "../../cli/main.js";
import { sqliteBackend, tempDir, testBackends } from "../../testing/backends.js";
import { Gateway } from "../../server/gateway.js";
import { hijackNode, nativeHijackCommand, planHijack } from "./hijack.js";

const schemas = { patch: z.object({ summary: z.string() }) };

/** A CLI agent stand-in: reports engine claude-code and a session, and records what it resumes. */
function coder(resumed: Array<string | undefined>): AgentLike {
  return {
    id: "coder",
    capabilities: { engine: "claude-code" } as AgentLike["capabilities"],
    generate: async (args) => {
      resumed.push(args?.resumeSession);
      return { text: JSON.stringify({ summary: args?.resumeSession ? "finished what the person started" : "first try" }), sessionId: "sess-42" };
    },
  };
}

/**
 * Runs `flow <argv>` in `cwd` with a fake `claude` first on PATH that logs its arguments and the
 * directory it was started in: the exit code, what the command printed, and that log line.
 */
async function flowWithFakeClaude(cwd: string, argv: string[]): Promise<{ code: number; out: string; claude: string }> {
  const bin = tempDir();
  writeFileSync(join(bin, "claude"), `#!/bin/sh\necho "$@ cwd=$(pwd)" > ${join(bin, "claude.log")}\n`);
  chmodSync(join(bin, "claude"), 0o755);
  let out = "";
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (out += t), cwd, env: {}, isTTY: false };
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    const code = await cliMain(argv, io);
    return { code, out, claude: readFileSync(join(bin, "claude.log"), "utf8").trim() };
  } finally {
    process.env.PATH = path;
  }
}

describe("nativeHijackCommand", () => {
  it("builds each engine's resume command and refuses engines without one", () => {
    expect(nativeHijackCommand("codex", "th_1", "/repo")).toEqual({ command: "codex", args: ["resume", "th_1", "-C", "/repo"] });
    expect(nativeHijackCommand("amp", "T-9", "/repo")).toEqual({ command: "amp", args: ["threads", "continue", "T-9"] });
    expect(() => nativeHijackCommand("opencode", "s", "/repo")).toThrow(expect.objectContaining({ code: "HIJACK_UNSUPPORTED", message: expect.stringContaining("opencode CLI has no native session resume") }));
  });
});

describe.each(testBackends)("hijack on $name", (backend) => {
  it("reopens the session in the CLI, then the task continues it for its row (onHijackExit complete)", async () => {
    const { api } = await backend.open(schemas);
    const resumed: Array<string | undefined> = [];
    const wf = api.flow(() => (
      <api.Workflow name="hijack">
        <api.Task id="fix" output={api.outputs.patch} agent={coder(resumed)}>Fix the flaky test.</api.Task>
        <api.Task id="ship" output={api.outputs.patch}>{{ summary: "shipped" }}</api.Task>
      </api.Workflow>
    ));
    // The agent's answer was not good enough: a person takes over its session.
    const first = await runWorkflow(wf, { input: {} });
    expect(first.status).toBe("finished");

    const dir = tempDir();
    const log = join(dir, "claude.log");
    writeFileSync(join(dir, "claude"), `#!/bin/sh\necho "$@ cwd=$(pwd) nested=\${CLAUDECODE:-unset}" >> ${log}\n`);
    chmodSync(join(dir, "claude"), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${dir}:${path}`;
    process.env.CLAUDECODE = "1";
    try {
      const plan = await planHijack(api, { runId: first.runId, nodeId: "fix", cwd: dir });
      expect(plan).toMatchObject({ command: "claude", args: ["--resume", "sess-42"], engine: "claude-code", sessionId: "sess-42", onHijackExit: "complete" });
      const done = await hijackNode(api, { runId: first.runId, nodeId: "fix", cwd: dir }, { stdio: "ignore" });
      expect(done).toMatchObject({ exitCode: 0, resume: true });
      expect(done.resetNodes).toEqual(expect.arrayContaining(["fix", "ship"]));
    } finally {
      process.env.PATH = path;
      delete process.env.CLAUDECODE;
    }
    expect(readFileSync(log, "utf8").trim()).toBe(`--resume sess-42 cwd=${dir} nested=unset`);
    const r = await runWorkflow(wf, { runId: first.runId, resume: true });
    expect(r.status).toBe("finished");
    expect(resumed).toEqual([undefined, "sess-42"]);
    expect((await new FlowDb(api.db).listOutputs(first.runId, "patch")).find((p) => p.nodeId === "fix")).toMatchObject({ summary: "finished what the person started" });
  });

  it("refuses a task that has no agent session, or says hijack={false}", async () => {
    const { api } = await backend.open(schemas);
    const wf = api.flow(() => (
      <api.Workflow name="no-hijack">
        <api.Task id="plain" output={api.outputs.patch}>{{ summary: "no agent" }}</api.Task>
        <api.Task id="locked" output={api.outputs.patch} agent={coder([])} hijack={false}>Do it.</api.Task>
      </api.Workflow>
    ));
    const r = await runWorkflow(wf, { input: {} });
    await expect(planHijack(api, { runId: r.runId, nodeId: "plain" })).rejects.toMatchObject({ code: "HIJACK_UNSUPPORTED", message: expect.stringContaining("no agent session") });
    await expect(planHijack(api, { runId: r.runId, nodeId: "locked" })).rejects.toMatchObject({ code: "HIJACK_UNSUPPORTED", message: expect.stringContaining("hijack={false}") });
  });
});

describe("flow hijack", () => {
  it("opens the session in the terminal and hands the task back, with onHijackExit reopen", async () => {
    const { api, location } = await sqliteBackend.open(schemas);
    const resumed: Array<string | undefined> = [];
    const wf = api.flow(() => (
      <api.Workflow name="cli-hijack">
        <api.Task id="fix" output={api.outputs.patch} agent={coder(resumed)} onHijackExit="reopen">Fix it.</api.Task>
      </api.Workflow>
    ));
    const runDir = tempDir();
    const r = await runWorkflow(wf, { input: {}, rootDir: runDir });
    // Typed in another directory than the run's: the session still opens where it ran.
    const hijacked = await flowWithFakeClaude(tempDir(), ["hijack", r.runId, "fix", "--db", location.location]);
    expect(hijacked.code).toBe(0);
    expect(hijacked.claude).toBe(`--resume sess-42 cwd=${runDir}`);
    expect(hijacked.out).toContain("Task fix is pending again (onHijackExit reopen)");
    expect((await new FlowDb(api.db).listNodes(r.runId)).find((n) => n.nodeId === "fix")?.state).toBe("pending");
  });
});

describe("the Gateway's hijackRun", () => {
  it("answers the command that reopens a node's session, and the terminal command that hands it back", async () => {
    const { api, location } = await sqliteBackend.open(schemas);
    const wf = api.flow(() => (
      <api.Workflow name="hijack">
        <api.Task id="fix" output={api.outputs.patch} agent={coder([])}>Fix the flaky test.</api.Task>
      </api.Workflow>
    ));
    // The run worked in one directory; the Gateway's default is another: the session is reopened where it ran.
    const runDir = tempDir();
    const run = await runWorkflow(wf, { input: {}, rootDir: runDir });
    const workspace = tempDir();
    const gateway = new Gateway({ workspaceRoot: workspace }).register("hijack", wf);
    const server = await gateway.listen({ port: 0 });
    try {
      const { port } = server.address() as AddressInfo;
      const call = async (params: unknown) => (await (await fetch(`http://127.0.0.1:${port}/v1/rpc/hijackRun`, { method: "POST", body: JSON.stringify(params) })).json()) as { ok: boolean; result?: unknown; error?: { code: string } };
      expect(await call({ runId: run.runId, nodeId: "fix" })).toEqual({
        ok: true,
        result: expect.objectContaining({
          command: "claude",
          args: ["--resume", "sess-42"],
          cwd: runDir,
          engine: "claude-code",
          sessionId: "sess-42",
          status: "finished",
          terminal: `flow hijack ${run.runId} fix`,
        }),
      });
      expect(await call({ runId: run.runId, nodeId: "nope" })).toMatchObject({ ok: false, error: { code: "HIJACK_UNSUPPORTED" } });

      // The terminal command it answers, typed as given (in the Gateway's directory): the session
      // opens where it ran, and the task is handed back.
      const answer = (await call({ runId: run.runId, nodeId: "fix" })).result as { terminal: string };
      const typed = await flowWithFakeClaude(workspace, [...answer.terminal.split(" ").slice(1), "--db", location.location]);
      expect(typed.code, typed.out).toBe(0);
      expect(typed.claude).toBe(`--resume sess-42 cwd=${runDir}`);
      expect(typed.out).toContain("continues your session when the run resumes");
    } finally {
      await gateway.close();
    }
  });
});

describe("where a hijacked session opens", () => {
  it("in the directory the agent reported its session ran in, else the run's; cwd overrides", async () => {
    const { api } = await sqliteBackend.open(schemas);
    const sessionDir = tempDir();
    const reporting: AgentLike = { ...coder([]), generate: async () => ({ text: JSON.stringify({ summary: "s" }), sessionId: "sess-7", sessionDir }) };
    const wf = api.flow(() => (
      <api.Workflow name="hijack-dirs">
        <api.Task id="fix" output={api.outputs.patch} agent={reporting}>Fix it.</api.Task>
        <api.Task id="old" output={api.outputs.patch} agent={coder([])}>An agent that reports no directory.</api.Task>
      </api.Workflow>
    ));
    const runDir = tempDir();
    const run = await runWorkflow(wf, { input: {}, rootDir: runDir });
    expect(run.status).toBe("finished");
    expect((await planHijack(api, { runId: run.runId, nodeId: "fix" })).cwd).toBe(sessionDir);
    expect((await planHijack(api, { runId: run.runId, nodeId: "old" })).cwd).toBe(runDir);
    const elsewhere = tempDir();
    expect((await planHijack(api, { runId: run.runId, nodeId: "fix", cwd: elsewhere })).cwd).toBe(elsewhere);
  });
});
