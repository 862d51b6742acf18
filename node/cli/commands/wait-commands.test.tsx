import { existsSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, approvalRankingSchema, approvalSelectionSchema, createFlow, FlowDb, runWorkflow } from "durable-flow";
import { tempDir } from "../../testing/backends.js";
import type { CliIO } from "../command.js";
import { main } from "../main.js";
import { runCli } from "../testing.js";

const schemas = {
  decision: approvalDecisionSchema,
  choice: approvalSelectionSchema,
  ranking: approvalRankingSchema,
  triage: z.object({ label: z.enum(["bug", "feature"]), priority: z.number().int() }),
  step: z.object({ value: z.number() }),
  payment: z.object({ amount: z.number() }),
};

/** A SQLite store in a temp dir, and the CLI run in that dir with `--db flow.db`. */
function setUp() {
  const dir = tempDir();
  const api = createFlow(schemas, { dbPath: join(dir, "flow.db") });
  const flow = (...argv: string[]) => runCli([...argv, "--db", "flow.db"], { cwd: dir });
  return { dir, api, flow, db: new FlowDb(api.db) };
}

describe("flow approvals / approve / wake", () => {
  it("lists a pending approval, decides it once, lists the run as ready, and the resumed run takes the decision", async () => {
    const { api, flow, db } = setUp();
    const wf = api.flow(() => (
      <api.Workflow name="ship">
        <api.Approval id="ship" output={api.outputs.decision} request={{ title: "Ship it?", summary: "v2" }} allowedUsers={["ana"]} />
        <api.Task id="done" output={api.outputs.step}>{{ value: 1 }}</api.Task>
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    expect(parked.status).toBe("waiting-approval");

    const listed = await flow("approvals");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${parked.runId}  ship  approval  "Ship it\\?: v2"  since \\d{4}-`));
    expect(JSON.parse((await flow("approvals", "--run-id", parked.runId, "--json")).stdout)).toEqual([
      expect.objectContaining({ runId: parked.runId, nodeId: "ship", kind: "approval", request: expect.objectContaining({ request: { title: "Ship it?", summary: "v2" } }) }),
    ]);
    expect(JSON.parse((await flow("approvals", "--run-id", "other", "--json")).stdout)).toEqual([]);
    expect((await flow("wake")).stdout).toBe("No parked run can continue now.\n");

    const forbidden = await flow("approve", parked.runId, "ship", "--by", "bob");
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain("APPROVAL_FORBIDDEN");

    const ok = await flow("approve", parked.runId, "ship", "--note", "lgtm", "--by", "ana", "--json");
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ runId: parked.runId, nodeId: "ship", iteration: 0, status: "accepted" });
    expect((await flow("approve", parked.runId, "ship", "--by", "ana")).stdout).toContain("already decided this way");
    const conflict = await flow("approve", parked.runId, "ship", "--deny", "--by", "ana");
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain("APPROVAL_ALREADY_DECIDED");

    expect(JSON.parse((await flow("wake", "--json")).stdout)).toEqual([{ runId: parked.runId, status: "waiting-approval", workflowName: "ship" }]);
    // With the command that resumes it, naming the store it was given.
    expect((await flow("wake")).stdout).toMatch(new RegExp(`^${parked.runId}  waiting-approval +ship\\n\\nResume it with:\\n  flow resume ${parked.runId} --db flow.db\\n$`));

    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(parked.runId, "decision")).toEqual([expect.objectContaining({ approved: true, note: "lgtm", decidedBy: "ana" })]);
    expect((await flow("approvals")).stdout).toBe("No pending approvals or human tasks.\n");
    expect((await flow("wake", "--json")).stdout).toBe("[]\n");
  });

  it("selects and ranks options, and denies with --deny", async () => {
    const { api, flow, db } = setUp();
    const options = [
      { key: "a", label: "Plan A" },
      { key: "b", label: "Plan B" },
      { key: "c", label: "Plan C" },
    ];
    const select = api.flow(() => (
      <api.Workflow name="select">
        <api.Approval id="pick" output={api.outputs.choice} mode="select" request={{ title: "Which plan?" }} options={options} />
      </api.Workflow>
    ));
    const rank = api.flow(() => (
      <api.Workflow name="rank">
        <api.Approval id="order" output={api.outputs.ranking} mode="rank" request={{ title: "Order them" }} options={options} />
      </api.Workflow>
    ));
    const deny = api.flow(() => (
      <api.Workflow name="deny">
        <api.Approval id="gate" output={api.outputs.decision} request={{ title: "Go?" }} onDeny="continue" />
      </api.Workflow>
    ));
    const [s, r, d] = [await runWorkflow(select, { input: {} }), await runWorkflow(rank, { input: {} }), await runWorkflow(deny, { input: {} })];
    expect((await flow("approvals")).stdout).toContain(`${s.runId}  pick  approval (select: a, b, c)  "Which plan?"`);

    const notOffered = await flow("approve", s.runId, "pick", "--select", "z");
    expect(notOffered.code).toBe(1);
    expect(notOffered.stderr).toContain("INVALID_ARGUMENT");
    expect((await flow("approve", s.runId, "pick", "--select", "a", "--rank", "a,b,c")).code).toBe(2);
    expect((await flow("approve", s.runId, "pick", "--select", "b", "--note", "cheaper")).stdout).toContain(`Selected b for "pick" of run ${s.runId}.`);
    expect((await flow("approve", r.runId, "order", "--rank", "c,a,b")).code).toBe(0);
    expect((await flow("approve", d.runId, "gate", "--deny", "--note", "not now", "--by", "carl")).stdout).toContain(`Denied "gate" of run ${d.runId}.`);

    for (const [wf, run] of [[select, s], [rank, r], [deny, d]] as const) expect((await runWorkflow(wf, { runId: run.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(s.runId, "choice")).toEqual([expect.objectContaining({ selected: "b", notes: "cheaper" })]);
    expect(await db.listOutputs(r.runId, "ranking")).toEqual([expect.objectContaining({ ranked: ["c", "a", "b"] })]);
    expect(await db.listOutputs(d.runId, "decision")).toEqual([expect.objectContaining({ approved: false, note: "not now", decidedBy: "carl" })]);
  });
});

describe("flow submit", () => {
  it("lists a human task, submits its row, and the resumed run stores it", async () => {
    const { api, flow, db } = setUp();
    const wf = api.flow(() => (
      <api.Workflow name="human">
        <api.HumanTask id="triage" output={api.outputs.triage} prompt={"Label the ticket:\n\nThe printer on floor 2 is on fire."} />
      </api.Workflow>
    ));
    const parked = await runWorkflow(wf, { input: {} });
    // A prompt of several lines: its first line, and where the rest is (not one line of "\n\n").
    expect((await flow("approvals")).stdout).toContain(`${parked.runId}  triage  human task  "Label the ticket:" (the prompt goes on: --json shows it whole)  since `);

    expect((await flow("submit", parked.runId, "triage", "--value", "{label: bug}")).code).toBe(2);
    expect((await flow("submit", parked.runId, "triage", "--value", "[1]")).code).toBe(2);
    expect((await flow("submit", parked.runId, "triage")).code).toBe(2);
    const wrongNode = await flow("submit", parked.runId, "nope", "--value", "{}");
    expect(wrongNode.code).toBe(1);
    expect(wrongNode.stderr).toContain("WAIT_NOT_FOUND");
    // What does wait, for the typo's sake; and the other kind of wait named as what it is.
    expect(wrongNode.stderr).toContain(`Run ${parked.runId} has no human task "nope" waiting. It waits on the human task "triage".`);
    expect((await flow("approve", parked.runId, "triage")).stderr).toContain(`Node "triage" of run ${parked.runId} waits for a human task, not an approval.`);

    const ok = await flow("submit", parked.runId, "triage", "--value", '{"label":"bug","priority":2}', "--by", "ana");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`Submitted "triage" of run ${parked.runId}.`);
    expect(JSON.parse((await flow("submit", parked.runId, "triage", "--value", '{"label":"bug","priority":2}', "--json")).stdout)).toMatchObject({ status: "duplicate" });
    expect((await flow("wake", "--json")).stdout).toContain(parked.runId);

    expect((await runWorkflow(wf, { runId: parked.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(parked.runId, "triage")).toEqual([expect.objectContaining({ label: "bug", priority: 2 })]);
  });
});

describe("flow signal", () => {
  it("delivers a signal by run id once, and an event by correlation id, to runs that then finish", async () => {
    const { api, flow, db } = setUp();
    const signalled = api.flow(() => (
      <api.Workflow name="signal">
        <api.Signal id="ci" schema={z.object({ green: z.boolean(), build: z.number() })}>
          {(data) => <api.Task id="merge" output={api.outputs.step}>{{ value: data.build }}</api.Task>}
        </api.Signal>
      </api.Workflow>
    ));
    const paid = api.flow((ctx) => (
      <api.Workflow name="event">
        <api.WaitForEvent id="paid" event="invoice.paid" correlationId={`inv-${String(ctx.input.invoice)}`} output={api.outputs.payment} />
      </api.Workflow>
    ));
    const s = await runWorkflow(signalled, { input: {} });
    const [e1, e2] = [await runWorkflow(paid, { input: { invoice: 1 } }), await runWorkflow(paid, { input: { invoice: 2 } })];
    expect(s.status).toBe("waiting-event");

    expect((await flow("signal", "ci", "--payload", "{}")).code).toBe(2);
    expect((await flow("signal", "ci", "--run-id", s.runId, "--correlation-id", "x", "--payload", "{}")).code).toBe(2);
    expect((await flow("signal", "ci", "--run-id", s.runId)).code).toBe(2);
    expect((await flow("signal", "ci", "--run-id", s.runId, "--payload", "{", "--bogus")).code).toBe(2);

    const sent = await flow("signal", "ci", "--run-id", s.runId, "--payload", '{"green":true,"build":812}', "--delivery-id", "b812", "--json");
    expect(sent.code).toBe(0);
    expect(JSON.parse(sent.stdout)).toEqual({ deliveryId: "b812", status: "accepted" });
    expect((await flow("signal", "ci", "--run-id", s.runId, "--payload", '{"green":true,"build":812}', "--delivery-id", "b812")).stdout).toBe("Delivery b812 was made before; nothing changed.\n");
    expect((await flow("signal", "invoice.paid", "--event", "--correlation-id", "inv-2", "--payload", '{"amount":20}')).stdout).toMatch(/^Delivered event "invoice.paid" to correlation id inv-2 \(delivery .+\)\./);

    const woken = JSON.parse((await flow("wake", "--json")).stdout).map((r: { runId: string }) => r.runId);
    expect(woken.sort()).toEqual([s.runId, e2.runId].sort());

    expect((await runWorkflow(signalled, { runId: s.runId, resume: true })).status).toBe("finished");
    expect(await db.listOutputs(s.runId, "step")).toEqual([expect.objectContaining({ nodeId: "merge", value: 812 })]);
    expect((await runWorkflow(paid, { runId: e2.runId, resume: true })).status).toBe("finished");
    expect((await db.listOutputs(e2.runId, "payment"))[0]).toMatchObject({ amount: 20 });
    expect((await runWorkflow(paid, { runId: e1.runId, resume: true })).status).toBe("waiting-event");
  });
});

describe("wait commands", () => {
  it("refuse a store that does not exist instead of creating one, and show their usage", async () => {
    const dir = tempDir();
    let stderr = "";
    let stdout = "";
    const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd: dir, env: {}, isTTY: false };
    for (const argv of [["approvals"], ["approve", "r", "n"], ["submit", "r", "n", "--value", "{}"], ["signal", "s", "--run-id", "r", "--payload", "1"], ["wake"]]) {
      stderr = "";
      expect(await main(argv, io)).toBe(1);
      expect(stderr).toContain(`STORE_NOT_FOUND: No Flow store at ${join(dir, ".flow", "flow.db")}`);
    }
    expect(existsSync(join(dir, ".flow"))).toBe(false);
    expect(await main(["approve", "--help"], io)).toBe(0);
    expect(stdout).toContain("Usage: flow approve <runId> <nodeId>");
    stdout = "";
    await main(["--help"], io);
    for (const name of ["approvals", "approve", "submit", "signal", "wake"]) expect(stdout).toMatch(new RegExp(`\\n  ${name} +\\S`));
  });
});
