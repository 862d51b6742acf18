import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { type AgentLike, type CrossedEffect, defineTool, edit, FlowDb, getRunAttention, isFlowError, listTimeTravels, runWorkflow, timeTravel, write } from "durable-flow";
import type { ToolContextFactory } from "../../core/tools/tool-calls.js";
import { sqliteBackend } from "../testing/backends.js";
import { gitIn, tempRepo } from "../vcs/testing.js";

const sent: string[] = [];
const sendEmail = defineTool({ name: "sendEmail", description: "send", schema: z.object({ to: z.string() }), sideEffect: true, execute: async ({ to }, ctx) => void sent.push(`${to}:${ctx.idempotencyKey}`) });
const charge = defineTool({ name: "charge", description: "charge", schema: z.object({ cents: z.number() }), sideEffect: true, execute: async (_args, ctx) => `charged ${ctx.idempotencyKey}` });
const setFlag = defineTool({ name: "setFlag", description: "flag", schema: z.object({ on: z.boolean() }), sideEffect: true, idempotent: true, execute: async () => "ok" });

/** An agent that makes one call of each tool through the attempt's tool-call factory, then answers. */
const agent: AgentLike = {
  id: "scripted",
  async generate(options) {
    const calls = (options as { toolCalls: ToolContextFactory }).toolCalls;
    await calls.callTool(write, { path: "out.txt", content: "written by the agent\n" });
    await calls.callTool(sendEmail, { to: "ops@example.com" });
    await calls.callTool(charge, { cents: 500 });
    await calls.callTool(setFlag, { on: true });
    return { output: { n: 1 } };
  },
};

const tools = (list: CrossedEffect[]) => list.map((e) => e.toolName);

describe("time travel across side effects", () => {
  it("blocks on effects it cannot undo, reverts what it can, and records a forced crossing", async () => {
    const dir = tempRepo();
    const { api } = await sqliteBackend.open({ step: z.object({ n: z.number() }) }, { env: { recordSnapshots: true } });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="effects">
        <Sequence>
          <Task id="prep" output={outputs.step}>{() => ({ n: 0 })}</Task>
          <Task id="act" output={outputs.step} agent={agent} retries={0}>do it</Task>
        </Sequence>
      </Workflow>
    ));
    const { runId, status } = await runWorkflow(wf, { input: {}, rootDir: dir });
    expect(status).toBe("finished");
    expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("written by the agent\n");
    const db = new FlowDb(api.db);

    // Blocked: sendEmail and charge are not idempotent and nothing undoes them; nothing changes.
    const blocked = await timeTravel(db, { runId, nodeId: "act" }).catch((e: unknown) => e);
    expect(isFlowError(blocked, "TIME_TRAVEL_SIDE_EFFECT_BLOCKED")).toBe(true);
    const report = (blocked as { details: { effectBoundary: { blocking: CrossedEffect[]; revertible: CrossedEffect[]; warnings: CrossedEffect[] } } }).details.effectBoundary;
    expect(tools(report.blocking)).toEqual(["sendEmail", "charge"]);
    expect(report.revertible.map((e) => `${e.toolName}:${e.revertBy}`)).toEqual(["write:vcs"]);
    expect(tools(report.warnings)).toEqual(["setFlag"]);
    expect(report.blocking[0]).toMatchObject({ runId, nodeId: "act", iteration: 0, attempt: 1, idempotent: false, idempotencyKey: sent[0]!.split(":").slice(1).join(":") });
    expect((await db.getRun(runId))?.status).toBe("finished");
    expect(existsSync(join(dir, "out.txt"))).toBe(true);

    // A compensation makes charge revertible; noRevert skips every revert, so those block too.
    const refunds: CrossedEffect[] = [];
    const compensations = { charge: (e: CrossedEffect) => void refunds.push(e) };
    const skipped = await timeTravel(db, { runId, nodeId: "act", compensations, noRevert: true }).catch((e: unknown) => e);
    expect(tools((skipped as { details: { effectBoundary: { blocking: CrossedEffect[] } } }).details.effectBoundary.blocking)).toEqual(["write", "sendEmail", "charge"]);
    expect(refunds).toEqual([]);

    // Forced: the email is crossed (recorded, run marked for attention), charge refunded, out.txt gone.
    const forced = await timeTravel(db, { runId, nodeId: "act", compensations, force: true });
    expect(forced.success).toBe(true);
    expect(tools(forced.effectBoundary.blocking)).toEqual(["sendEmail"]);
    expect(tools(forced.effectBoundary.revertible)).toEqual(["write", "charge"]);
    expect(refunds.map((e) => e.toolName)).toEqual(["charge"]);
    expect(existsSync(join(dir, "out.txt"))).toBe(false);
    const attention = await getRunAttention(db, runId);
    expect(attention).toMatchObject({ reason: "time-travel-forced" });
    expect(tools(attention!.effects)).toEqual(["sendEmail"]);
    expect((await listTimeTravels(db, runId)).map((t) => [t.kind, t.status, t.forcedEffects])).toEqual([["rewind", "done", 1]]);

    // Effects already forced or reverted are not crossed again.
    const again = await timeTravel(db, { runId, nodeId: "act", compensations });
    expect(again.success).toBe(true);
    expect(again.effectBoundary.blocking).toEqual([]);
    expect(refunds.length).toBe(1);
  });

  it("warns a retry after a rewind only of the effects still in place, not of an edit the rewind undid", async () => {
    const dir = tempRepo();
    writeFileSync(join(dir, "app.txt"), "old\n");
    gitIn(dir, "add", "app.txt");
    gitIn(dir, "commit", "-q", "-m", "app");
    const warnings: Array<[string, string | undefined]> = [];
    const prompts: string[] = [];
    const fixer: AgentLike = {
      id: "fixer",
      async generate(options) {
        const { toolCalls: calls, prompt } = options as { toolCalls: ToolContextFactory; prompt: string };
        prompts.push(prompt);
        const edited = await calls.callTool(edit, { path: "app.txt", patch: "--- a/app.txt\n+++ b/app.txt\n@@ -1 +1 @@\n-old\n+new\n" });
        const mailed = await calls.callTool(sendEmail, { to: "dev@example.com" });
        warnings.push(["edit", edited.warning], ["sendEmail", mailed.warning]);
        return { output: { n: prompts.length } };
      },
    };
    const { api } = await sqliteBackend.open({ step: z.object({ n: z.number() }) }, { env: { recordSnapshots: true } });
    const { flow, Workflow, Task, Sequence, outputs } = api;
    const wf = flow(() => (
      <Workflow name="rewound-edit">
        <Sequence>
          <Task id="prep" output={outputs.step}>{() => ({ n: 0 })}</Task>
          <Task id="fix" output={outputs.step} agent={fixer} retries={0}>fix app.txt</Task>
        </Sequence>
      </Workflow>
    ));
    const { runId, status } = await runWorkflow(wf, { input: {}, rootDir: dir });
    expect(status).toBe("finished");
    expect(readFileSync(join(dir, "app.txt"), "utf8")).toBe("new\n");

    // The rewind restores app.txt (the edit is undone) and crosses the email (it stays sent).
    const db = new FlowDb(api.db);
    const rewound = await timeTravel(db, { runId, nodeId: "fix", force: true });
    expect(rewound.success).toBe(true);
    expect(tools(rewound.effectBoundary.revertible)).toEqual(["edit"]);
    expect(tools(rewound.effectBoundary.blocking)).toEqual(["sendEmail"]);
    expect(readFileSync(join(dir, "app.txt"), "utf8")).toBe("old\n");

    expect((await runWorkflow(wf, { runId, resume: true, rootDir: dir })).status).toBe("finished");
    expect(readFileSync(join(dir, "app.txt"), "utf8")).toBe("new\n");
    expect((await db.listAttempts(runId, "fix")).map((a) => [a.attempt, a.state])).toEqual([
      [1, "finished"],
      [2, "finished"],
    ]);
    // Attempt 2: no word of the undone edit; the email is still worth a warning.
    expect(warnings.slice(2)).toEqual([
      ["edit", undefined],
      ["sendEmail", expect.stringContaining('Tool "sendEmail" was already called by an earlier attempt of task "fix"')],
    ]);
    expect(prompts[1]).toContain('"sendEmail" (1 call)');
    expect(prompts[1]).not.toContain('"edit"');
  });
});
