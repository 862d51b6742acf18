import { join } from "node:path";
import { request } from "node:http";
import { EventSource } from "eventsource";
import { z } from "zod";
import { describe, expect, it } from "vitest";
import { approvalDecisionSchema, type AgentLike, bearerAuthenticate, type CallerIdentity, createDomainHandler, createFlow, createMemoryStore, FlowDb, LocalGatewayHost, submitApproval } from "durable-flow";
import { tempDir } from "../testing/backends.js";
import { listenForTest, readSse } from "./testing.js";

const writer: AgentLike = { id: "writer", generate: async (args) => ({ text: JSON.stringify({ text: `hi ${/Greet (\w+)/.exec(String(args?.prompt))?.[1]}` }) }) };

/** Two workflows on one SQLite store (distinct schema keys), behind a real HTTP port. */
async function setup(opts: { token?: string; authenticate?: (req: Request) => Promise<CallerIdentity | null>; allowedOrigins?: string[]; maxBodyBytes?: number } = {}) {
  const dbPath = join(tempDir(), "flow.db");
  const g = createFlow({ input: z.object({ name: z.string() }), greeting: z.object({ text: z.string() }), output: z.object({ text: z.string() }) }, { dbPath });
  const greet = g.flow(
    (ctx) => (
      <g.Workflow name="greet">
        <g.Task id="greeting" output={g.outputs.greeting} agent={writer}>{`Greet ${ctx.input.name}`}</g.Task>
        <g.Task id="result" output={g.outputs.output} dependsOn={["greeting"]}>{() => ({ text: ctx.outputs.greeting[0]?.text ?? "" })}</g.Task>
      </g.Workflow>
    ),
  );
  greet.readableName = "greet";
  const a = createFlow({ decision: approvalDecisionSchema, shipped: z.object({ ok: z.boolean() }) }, { dbPath });
  const approve = a.flow(() => (
    <a.Workflow name="ship">
      <a.Approval id="ship" output={a.outputs.decision} request={{ title: "Ship it?" }} />
      <a.Signal id="deployed" schema={z.object({ env: z.string() })}>
        {(d) => <a.Task id="done" output={a.outputs.shipped}>{{ ok: d.env === "prod" }}</a.Task>}
      </a.Signal>
    </a.Workflow>
  ));
  approve.readableName = "ship";
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const h = createFlow({ holdOut: z.object({ n: z.number() }), afterOut: z.object({ n: z.number() }) }, { dbPath });
  const slow = h.flow(() => (
    <h.Workflow name="slow">
      <h.Task id="hold" output={h.outputs.holdOut}>{async () => (await gate, { n: 1 })}</h.Task>
      <h.Task id="after" output={h.outputs.afterOut} dependsOn={["hold"]}>{{ n: 2 }}</h.Task>
    </h.Workflow>
  ));
  const k = createFlow({ gateOk: approvalDecisionSchema, gateWork: z.object({ n: z.number() }) }, { dbPath });
  const gated = k.flow(() => (
    <k.Workflow name="gated">
      <k.Approval id="ok" output={k.outputs.gateOk} request={{ title: "Start?" }} />
      <k.Task id="work" output={k.outputs.gateWork} dependsOn={["ok"]}>{async () => (await gate, { n: 1 })}</k.Task>
    </k.Workflow>
  ));
  const host = new LocalGatewayHost({ workflows: { greet, ship: approve, slow, gated } });
  const api = createDomainHandler({
    host,
    ...(opts.token ? { authenticate: bearerAuthenticate({ token: opts.token }) } : {}),
    ...(opts.authenticate ? { authenticate: opts.authenticate } : {}),
    ...(opts.allowedOrigins ? { allowedOrigins: opts.allowedOrigins } : {}),
    ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    heartbeatMs: 60_000,
  });
  const { url } = await listenForTest(api.fetch);
  const db = new FlowDb(g.db);
  const rpc = async (method: string, params: unknown = {}, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}/v1/rpc/${method}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(params) });
    return { status: res.status, body: (await res.json()) as { ok: boolean; result?: any; error?: any } };
  };
  const runCount = async () => Number((await db.store.query<{ n: number }>(`SELECT COUNT(*) AS n FROM _flow_runs`))[0]!.n);
  /** The run's result once this host stops executing it (at once when it already stopped). */
  const settle = async (runId: string) => (await host.activeRun(runId)?.done) ?? { status: (await db.requireRun(runId)).status };
  return { url, host, api, db, rpc, runCount, settle, release, dbHandle: g.db };
}

describe("the domain API over HTTP", () => {
  it("answers /health without auth, refuses other routes without the bearer token, and lists workflows with their input schema", async () => {
    const { url, rpc } = await setup({ token: "s3cret" });
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, status: "ok", protocol: 1, features: ["streaming", "runs"] });
    const denied = await fetch(`${url}/workflows`);
    expect(denied.status).toBe(401);
    expect(denied.headers.get("www-authenticate")).toBe("Bearer");
    expect(await denied.json()).toMatchObject({ ok: false, error: { code: "UNAUTHORIZED" } });
    expect((await rpc("listRuns", {}, { authorization: "Bearer wrong" })).status).toBe(401);
    const list = await fetch(`${url}/workflows`, { headers: { authorization: "Bearer s3cret" } });
    const body = (await list.json()) as { ok: true; result: Array<{ key: string; inputSchema: any; outputs: string[] }> };
    expect(body.result.map((w) => w.key)).toEqual(["greet", "ship", "slow", "gated"]);
    expect(body.result[0]!.inputSchema).toMatchObject({ type: "object", properties: { name: { type: "string" } }, required: ["name"] });
    expect(body.result[0]!.outputs).toEqual(["greeting", "output"]);
  });

  it("launches a run, then reads it: getRun, listRuns with filters and cursor paging, getNodeOutput, whatHappened, listPrompts", async () => {
    const { url, rpc, settle } = await setup();
    const launched = await rpc("launchRun", { workflow: "greet", input: { name: "Ada" }, runId: "g1", options: { startedBy: { harness: "cli", sessionId: "s-1" } } });
    expect(launched).toEqual({ status: 200, body: { ok: true, result: { runId: "g1", workflow: "greet" } } });
    expect((await settle("g1"))?.status).toBe("finished");
    for (const runId of ["g2", "g3"]) await rpc("launchRun", { workflow: "greet", input: { name: runId }, runId }).then(() => settle(runId));
    await rpc("launchRun", { workflow: "ship", input: {}, runId: "s1" }).then(() => settle("s1"));

    const run = (await rpc("getRun", { runId: "g1" })).body.result;
    expect(run).toMatchObject({ runId: "g1", workflowKey: "greet", status: "finished", output: { text: "hi Ada" }, startedBy: { harness: "cli", sessionId: "s-1" }, triggeredBy: null });
    expect(run.nodes.map((n: { nodeId: string; state: string; attempts: unknown[] }) => [n.nodeId, n.state, n.attempts.length])).toEqual([
      ["greeting", "finished", 1],
      ["result", "finished", 1],
    ]);
    expect(run.lastSeq).toBeGreaterThan(3);

    const greets = (await rpc("listRuns", { workflow: "greet", limit: 2 })).body.result;
    expect(greets.runs.map((r: { runId: string }) => r.runId)).toHaveLength(2);
    const rest = (await rpc("listRuns", { workflow: "greet", limit: 2, cursor: greets.nextCursor })).body.result;
    expect(rest.nextCursor).toBeNull();
    expect([...greets.runs, ...rest.runs].map((r: { runId: string }) => r.runId).sort()).toEqual(["g1", "g2", "g3"]);
    // A list row carries the run's input (a console searches it and re-runs with it).
    expect([...greets.runs, ...rest.runs].find((r: { runId: string }) => r.runId === "g1")).toMatchObject({ input: { name: "Ada" } });
    expect((await rpc("listRuns", { status: "waiting-approval" })).body.result.runs.map((r: { runId: string }) => r.runId)).toEqual(["s1"]);
    const viaApi = (await (await fetch(`${url}/v1/api/runs?workflow=ship`)).json()) as { result: { runs: Array<{ runId: string }> } };
    expect(viaApi.result.runs.map((r) => r.runId)).toEqual(["s1"]);

    expect((await rpc("getNodeOutput", { runId: "g1", nodeId: "greeting" })).body.result).toMatchObject({ nodeId: "greeting", iteration: 0, row: { text: "hi Ada" } });
    expect((await rpc("getNodeOutput", { runId: "g1", nodeId: "nope" })).body.error.code).toBe("NODE_NOT_FOUND");
    const story = (await rpc("whatHappened", { runId: "g1" })).body.result;
    expect(story.summary).toBe("Run g1 is finished; 2 tasks finished.");
    expect(story.lines.some((l: string) => l.includes('task "greeting" finished'))).toBe(true);
    expect((await rpc("listPrompts", { runId: "g1" })).body.result).toEqual([{ key: "g1/greeting#0", runId: "g1", nodeId: "greeting", iteration: 0, label: null, prompt: "Greet Ada" }]);
    expect((await rpc("getRun", { runId: "missing" })).status).toBe(404);
  });

  it("takes an approval and a signal over HTTP, resumes the parked run each time, and treats repeats as no-ops", async () => {
    const { url, rpc, db, settle } = await setup();
    await rpc("launchRun", { workflow: "ship", input: {}, runId: "s1" });
    expect((await settle("s1"))?.status).toBe("waiting-approval");
    const pending = (await (await fetch(`${url}/v1/api/approvals?runId=s1`)).json()) as { result: Array<{ nodeId: string; kind: string }> };
    expect(pending.result).toEqual([expect.objectContaining({ runId: "s1", nodeId: "ship", kind: "approval" })]);

    const decided = await fetch(`${url}/v1/api/approvals`, { method: "POST", body: JSON.stringify({ runId: "s1", nodeId: "ship", decision: "approve", note: "go" }) });
    expect(await decided.json()).toEqual({ ok: true, result: { runId: "s1", nodeId: "ship", iteration: 0, status: "accepted" } });
    expect((await rpc("submitApproval", { runId: "s1", nodeId: "ship", decision: "approve" })).body.result.status).toBe("duplicate");
    expect((await rpc("submitApproval", { runId: "s1", nodeId: "ship", decision: "deny" })).body.error.code).toBe("APPROVAL_ALREADY_DECIDED");
    expect((await settle("s1"))?.status).toBe("waiting-event");

    expect((await rpc("submitSignal", { name: "deployed", runId: "s1", payload: { env: "prod" }, deliveryId: "d1" })).body.result).toEqual({ deliveryId: "d1", status: "accepted" });
    expect((await settle("s1"))?.status).toBe("finished");
    expect((await rpc("submitSignal", { name: "deployed", runId: "s1", payload: { env: "prod" }, deliveryId: "d1" })).body.result.status).toBe("duplicate");
    expect(await db.store.query(`SELECT COUNT(*) AS n FROM _flow_signals`)).toEqual([{ n: 1 }]);
    expect((await rpc("getNodeOutput", { runId: "s1", nodeId: "done" })).body.result.row).toMatchObject({ ok: true });
  });

  it("cancels a parked run durably, refuses to pause a run that is not running, and answers NOT_AVAILABLE for hijack on a host without CLI agents", async () => {
    const { rpc, settle } = await setup();
    await rpc("launchRun", { workflow: "ship", input: {}, runId: "s1" });
    await settle("s1");
    expect((await rpc("pauseRun", { runId: "s1" })).body.error).toMatchObject({ code: "INVALID_TRANSITION" });
    expect((await rpc("cancelRun", { runId: "s1" })).body).toEqual({ ok: true, result: { runId: "s1", status: "cancelled" } });
    expect((await rpc("getRun", { runId: "s1" })).body.result.status).toBe("cancelled");
    expect((await rpc("cancelRun", { runId: "s1" })).body.result.status).toBe("cancelled");
    const hijack = await rpc("hijackRun", { runId: "s1", nodeId: "ship" });
    expect([hijack.status, hijack.body.error.code]).toEqual([501, "NOT_AVAILABLE"]);
    // No workspace snapshots in this run (no repository): the diffs say so.
    expect((await rpc("getNodeDiff", { runId: "s1", nodeId: "ship" })).body.error.code).toBe("VCS_FAILED");
    expect((await rpc("getRunDiff", { runId: "s1" })).body.error.code).toBe("VCS_FAILED");
    expect((await rpc("getRunDiff", { runId: "nope" })).body.error.code).toBe("RUN_NOT_FOUND");
  });

  it("answers each bad input with its code and status, and stores nothing", async () => {
    const { url, rpc, runCount } = await setup({ maxBodyBytes: 4096 });
    const before = await runCount();
    const big = JSON.stringify({ workflow: "greet", input: { name: "x".repeat(10_000) } });
    const declared = await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", headers: { "content-type": "application/json" }, body: big });
    expect([declared.status, ((await declared.json()) as any).error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    // No Content-Length: a chunked body is counted while it streams.
    const chunked = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(`${url}/v1/rpc/launchRun`, { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked" } }, (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      });
      req.on("error", reject);
      for (let i = 0; i < 5; i++) req.write(big.slice(i * 2000, (i + 1) * 2000));
      req.end(big.slice(10_000));
    });
    expect([chunked.status, chunked.body.error.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const unknownRoute = await fetch(`${url}/nope`, { method: "POST", headers: { "content-length": "5000" }, body: "x".repeat(5000) });
    expect(unknownRoute.status).toBe(413);
    const malformed = await fetch(`${url}/v1/rpc/launchRun`, { method: "POST", body: "{not json" });
    expect([malformed.status, ((await malformed.json()) as any).error.code]).toEqual([400, "INVALID_ARGUMENT"]);
    expect(await rpc("launchRunn", {})).toMatchObject({ status: 404, body: { ok: false, error: { code: "METHOD_NOT_FOUND" } } });
    const badParams = await rpc("launchRun", { workflow: 7 });
    expect([badParams.status, badParams.body.error.code, badParams.body.error.details.issues[0]]).toEqual([400, "INVALID_ARGUMENT", expect.stringContaining("workflow")]);
    // A decision in a shape the union does not take names the shapes it does.
    const badDecision = await rpc("submitApproval", { runId: "r", nodeId: "n", decision: { approved: true } });
    expect([badDecision.status, badDecision.body.error.details.issues[0]]).toEqual([400, 'decision: expected "approve", "deny", { "selected": <option key> } or { "ranked": [<every option key>] }']);
    expect((await rpc("launchRun", { workflow: "nope" })).body.error.code).toBe("WORKFLOW_NOT_FOUND");
    expect((await rpc("launchRun", { workflow: "greet", input: { name: 3 } })).body.error.code).toBe("INPUT_INVALID");
    const viaRpc = await fetch(`${url}/rpc`, { method: "POST", body: JSON.stringify({ params: {} }) });
    expect(viaRpc.status).toBe(400);
    expect(await runCount()).toBe(before);
    const ok = await fetch(`${url}/rpc`, { method: "POST", body: JSON.stringify({ method: "listWorkflows" }) });
    expect(((await ok.json()) as any).result).toHaveLength(4);
  });

  it("checks scopes: a read-only caller reads but gets 403 with requiredScope on writes; a disallowed Origin gets 403", async () => {
    const reader: CallerIdentity = { userId: "vic", role: "viewer", scopes: ["run:read"], triggeredBy: "user:vic" };
    const { url, rpc, runCount } = await setup({ authenticate: async () => reader, allowedOrigins: ["https://console.example"] });
    expect((await rpc("listRuns")).status).toBe(200);
    const write = await rpc("launchRun", { workflow: "greet", input: { name: "x" } });
    expect(write).toMatchObject({ status: 403, body: { ok: false, error: { code: "FORBIDDEN", requiredScope: "run:write" } } });
    expect((await rpc("cronCreate", { workflow: "greet", schedule: "* * * * *" })).body.error.requiredScope).toBe("cron:write");
    expect((await fetch(`${url}/v1/api/memory/facts`).then((r) => r.json())) as any).toMatchObject({ error: { code: "FORBIDDEN", requiredScope: "memory:read" } });
    expect(await runCount()).toBe(0);
    const foreign = await fetch(`${url}/v1/api/runs`, { headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect((await fetch(`${url}/v1/api/runs`, { headers: { origin: "https://console.example" } })).status).toBe(200);
  });

  it("gives a run launched by an authenticated caller ctx.auth", async () => {
    const ana: CallerIdentity = { userId: "ana", role: "operator", scopes: ["*"], triggeredBy: "user:ana" };
    const { rpc, settle, db } = await setup({ authenticate: async () => ana });
    await rpc("launchRun", { workflow: "greet", input: { name: "x" }, runId: "a1" });
    await settle("a1");
    const [row] = await db.store.query<{ auth_json: string }>(`SELECT auth_json FROM _flow_runs WHERE run_id = 'a1'`);
    expect(JSON.parse(row!.auth_json)).toMatchObject({ triggeredBy: "user:ana", role: "operator", scopes: ["*"] });
    expect((await rpc("getRun", { runId: "a1" })).body.result.triggeredBy).toBe("user:ana");
  });

  it("streams a run's events as SSE with eventsource, each seq once, and resumes after Last-Event-ID", async () => {
    const { url, rpc, settle } = await setup();
    await rpc("launchRun", { workflow: "ship", input: {}, runId: "s1" });
    await settle("s1");
    const seen: number[] = [];
    const types: string[] = [];
    const es = new EventSource(`${url}/v1/api/runs/s1/events/stream`);
    const ended = new Promise<void>((resolve) => es.addEventListener("end", () => resolve()));
    es.addEventListener("run.event", (m) => {
      seen.push(Number(m.lastEventId));
      types.push((JSON.parse(m.data) as { type: string }).type);
    });
    await new Promise<void>((resolve) => es.addEventListener("open", () => resolve()));
    await rpc("submitApproval", { runId: "s1", nodeId: "ship", decision: "approve" });
    await settle("s1");
    await rpc("submitSignal", { name: "deployed", runId: "s1", payload: { env: "prod" } });
    await ended;
    es.close();
    expect(types.at(-1)).toBe("RunFinished");
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    // Resume from the middle: the rest, once, in order.
    const mid = seen[Math.floor(seen.length / 2)]!;
    const resumed = await readSse(await fetch(`${url}/v1/api/runs/s1/events/stream`, { headers: { "last-event-id": String(mid) } }), (e) => e.some((x) => x.event === "end"));
    expect(resumed.filter((e) => e.event === "run.event").map((e) => Number(e.id))).toEqual(seen.filter((s) => s > mid));
    // The same stream through the RPC route.
    const viaRpc = await readSse(await fetch(`${url}/v1/rpc/streamRunEvents`, { method: "POST", body: JSON.stringify({ runId: "s1", afterSeq: seen.at(-2) }) }), (e) => e.some((x) => x.event === "end"));
    expect(viaRpc.filter((e) => e.event === "run.event").map((e) => Number(e.id))).toEqual([seen.at(-1)]);
  });

  it("streams changes on /v1/api/stream, resumes after Last-Event-ID, and resets a client whose id is unknown", async () => {
    const { url, rpc, settle } = await setup();
    const first = await fetch(`${url}/v1/api/stream`);
    const launchedLater = rpc("launchRun", { workflow: "greet", input: { name: "x" }, runId: "g1" }).then(() => settle("g1"));
    const events = await readSse(first, (e) => e.some((x) => x.event === "change" && (x.data as { reason: string }).reason === "RunFinished"));
    await launchedLater;
    expect(events[0]).toMatchObject({ event: "heartbeat" });
    const changes = events.filter((e) => e.event === "change");
    expect(changes[0]!.data).toMatchObject({ collection: "runs", runId: "g1", reason: "RunStarted" });
    const afterId = changes[1]!.id!;
    const resumed = await readSse(await fetch(`${url}/v1/api/stream`, { headers: { "last-event-id": afterId } }), (e) => e.filter((x) => x.event === "change").length >= changes.length - 2);
    expect(resumed.filter((e) => e.event === "change").map((e) => e.id)).toEqual(changes.slice(2).map((e) => e.id));
    const reset = await readSse(await fetch(`${url}/v1/api/stream`, { headers: { "last-event-id": "old-epoch.5" } }), (e) => e.length >= 1);
    expect(reset[0]).toMatchObject({ event: "reset" });
  });

  it("stores crons: create (bad expressions refused), list, run now, delete", async () => {
    const { url, rpc, settle } = await setup();
    expect((await rpc("cronCreate", { workflow: "greet", schedule: "every day" })).body.error.code).toBe("INVALID_ARGUMENT");
    expect((await rpc("cronCreate", { workflow: "nope", schedule: "0 3 * * *" })).body.error.code).toBe("WORKFLOW_NOT_FOUND");
    const created = (await rpc("cronCreate", { cronId: "nightly", workflow: "greet", schedule: "0 0 3 * * *", input: { name: "cron" } })).body.result;
    expect(created).toMatchObject({ cronId: "nightly", workflowKey: "greet", schedule: "0 0 3 * * *", input: { name: "cron" }, enabled: true, lastRunId: null });
    expect(created.nextFireAtMs).toBeGreaterThan(Date.now());
    expect((await (await fetch(`${url}/v1/api/crons`)).json()) as any).toMatchObject({ result: [{ cronId: "nightly" }] });
    const fired = (await rpc("cronRun", { cronId: "nightly" })).body.result;
    expect((await settle(fired.runId))?.status).toBe("finished");
    const run = (await rpc("getRun", { runId: fired.runId })).body.result;
    expect(run).toMatchObject({ triggeredBy: "cron:gateway", output: { text: "hi cron" } });
    expect((await rpc("cronList")).body.result[0]).toMatchObject({ lastRunId: fired.runId, nextFireAtMs: created.nextFireAtMs });
    expect((await fetch(`${url}/v1/api/crons/nightly`, { method: "DELETE" }).then((r) => r.json())) as any).toEqual({ ok: true, result: { cronId: "nightly", deleted: true } });
    expect(await rpc("cronDelete", { cronId: "nightly" })).toMatchObject({ status: 404, body: { error: { code: "CRON_NOT_FOUND" } } });
  });

  it("pauses a running run (in-flight tasks finish, nothing new starts) and resumes it", async () => {
    const { rpc, settle, release, host } = await setup();
    await rpc("launchRun", { workflow: "slow", input: {}, runId: "p1" });
    expect((await rpc("pauseRun", { runId: "p1" })).body.result).toEqual({ runId: "p1", status: "pausing" });
    release();
    expect((await settle("p1")).status).toBe("paused");
    const paused = (await rpc("getRun", { runId: "p1" })).body.result;
    expect(paused.nodes.map((n: { nodeId: string; state: string }) => [n.nodeId, n.state])).toEqual([["hold", "finished"], ["after", "pending"]]);
    expect((await rpc("resumeRun", { runId: "p1" })).body.result).toMatchObject({ runId: "p1" });
    expect((await settle("p1")).status).toBe("finished");
    expect(host.activeRun("p1")).toBeUndefined();
  });

  it("streams a run's graph frames to devtools: the current one, then each new one", async () => {
    const { url, rpc, settle } = await setup();
    await rpc("launchRun", { workflow: "ship", input: {}, runId: "s1" });
    await settle("s1");
    const devtools = await fetch(`${url}/v1/rpc/streamDevTools`, { method: "POST", body: JSON.stringify({ runId: "s1" }) });
    const reading = readSse(devtools, (e) => e.filter((x) => x.event === "devtools.frame").length >= 2);
    await rpc("submitApproval", { runId: "s1", nodeId: "ship", decision: "approve" });
    await settle("s1");
    await rpc("submitSignal", { name: "deployed", runId: "s1", payload: { env: "prod" } });
    await settle("s1");
    const shown = (await reading).filter((e) => e.event === "devtools.frame").map((e) => e.data as { frameNo: number; tasks: Array<{ nodeId: string }> });
    expect(shown[0]!.frameNo).toBeLessThan(shown[1]!.frameNo);
    expect(shown[0]!.tasks.map((t) => t.nodeId)).not.toContain("done");
    expect(shown.at(-1)!.tasks.map((t) => t.nodeId)).toContain("done");
  });

  it("serves every /v1/api route over the same methods and rows", async () => {
    const { url, settle, dbHandle, db } = await setup();
    const get = async (path: string) => ((await (await fetch(`${url}${path}`)).json()) as any).result;
    const post = async (path: string, body: unknown = {}) => (await fetch(`${url}${path}`, { method: "POST", body: JSON.stringify(body) })).json() as Promise<any>;
    expect((await post("/v1/api/runs", { workflow: "greet", input: { name: "Ida" }, runId: "g1" })).result).toEqual({ runId: "g1", workflow: "greet" });
    await settle("g1");
    expect(await get("/v1/api/runs/g1")).toMatchObject({ runId: "g1", status: "finished" });
    const page = await get("/v1/api/runs/g1/events?afterSeq=2&limit=3");
    expect(page.events.map((e: { seq: number }) => e.seq)).toEqual([3, 4, 5]);
    expect(page.lastSeq).toBe(5);
    expect((await fetch(`${url}/v1/api/runs/g1/events?afterSeq=-1`)).status).toBe(400);
    expect(await get("/v1/api/runs/g1/nodes/greeting/output")).toMatchObject({ row: { text: "hi Ida" } });
    expect((await get("/v1/api/runs/g1/what-happened")).status).toBe("finished");
    expect(await get("/v1/api/runs/g1/frames")).toMatchObject({ runId: "g1", tasks: [expect.objectContaining({ nodeId: "greeting" }), expect.objectContaining({ nodeId: "result" })] });
    expect((await get("/v1/api/prompts?runId=g1"))[0]).toMatchObject({ prompt: "Greet Ida" });
    expect((await get("/v1/api/workflows")).map((w: { key: string }) => w.key)).toEqual(["greet", "ship", "slow", "gated"]);

    await post("/v1/api/runs", { workflow: "ship", input: {}, runId: "s1" });
    await settle("s1");
    expect((await post("/v1/api/runs/s1/pause")).error.code).toBe("INVALID_TRANSITION");
    expect((await post("/v1/api/approvals", { runId: "s1", nodeId: "ship", decision: "approve" })).result.status).toBe("accepted");
    await settle("s1");
    expect((await post("/v1/api/signals", { name: "deployed", runId: "s1", payload: { env: "dev" } })).result.status).toBe("accepted");
    expect((await settle("s1")).status).toBe("finished");
    expect((await get("/v1/api/runs/s1/nodes/done/output")).row).toMatchObject({ ok: false });
    expect((await post("/v1/api/runs/s1/resume")).result).toEqual({ runId: "s1", status: "finished" });
    expect((await post("/v1/api/runs/s1/cancel")).error.code).toBe("INVALID_TRANSITION");

    await createMemoryStore(dbHandle).setFact("user:ana", "tone", { formal: true });
    expect(await get("/v1/api/memory/facts?namespace=user:ana")).toEqual([expect.objectContaining({ namespace: "user:ana", key: "tone", value: { formal: true } })]);
    await db.store.execute(
      `INSERT INTO _flow_scores (id, run_id, node_id, iteration, attempt, scorer_id, scorer_name, source, score, scored_at_ms) VALUES ('sc1', 'g1', 'greeting', 0, 1, 'len', 'Length', 'batch', 0.5, 1)`,
    );
    expect(await get("/v1/api/scores?runId=g1&scorerId=len")).toEqual([expect.objectContaining({ id: "sc1", runId: "g1", score: 0.5 })]);
    expect(await get("/v1/api/scores?runId=other")).toEqual([]);

    expect((await post("/v1/api/crons", { cronId: "c1", workflow: "greet", schedule: "0 3 * * *", input: { name: "Cy" } })).result.cronId).toBe("c1");
    const fired = (await post("/v1/api/crons/c1/run")).result;
    expect((await settle(fired.runId)).status).toBe("finished");
    expect((await get("/v1/api/crons"))[0]).toMatchObject({ cronId: "c1", lastRunId: fired.runId });
    expect(await get(`/v1/api/runs?status=finished&limit=1`)).toMatchObject({ runs: [expect.objectContaining({ status: "finished" })], nextCursor: expect.any(String) });
    expect((await (await fetch(`${url}/v1/api/runs?cursor=bogus`)).json()) as any).toMatchObject({ error: { code: "INVALID_ARGUMENT" } });
  });

  it("rewinds a finished run to a task attempt and resumes it: only the reset tasks run again", async () => {
    const { rpc, settle } = await setup();
    await rpc("launchRun", { workflow: "greet", input: { name: "Ada" }, runId: "g1" });
    await settle("g1");
    const missing = (await rpc("rewindRun", { runId: "g1", nodeId: "nope", restoreVcs: false })).body.result;
    expect(missing).toMatchObject({ success: false, runId: "g1", status: "finished", error: expect.stringContaining("nope") });
    const rewound = (await rpc("rewindRun", { runId: "g1", nodeId: "result", restoreVcs: false })).body.result;
    expect(rewound).toMatchObject({ success: true, runId: "g1", resetNodes: ["result"] });
    expect((await settle("g1")).status).toBe("finished");
    const nodes = (await rpc("getRun", { runId: "g1" })).body.result.nodes;
    expect(nodes.map((n: { nodeId: string; attempts: unknown[] }) => [n.nodeId, n.attempts.length])).toEqual([
      ["greeting", 1],
      ["result", 2],
    ]);
    expect((await rpc("rewindRun", { runId: "g1" })).body.error.code).toBe("INVALID_ARGUMENT");
  });

  it("starts one session when two resumes of a parked run race, and keeps steering it", async () => {
    const { rpc, settle, host, db, release } = await setup();
    await rpc("launchRun", { workflow: "gated", input: {}, runId: "k1" });
    expect((await settle("k1")).status).toBe("waiting-approval");
    await submitApproval(db, { runId: "k1", nodeId: "ok", decision: "approve" }); // no wake: the two resumes below race
    const outcomes = await Promise.allSettled([host.resumeRun("k1"), host.resumeRun("k1")]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    expect((outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({ code: "RUN_ALREADY_RUNNING" });
    // The session that runs (blocked in "work") is the one the host steers.
    expect(host.activeRun("k1")).toBeDefined();
    const session = host.activeRun("k1")!;
    session.cancel();
    release();
    expect((await session.done).status).toBe("cancelled");
    expect((await rpc("getRun", { runId: "k1" })).body.result.status).toBe("cancelled");
    expect((await db.listEvents("k1")).filter((e) => e.type === "RunResumed")).toHaveLength(1);
  });
});
