import { join } from "node:path";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, createDomainHandler, createFlow, createMemoryStore, FlowDb, LocalGatewayHost } from "durable-flow";
import { postgresBackend, tempDir } from "../testing/backends.js";
import { listenForTest } from "./testing.js";

/** A desk workflow (a human task, then a signal with a payload schema) and a gated one, over one SQLite file behind a real port. */
async function setup() {
  const dbPath = join(tempDir(), "flow.db");
  const d = createFlow({ claim: z.object({ amount: z.number().positive(), category: z.enum(["travel", "meals"]) }), paid: z.object({ ok: z.boolean() }) }, { dbPath });
  const desk = d.flow(() => (
    <d.Workflow name="desk">
      <d.HumanTask id="claim" output={d.outputs.claim} prompt="Enter the claim" />
      <d.Signal id="paid" schema={z.object({ ref: z.string() })} dependsOn={["claim"]}>
        {(p) => <d.Task id="done" output={d.outputs.paid}>{{ ok: p.ref.length > 0 }}</d.Task>}
      </d.Signal>
    </d.Workflow>
  ));
  const a = createFlow({ decision: approvalDecisionSchema }, { dbPath });
  const ship = a.flow(() => (
    <a.Workflow name="ship">
      <a.Approval id="ship" output={a.outputs.decision} request={{ title: "Ship it?", summary: "4 shards passed" }} />
    </a.Workflow>
  ));
  const host = new LocalGatewayHost({ workflows: { desk, ship } });
  const { url } = await listenForTest(createDomainHandler({ host, heartbeatMs: 60_000 }).fetch);
  const db = new FlowDb(d.db);
  const call = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, { method, headers: { "content-type": "application/json" }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { status: res.status, body: (await res.json()) as { ok: boolean; result?: any; error?: any } };
  };
  const settle = async (runId: string) => (await host.activeRun(runId)?.done) ?? { status: (await db.requireRun(runId)).status };
  return { call, settle, db, dbHandle: d.db };
}

describe("the wait and memory routes of the domain API", () => {
  it("lists a run's waits with the human task's row schema and the signal's payload schema, submits the human task, and shows an approval's winning decision", async () => {
    const { call, settle, db } = await setup();
    await call("POST", "/v1/api/runs", { workflow: "desk", input: {}, runId: "d1" });
    expect((await settle("d1")).status).toBe("waiting-approval");

    const [human] = (await call("GET", "/v1/api/waits?runId=d1")).body.result;
    expect(human).toMatchObject({ runId: "d1", nodeId: "claim", kind: "human", status: "pending", request: { prompt: "Enter the claim" }, resolution: null });
    expect(human.request.schema).toMatchObject({ type: "object", properties: { amount: { type: "number" }, category: { enum: ["travel", "meals"] } } });

    const bad = await call("POST", "/v1/api/human-tasks", { runId: "d1", nodeId: "claim", value: [1] });
    expect([bad.status, bad.body.error.code]).toEqual([400, "INVALID_ARGUMENT"]);
    expect((await call("POST", "/v1/api/human-tasks", { runId: "d1", nodeId: "nope", value: {} })).body.error.code).toBe("WAIT_NOT_FOUND");
    const sent = await call("POST", "/v1/api/human-tasks", { runId: "d1", nodeId: "claim", value: { amount: 12, category: "meals" } });
    expect(sent.body.result).toEqual({ runId: "d1", nodeId: "claim", iteration: 0, status: "accepted" });
    // The route woke the run: it goes on to the signal and parks there.
    for (let i = 0; i < 200 && (await db.requireRun("d1")).status !== "waiting-event"; i++) await settle("d1");
    expect((await db.requireRun("d1")).status).toBe("waiting-event");
    const signals = (await call("GET", "/v1/api/waits?kind=signal")).body.result;
    expect(signals).toEqual([expect.objectContaining({ runId: "d1", nodeId: "paid", name: "paid", kind: "signal", request: expect.objectContaining({ schema: expect.objectContaining({ required: ["ref"] }) }) })]);
    const decided = (await call("GET", "/v1/api/waits?runId=d1&nodeId=claim&status=any")).body.result;
    expect(decided[0]).toMatchObject({ kind: "human", resolution: { value: { amount: 12, category: "meals" } } });
    expect((await call("GET", "/v1/api/waits?kind=nap")).body.error.code).toBe("INVALID_ARGUMENT");

    await call("POST", "/v1/api/runs", { workflow: "ship", input: {}, runId: "s1" });
    await settle("s1");
    const pending = (await call("GET", "/v1/api/waits?runId=s1")).body.result;
    expect(pending[0].request).toMatchObject({ mode: "approve", request: { title: "Ship it?", summary: "4 shards passed" } });
    expect((await call("POST", "/v1/api/approvals", { runId: "s1", nodeId: "ship", decision: "approve", note: "go" })).body.result.status).toBe("accepted");
    const lost = await call("POST", "/v1/api/approvals", { runId: "s1", nodeId: "ship", decision: "deny" });
    expect(lost.body.error.code).toBe("APPROVAL_ALREADY_DECIDED");
    const winner = (await call("GET", "/v1/api/waits?runId=s1&nodeId=ship&status=any")).body.result[0];
    expect(winner.status).not.toBe("pending");
    expect(winner.resolution).toMatchObject({ approved: true, note: "go" });
  });

  it("lists memory namespaces with counts and searches a namespace's notes", async () => {
    const { call, dbHandle } = await setup();
    const memory = createMemoryStore(dbHandle);
    await memory.setFact("user:ana", "tone", { formal: true });
    await memory.setFact("user:ana", "lang", "en");
    await memory.setFact("user:bob", "gone", 1, 1); // expires after 1 ms: not counted
    await memory.saveNote({ namespace: "workflow:review", body: "Refunds above 500 EUR need a manager." });
    await memory.saveNote({ namespace: "workflow:review", body: "Deploys freeze on Fridays." });
    await memory.saveNote({ namespace: "workflow:other", body: "Refunds are handled elsewhere." });
    await new Promise((r) => setTimeout(r, 5));

    expect((await call("GET", "/v1/api/memory/namespaces")).body.result).toEqual([
      { namespace: "user:ana", facts: 2, notes: 0 },
      { namespace: "workflow:other", facts: 0, notes: 1 },
      { namespace: "workflow:review", facts: 0, notes: 2 },
    ]);
    expect((await call("GET", "/v1/api/memory/notes/search?namespace=workflow:review&q=refunds")).body.error.code).toBe("NOTE_SEARCH_NOT_ENABLED");
    await memory.enableNoteSearch("workflow");
    const found = (await call("GET", "/v1/api/memory/notes/search?namespace=workflow:review&q=refunds")).body.result;
    expect(found.map((n: { body: string }) => n.body)).toEqual(["Refunds above 500 EUR need a manager."]);
    expect((await call("GET", "/v1/api/memory/notes/search?namespace=workflow:review&q=")).body.error.code).toBe("INVALID_ARGUMENT");
    expect((await call("GET", "/v1/api/memory/notes/search?namespace=workflow:review&q=x&limit=0")).body.error.code).toBe("INVALID_ARGUMENT");
  });
});

// The routes' own SQL on the PostgreSQL dialect (bigint counts, placeholders, ordering); PGlite
// speaks the same dialect and costs seconds to start, so the server stands for both.
describe.each([postgresBackend])("the wait and memory routes on $name", (backend) => {
  it("lists a signal's wait with its payload schema, and memory namespaces with numeric counts", async () => {
    const { api } = await backend.open({ done: z.object({ ok: z.boolean() }) });
    const wf = api.flow(() => (
      <api.Workflow name="pg-wait">
        <api.Signal id="go" schema={z.object({ ref: z.string() })}>{(p) => <api.Task id="done" output={api.outputs.done}>{{ ok: p.ref !== "" }}</api.Task>}</api.Signal>
      </api.Workflow>
    ));
    const host = new LocalGatewayHost({ workflows: { wait: wf } });
    const { fetch: handle } = createDomainHandler({ host, heartbeatMs: 60_000 });
    const get = async (path: string) => ((await (await handle(new Request(`http://flow.test${path}`))).json()) as { result: any }).result;
    const res = await handle(new Request("http://flow.test/v1/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ workflow: "wait", input: {}, runId: "w1" }) }));
    expect(res.status).toBe(200);
    await host.activeRun("w1")?.done;
    expect(await get("/v1/api/waits?kind=signal")).toEqual([expect.objectContaining({ runId: "w1", nodeId: "go", name: "go", iteration: 0, status: "pending", createdAtMs: expect.any(Number), request: expect.objectContaining({ schema: expect.objectContaining({ required: ["ref"] }) }) })]);

    const memory = createMemoryStore(api.db);
    await memory.setFact("user:ana", "tone", "formal");
    await memory.saveNote({ namespace: "workflow:review", body: "Keep drafts short." });
    await memory.saveNote({ namespace: "workflow:review", body: "Name the run." });
    expect(await get("/v1/api/memory/namespaces")).toEqual([
      { namespace: "user:ana", facts: 1, notes: 0 },
      { namespace: "workflow:review", facts: 0, notes: 2 },
    ]);
    await memory.enableNoteSearch("workflow");
    expect((await get("/v1/api/memory/notes/search?namespace=workflow:review&q=drafts")).map((n: { body: string }) => n.body)).toEqual(["Keep drafts short."]);
  });
});
