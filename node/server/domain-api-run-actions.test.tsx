import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { createDomainHandler, createFlow, LocalGatewayHost } from "durable-flow";
import { createDataClient } from "durable-flow/data";
import { tempDir } from "../testing/backends.js";
import { listenForTest } from "./testing.js";

/** A run whose `flaky` task fails until `healed`, behind a real HTTP port, read through the data client. */
async function setup() {
  const dbPath = join(tempDir(), "flow.db");
  let healed = false;
  const f = createFlow({ prepOut: z.object({ n: z.number() }), flakyOut: z.object({ ok: z.boolean() }), afterOut: z.object({ n: z.number() }) }, { dbPath });
  const flaky = f.flow(() => (
    <f.Workflow name="flaky">
      <f.Task id="prep" output={f.outputs.prepOut}>{{ n: 1 }}</f.Task>
      <f.Task id="flaky" output={f.outputs.flakyOut} dependsOn={["prep"]} retries={0}>
        {() => {
          if (!healed) throw new Error("upstream down");
          return { ok: true };
        }}
      </f.Task>
      <f.Task id="after" output={f.outputs.afterOut} dependsOn={["flaky"]}>{{ n: 2 }}</f.Task>
    </f.Workflow>
  ));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = createFlow({ holdOut: z.object({ n: z.number() }) }, { dbPath });
  const held = h.flow(() => (
    <h.Workflow name="held">
      <h.Task id="hold" output={h.outputs.holdOut}>{async () => (await gate, { n: 1 })}</h.Task>
    </h.Workflow>
  ));
  const host = new LocalGatewayHost({ workflows: { flaky, held } });
  const { url } = await listenForTest(createDomainHandler({ host, heartbeatMs: 60_000 }).fetch);
  const data = createDataClient({ mode: { kind: "local", apiBaseUrl: url } });
  const settle = async (runId: string) => (await host.activeRun(runId)?.done) ?? { status: (await host.db.requireRun(runId)).status };
  return { url, host, api: data.api, settle, heal: () => (healed = true), release, close: () => data.close() };
}

const codeOf = (p: Promise<unknown>) => p.then(() => "no error", (e: { code?: string; status?: number }) => `${e.code} ${e.status}`);

describe("the run actions of the domain API (retry, rewind, diffs)", () => {
  it("retries a failed task: the run resumes, the task and what follows run again, the failed attempt stays as history", async () => {
    const { api, settle, heal, close } = await setup();
    await api.launchRun({ workflow: "flaky", input: {}, runId: "f1" });
    expect((await settle("f1")).status).toBe("failed");

    expect(await codeOf(api.retryNode("f1", "prep"))).toBe("INVALID_TRANSITION 409"); // finished: rewind it instead
    expect(await codeOf(api.retryNode("f1", "nope"))).toBe("NODE_NOT_FOUND 404");
    expect(await codeOf(api.retryNode("ghost", "flaky"))).toBe("RUN_NOT_FOUND 404");
    expect(await codeOf(api.request("POST", "/v1/api/runs/f1/nodes/flaky/retry", { iteration: -1 }))).toBe("INVALID_ARGUMENT 400");

    heal();
    const retried = await api.retryNode("f1", "flaky");
    expect(retried).toMatchObject({ runId: "f1", resetNodes: ["flaky"] });
    expect((await settle("f1")).status).toBe("finished");
    const run = await api.getRun("f1");
    const attempts = Object.fromEntries(run.nodes.map((n) => [n.nodeId, n.attempts.map((a) => a.state)]));
    expect(attempts).toEqual({ prep: ["finished"], flaky: ["failed", "finished"], after: ["finished"] });
    expect((await api.listRunEvents("f1")).events.filter((e) => e.type === "TaskReset").map((e) => [e.type, (e as { reason?: string }).reason])).toEqual([["TaskReset", "retry-task"]]);
    close();
  });

  it("tells the change stream of a retry that does not resume the run", async () => {
    const { api, host, settle, heal, close } = await setup();
    await api.launchRun({ workflow: "flaky", input: {}, runId: "f3" });
    expect((await settle("f3")).status).toBe("failed");
    const heard: string[] = [];
    const stop = host.changes.subscribe((c) => void (c.runId === "f3" && heard.push(c.reason)));
    expect(await api.request("POST", "/v1/api/runs/f3/nodes/flaky/retry", { resume: false })).toMatchObject({ resetNodes: ["flaky"] });
    expect(heard).toContain("TaskReset");
    stop();
    heal();
    await api.resumeRun("f3");
    expect((await settle("f3")).status).toBe("finished");
    close();
  });

  it("refuses to retry while the run executes here, rewinds a finished run over HTTP, and answers VCS_FAILED for diffs of a run without snapshots", async () => {
    const { api, host, settle, heal, release, close } = await setup();
    await api.launchRun({ workflow: "held", input: {}, runId: "h1" });
    expect(await codeOf(api.retryNode("h1", "hold"))).toBe("INVALID_TRANSITION 409"); // executing here: pause or cancel first
    release();
    expect((await settle("h1")).status).toBe("finished");
    // A run of the host's second workflow: only its own store handle knows its output table.
    expect(await api.rewindRun({ runId: "h1", nodeId: "hold", restoreVcs: false })).toMatchObject({ success: true, resetNodes: ["hold"] });
    expect((await settle("h1")).status).toBe("finished");
    expect((await api.getNodeOutput("h1", "hold")).row).toMatchObject({ n: 1 });

    heal();
    await api.launchRun({ workflow: "flaky", input: {}, runId: "f2" });
    expect((await settle("f2")).status).toBe("finished");

    const rewound = await api.rewindRun({ runId: "f2", nodeId: "flaky", restoreVcs: false });
    expect(rewound).toMatchObject({ success: true, runId: "f2", resetNodes: ["flaky", "after"] });
    expect((await settle("f2")).status).toBe("finished");
    const flaky = (await api.getRun("f2")).nodes.find((n) => n.nodeId === "flaky")!;
    expect(flaky.attempts.map((a) => a.state)).toEqual(["finished", "finished"]); // the rewound attempt is kept as evidence beside the new one

    // A rewind that leaves the run paused writes events no session runs: the change stream
    // (another tab's run page, a client's run list) hears them.
    const heard: string[] = [];
    const stop = host.changes.subscribe((c) => void (c.runId === "f2" && heard.push(c.reason)));
    expect(await api.rewindRun({ runId: "f2", nodeId: "after", restoreVcs: false, resume: false })).toMatchObject({ success: true, status: "paused" });
    expect(heard).toContain("TimeTravelFinished");
    stop();
    await api.resumeRun("f2");
    expect((await settle("f2")).status).toBe("finished");

    expect(await codeOf(api.getNodeDiff("f2", "flaky", { attempt: 1 }))).toBe("VCS_FAILED 500"); // tests run with FLOW_SNAPSHOTS=off
    expect(await codeOf(api.getRunDiff("f2"))).toBe("VCS_FAILED 500");
    expect(await codeOf(api.getNodeDiff("f2", "flaky", { attempt: -1 as number }))).toBe("INVALID_ARGUMENT 400");
    close();
  });
});
