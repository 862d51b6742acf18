// Built-in tools called from a task's own code (issue #23, item 7): they work in the run's
// rootDir whether or not a context is passed, and are bound to the attempt (idempotency key,
// the `_flow_tool_calls` journal), so a rewind reports what they did as it does an agent's calls.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { afterEach, describe, expect, it } from "vitest";
import { bash, type CrossedEffect, defineTool, FlowDb, isFlowError, read, runWorkflow, timeTravel, type ToolContext, toolIdempotencyKey, write } from "durable-flow";
import { sqliteBackend } from "../testing/backends.js";
import { gitIn, tempRepo } from "../vcs/testing.js";

/** Names a test file so that, were it written in the process's folder, it is found and removed. */
const stray: string[] = [];
afterEach(() => {
  for (const name of stray.splice(0)) rmSync(join(process.cwd(), name), { force: true });
});

type Call = { node_id: string; attempt: number; seq: number; tool_name: string; idempotency_key: string };
const journal = (db: FlowDb, runId: string) =>
  db.store.query<Call>(`SELECT node_id, attempt, seq, tool_name, idempotency_key FROM _flow_tool_calls WHERE run_id = ? ORDER BY attempt, seq`, [runId]);
const tools = (list: CrossedEffect[]) => list.map((e) => e.toolName);

describe("tools called from a task's code", () => {
  it("work in the run's rootDir with or without a context, are journaled with the attempt, and block a rewind like an agent's calls", async () => {
    const dir = tempRepo();
    gitIn(dir, "config", "user.name", "Flow Test");
    gitIn(dir, "config", "user.email", "flow@test");
    const elsewhere = mkdtempSync(join(tmpdir(), "flow-elsewhere-"));
    const notes = `notes-${process.pid}-${Date.now()}.txt`;
    stray.push(notes, "more.txt");
    const seen: ToolContext[] = [];
    const probe = defineTool({ name: "probe", schema: z.object({}), execute: (_args, ctx) => void seen.push(ctx) });

    const { api } = await sqliteBackend.open({ step: z.object({ n: z.number() }), out: z.object({ readBack: z.string() }) }, { env: { recordSnapshots: true } });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="code-tools">
        <Sequence>
          <Task id="prep" output={outputs.step}>{() => ({ n: 0 })}</Task>
          <Task id="commit" output={outputs.out} retries={0}>
            {async () => {
              await probe.execute({});
              await write.execute({ path: notes, content: "from a code task\n" }); // no context
              await write.execute({ path: "more.txt", content: "with a context\n" }, { timeoutMs: 10_000 }); // a context without rootDir
              await write.execute({ path: "away.txt", content: "where I said\n" }, { rootDir: elsewhere }); // a context's rootDir wins
              // Stop before git runs anywhere but the test repository.
              if (!existsSync(join(dir, notes))) throw new Error(`write did not land in the run's rootDir ${dir}`);
              await bash.execute({ cmd: "git", args: ["add", notes, "more.txt"] });
              await bash.execute({ cmd: "git", args: ["commit", "-q", "-m", "committed by a code task"] }, {});
              return { readBack: await read.execute({ path: notes }) };
            }}
          </Task>
        </Sequence>
      </Workflow>
    ));
    const { runId, status, error } = await runWorkflow(wf, { input: {}, rootDir: dir });
    expect(error).toBeUndefined();
    expect(status).toBe("finished");

    // The run's root, not the process's folder.
    expect(readFileSync(join(dir, notes), "utf8")).toBe("from a code task\n");
    expect(readFileSync(join(dir, "more.txt"), "utf8")).toBe("with a context\n");
    expect(readFileSync(join(elsewhere, "away.txt"), "utf8")).toBe("where I said\n");
    expect(existsSync(join(process.cwd(), notes))).toBe(false);
    expect(gitIn(dir, "log", "-1", "--format=%s")).toBe("committed by a code task");
    expect(gitIn(dir, "status", "--porcelain")).toBe("");
    const db = new FlowDb(api.db);
    expect((await db.listOutputs(runId, outputs.out)).map((r) => r.readBack)).toEqual(["from a code task\n"]);

    // The context is the attempt's.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ runId, nodeId: "commit", iteration: 0, attempt: 1, seq: 1, rootDir: dir });
    expect(seen[0]!.signal).toBeInstanceOf(AbortSignal);

    // Journaled before they ran, with the attempt's keys (read-only calls are not).
    const calls = await journal(db, runId);
    expect(calls.map((c) => [c.node_id, Number(c.attempt), Number(c.seq), c.tool_name])).toEqual([
      ["commit", 1, 2, "write"],
      ["commit", 1, 3, "write"],
      ["commit", 1, 4, "write"],
      ["commit", 1, 5, "bash"],
      ["commit", 1, 6, "bash"],
    ]);
    const scope = { runId, nodeId: "commit", iteration: 0 };
    expect(calls.map((c) => c.idempotency_key)).toEqual([
      toolIdempotencyKey(scope, "write", 1),
      toolIdempotencyKey(scope, "write", 2),
      toolIdempotencyKey(scope, "write", 3),
      toolIdempotencyKey(scope, "bash", 1),
      toolIdempotencyKey(scope, "bash", 2),
    ]);

    // A rewind across the task reports the git commands as effects it cannot undo, the writes as undone by the restore.
    for (const nodeId of ["commit", "prep"]) {
      const blocked = await timeTravel(db, { runId, nodeId }).catch((e: unknown) => e);
      expect(isFlowError(blocked, "TIME_TRAVEL_SIDE_EFFECT_BLOCKED")).toBe(true);
      const report = (blocked as { details: { effectBoundary: { blocking: CrossedEffect[]; revertible: CrossedEffect[] } } }).details.effectBoundary;
      expect(tools(report.blocking)).toEqual(["bash", "bash"]);
      expect(report.blocking[1]).toMatchObject({ nodeId: "commit", attempt: 1, idempotencyKey: toolIdempotencyKey(scope, "bash", 2) });
      expect(report.revertible.map((e) => `${e.toolName}:${e.revertBy}`)).toEqual(["write:vcs", "write:vcs", "write:vcs"]);
    }
    expect((await db.getRun(runId))?.status).toBe("finished");
  });

  it("gives a retried code task the same keys and warns that a non-idempotent call already happened", async () => {
    const dir = tempRepo();
    stray.push("log.txt");
    const warnings: string[] = [];
    const { api } = await sqliteBackend.open({ step: z.object({ n: z.number() }) }, { env: { warn: (message) => void warnings.push(message) } });
    const { flow, Workflow, Task, outputs } = api;
    const wf = flow(() => (
      <Workflow name="code-retry">
        <Task id="flaky" output={outputs.step} retries={1}>
          {async (task) => {
            await write.execute({ path: "log.txt", content: `attempt ${task.attempt}\n` });
            if (task.attempt === 1) throw new Error("crashed after the write");
            return { n: task.attempt };
          }}
        </Task>
      </Workflow>
    ));
    const { runId, status } = await runWorkflow(wf, { input: {}, rootDir: dir });
    expect(status).toBe("finished");
    expect(readFileSync(join(dir, "log.txt"), "utf8")).toBe("attempt 2\n");
    const calls = await journal(new FlowDb(api.db), runId);
    expect(calls.map((c) => [Number(c.attempt), c.tool_name])).toEqual([
      [1, "write"],
      [2, "write"],
    ]);
    expect(calls[0]!.idempotency_key).toBe(calls[1]!.idempotency_key);
    expect(warnings.filter((w) => w.includes('Tool "write" was already called by an earlier attempt of task "flaky"'))).toHaveLength(1);
  });
});
