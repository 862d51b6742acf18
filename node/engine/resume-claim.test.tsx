/**
 * `RunOptions.resumeClaim` (SPEC.md: internal coordination): a worker resumes a run it saw
 * owned by `claimOwnerId` with heartbeat `claimHeartbeatAtMs`, and only if that is still so
 * (compare-and-set); `restoreRuntimeOwnerId` / `restoreHeartbeatAtMs` are what the run gets
 * back when the resume is refused before it committed anything.
 */
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { FlowDb, runWorkflow } from "durable-flow";
import { testBackends } from "../testing/backends.js";

const schemas = { step: z.object({ value: z.number() }) };

describe.each(testBackends)("resumeClaim on $name", (backend) => {
  it("lets exactly one of two workers racing for a stale run take it, and every task runs once", async () => {
    const first = await backend.open(schemas);
    const ran: string[] = [];
    const pause = new AbortController();
    // The winner waits in s2 until the other worker's resume has settled (or a second s2 starts,
    // which the assertions below report): a run that finished before the other worker read it
    // would be answered as finished, not refused, so the race must not depend on timing.
    let raced: Array<Promise<unknown>> = [];
    let inS2 = 0;
    let secondS2!: () => void;
    const bothInS2 = new Promise<void>((resolve) => (secondS2 = resolve));
    const make = (a: typeof first.api) =>
      a.flow(() => (
        <a.Workflow name="race">
          {["s1", "s2", "s3"].map((id) => (
            <a.Task key={id} id={id} output={a.outputs.step}>
              {async () => {
                ran.push(id);
                if (id === "s1") pause.abort();
                if (id === "s2" && ++inS2 === 2) secondS2();
                if (id === "s2") await Promise.race([bothInS2, ...raced.map((p) => p.then(() => undefined, () => undefined))]);
                return { value: ran.length };
              }}
            </a.Task>
          ))}
        </a.Workflow>
      ));
    const parked = await runWorkflow(make(first.api), { input: {}, pauseSignal: pause.signal });
    expect(parked.status).toBe("paused");
    // A worker that died while running the run: its claim is what both workers see.
    const db = new FlowDb(first.api.db);
    await db.store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, ["dead-worker", 1_000, parked.runId]);
    const seen = await db.requireRun(parked.runId);
    const workers = await Promise.all([1, 2].map((n) => backend.open(schemas, { sameStoreAs: first.location, env: { ownerId: `worker-${n}` } })));
    const claim = { claimOwnerId: seen.ownerId!, claimHeartbeatAtMs: seen.heartbeatAtMs! };
    raced = workers.map((w) => runWorkflow(make(w.api), { runId: parked.runId, resume: true, resumeClaim: claim }));
    const results = await Promise.allSettled(raced);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect((won[0] as PromiseFulfilledResult<{ status: string }>).value.status).toBe("finished");
    expect(lost).toHaveLength(1);
    expect((lost[0] as PromiseRejectedResult).reason).toMatchObject({ code: "RUN_ALREADY_RUNNING" });
    expect(ran).toEqual(["s1", "s2", "s3"]);
  });

  it("gives the run back to restoreRuntimeOwnerId and restoreHeartbeatAtMs when the resume is refused", async () => {
    const { api, location } = await backend.open(schemas);
    const pause = new AbortController();
    const wf = (name: string, a: typeof api) =>
      a.flow(() => (
        <a.Workflow name={name}>
          <a.Task id="a" output={a.outputs.step}>{() => (pause.abort(), { value: 1 })}</a.Task>
          <a.Task id="b" output={a.outputs.step}>{{ value: 2 }}</a.Task>
        </a.Workflow>
      ));
    const parked = await runWorkflow(wf("billing", api), { input: {}, pauseSignal: pause.signal });
    const db = new FlowDb(api.db);
    // A supervisor claimed the run for this worker (its own claim replaced the dead worker's).
    await db.store.execute(`UPDATE _flow_runs SET status = 'running', owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, ["supervisor", 2_000, parked.runId]);
    const { api: worker } = await backend.open(schemas, { sameStoreAs: location, env: { ownerId: "worker-1" } });
    const resumeClaim = { claimOwnerId: "supervisor", claimHeartbeatAtMs: 2_000, restoreRuntimeOwnerId: "dead-worker", restoreHeartbeatAtMs: 1_000 };
    await expect(runWorkflow(wf("shipping", worker), { runId: parked.runId, resume: true, resumeClaim })).rejects.toMatchObject({ code: "WORKFLOW_MISMATCH" });
    expect(await db.requireRun(parked.runId)).toMatchObject({ status: "running", ownerId: "dead-worker", heartbeatAtMs: 1_000 });
    // Without restore fields it goes back to the claim it replaced.
    await db.store.execute(`UPDATE _flow_runs SET owner_id = ?, heartbeat_at_ms = ? WHERE run_id = ?`, ["supervisor", 3_000, parked.runId]);
    await expect(runWorkflow(wf("shipping", worker), { runId: parked.runId, resume: true, resumeClaim: { claimOwnerId: "supervisor", claimHeartbeatAtMs: 3_000 } })).rejects.toMatchObject({ code: "WORKFLOW_MISMATCH" });
    expect(await db.requireRun(parked.runId)).toMatchObject({ ownerId: "supervisor", heartbeatAtMs: 3_000 });
  });
});
