/**
 * A host and the runs people act on (issue 23): a rewound run waits for a person (no pick-up
 * resumes it, resumeRun does); a run paused by a person stays paused at pick-up while one
 * paused by its host's shutdown is resumed; a decision that lands while its run is parking
 * resumes the run at once; cancelling a run drops its approvals from the change stream.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, FlowDb, LocalGatewayHost, pickUpRuns, RPC_METHODS } from "durable-flow";
import { retryNode } from "../../core/api/retry-node.js";
import { testBackends } from "../testing/backends.js";

const schemas = { decision: approvalDecisionSchema, step: z.object({ value: z.number() }) };
const backends = testBackends.filter((b) => b.name !== "pglite");

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each(backends)("a host and waiting runs on $name", (backend) => {
  async function setup() {
    const { api } = await backend.open(schemas);
    const ran: string[] = [];
    const release = api.flow(() => (
      <api.Workflow name="release">
        <api.Task id="test" output={api.outputs.step}>{() => (ran.push("test"), { value: 1 })}</api.Task>
        <api.Approval id="ship" output={api.outputs.decision} request={{ title: "Ship?" }} />
        <api.Task id="deploy" output={api.outputs.step}>{() => (ran.push("deploy"), { value: 2 })}</api.Task>
      </api.Workflow>
    ));
    const host = new LocalGatewayHost({ workflows: { release } });
    const db = new FlowDb(api.db);
    const status = (runId: string) => db.requireRun(runId).then((r) => r.status);
    return { api, ran, host, db, status };
  }
  const call = (host: LocalGatewayHost, method: string, params: unknown) => (RPC_METHODS as any)[method].handler(RPC_METHODS[method as keyof typeof RPC_METHODS].params.parse(params), null, host);

  it("leaves a rewound run to a person: pick-up passes it by, resumeRun continues it and asks the approval again", async () => {
    const { host, ran, status } = await setup();
    const { runId } = await host.startRun({ workflowKey: "release", input: {} });
    await host.activeRun(runId)?.done;
    await call(host, "submitApproval", { runId, nodeId: "ship", decision: "approve" });
    await until(() => status(runId), (s) => s === "finished", "the run to finish");
    const rewound = await call(host, "rewindRun", { runId, nodeId: "test", restoreVcs: false, resume: false });
    expect(rewound).toMatchObject({ success: true, status: "paused", decisions: [expect.objectContaining({ nodeId: "ship", action: "ask-again" })] });
    expect(await pickUpRuns(host)).toEqual([]);
    expect(await status(runId)).toBe("paused");
    ran.length = 0;
    await call(host, "resumeRun", { runId });
    await host.activeRun(runId)?.done;
    expect(await status(runId)).toBe("waiting-approval");
    expect(ran).toEqual(["test"]);
  });

  it("a rewind, retry, resume or cancel asked the moment a run ends waits for its session to close, and is done", async () => {
    const { api, host, status } = await setup();
    const flaky = api.flow(() => (
      <api.Workflow name="flaky">
        <api.Task id="only" output={api.outputs.step} retries={0}>{() => { throw new Error("no"); }}</api.Task>
      </api.Workflow>
    ));
    const slow = api.flow(() => (
      <api.Workflow name="slow">
        {[0, 1].map((i) => <api.Task id={`slow-${i}`} output={api.outputs.step}>{async () => (await new Promise((r) => setTimeout(r, 100)), { value: i })}</api.Task>)}
      </api.Workflow>
    ));
    host.register("flaky", flaky).register("slow", slow);
    // Asked from the run's own last event (`drive` takes the run there): its session still
    // executes it in this host then, and closes right after.
    const askedAtEnd = async (runId: string, workflowKey: string, end: string, drive: () => Promise<unknown>, ask: () => Promise<unknown>) => {
      let asked: Promise<unknown> | undefined;
      const stop = await host.subscribeRunEvents(runId, 0, (e) => {
        if (e.type === end && !asked) {
          expect(host.activeRun(runId)).toBeDefined();
          asked = ask();
        }
      });
      await host.startRun({ workflowKey, input: {}, runId });
      await drive();
      await until(async () => asked, (a) => a !== undefined, `the ${end} event of ${runId}`);
      stop();
      return asked;
    };
    const approve = (runId: string) => async () => {
      await host.activeRun(runId)?.done;
      await call(host, "submitApproval", { runId, nodeId: "ship", decision: "approve" });
    };
    const pause = (runId: string) => async () => host.activeRun(runId)?.pause();

    expect(await askedAtEnd("r1", "release", "RunFinished", approve("r1"), () => call(host, "rewindRun", { runId: "r1", nodeId: "deploy", restoreVcs: false, resume: false }))).toMatchObject({ success: true, status: "paused" });
    expect(await status("r1")).toBe("paused");
    expect(await askedAtEnd("r2", "flaky", "RunFailed", async () => {}, () => retryNode(host, { runId: "r2", nodeId: "only", resume: false }))).toMatchObject({ runId: "r2", resetNodes: ["only"] });
    // A Resume clicked as the run shows paused resumes it (it used to answer "running" of the closing session, and the run stayed paused).
    expect(await askedAtEnd("r3", "slow", "RunPaused", pause("r3"), () => call(host, "resumeRun", { runId: "r3" }))).toMatchObject({ runId: "r3" });
    await until(() => status("r3"), (s) => s === "finished", "the resumed run to finish");
    // A cancel asked as the run shows paused cancels it.
    expect(await askedAtEnd("r4", "slow", "RunPaused", pause("r4"), () => call(host, "cancelRun", { runId: "r4" }))).toEqual({ runId: "r4", status: "cancelled" });
    expect(await status("r4")).toBe("cancelled");
  });

  it("resumes at pick-up a run its host paused on shutdown, not one a person paused", async () => {
    const { api, host, status } = await setup();
    const gate = api.flow(() => (
      <api.Workflow name="gate">
        {[0, 1, 2, 3].map((i) => (
          <api.Task id={`slow-${i}`} output={api.outputs.step}>{async () => (await new Promise((r) => setTimeout(r, 400)), { value: i })}</api.Task>
        ))}
      </api.Workflow>
    ));
    host.register("gate", gate);
    const a = await host.startRun({ workflowKey: "gate", input: {} });
    const b = await host.startRun({ workflowKey: "gate", input: {} });
    host.activeRun(b.runId)!.pause();
    await host.activeRun(b.runId)?.done;
    await host.close();
    expect(await status(a.runId)).toBe("paused");
    const next = new LocalGatewayHost({ workflows: { gate } });
    expect(await pickUpRuns(next)).toEqual([a.runId]);
    await next.activeRun(a.runId)?.done;
    expect(await status(a.runId)).toBe("finished");
    expect(await status(b.runId)).toBe("paused");
  });

  // PostgreSQL commits a batch through executeBatch, which lets the test hold the parking write
  // before its transaction starts; SQLite's one connection would make the decision wait for it.
  it.skipIf(backend.name === "sqlite")("resumes a run at once when its decision lands while the run is parking", async () => {
    const { host, db, ran, status } = await setup();
    // Hold the parking write until the decision is stored: the run has looked for deliveries
    // already, so only the host can notice it.
    const store = db.store as unknown as { executeBatch?: (ops: unknown[]) => Promise<void>; transaction: unknown };
    let parking!: () => void;
    const parked = new Promise<void>((r) => (parking = r));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const wrap = <F extends (...a: any[]) => Promise<any>>(f: F, ops: (a: any[]) => Array<[string, unknown[]]>) =>
      (async (...a: any[]) => {
        if (ops(a).some(([sql, p]) => sql.startsWith("UPDATE _flow_runs SET status") && p[0] === "waiting-approval")) {
          parking();
          await held;
        }
        return f(...a);
      }) as unknown as F;
    store.executeBatch = wrap(store.executeBatch!.bind(store), (a) => a[0]);
    const { runId } = await host.startRun({ workflowKey: "release", input: {} });
    await parked;
    const decided = call(host, "submitApproval", { runId, nodeId: "ship", decision: "approve" });
    await new Promise((r) => setTimeout(r, 50));
    release();
    await decided;
    await until(() => status(runId), (s) => s === "finished", "the run to take the decision", 3000);
    expect(ran).toEqual(["test", "deploy"]);
  });

  it("cancelling a run closes its approval: the change stream says so and the list drops it", async () => {
    const { host, status } = await setup();
    const { runId } = await host.startRun({ workflowKey: "release", input: {} });
    await host.activeRun(runId)?.done;
    expect(await call(host, "listApprovals", {})).toHaveLength(1);
    const changes: Array<{ collection: string; runId?: string }> = [];
    host.changes.subscribe((c) => changes.push(c));
    expect(await call(host, "cancelRun", { runId })).toMatchObject({ status: "cancelled" });
    expect(await status(runId)).toBe("cancelled");
    expect(await call(host, "listApprovals", {})).toEqual([]);
    await expect(call(host, "submitApproval", { runId, nodeId: "ship", decision: "approve" })).rejects.toMatchObject({ code: "WAIT_CLOSED" });
    expect(changes).toContainEqual(expect.objectContaining({ collection: "approvals", runId }));
  });
});
